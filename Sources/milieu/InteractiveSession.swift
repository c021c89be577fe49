import Foundation
import MilieuClient
import MilieuProtocol

#if canImport(Glibc)
import Glibc
#endif

/// The interactive REPL: one poll loop over the terminal, the daemon's socket and the
/// signals, so that a notification prints the moment it arrives, above the half-typed
/// line; and, while the daemon is gone, a retry every second until it is back.
final class InteractiveSession {
    let shell: Shell
    let console: Console
    private var link: Link { shell.link }
    private var editor: LineEditor!
    private var quitting = false
    /// The lines of a command whose brackets are still open, typed at `...>`.
    private var joiner = LineJoiner()
    /// The schema's types and the objects paths reach, for Tab and the hints; forgotten after
    /// each command, which may have changed either.
    private let schema: SchemaHelp
    /// Whether the user has been told the connection is up (the prompt says so too).
    private var shownConnected: Bool
    private var lastAttempt = Date.distantPast

    init(shell: Shell, console: Console, environment: [String: String]) {
        self.shell = shell
        self.console = console
        shell.terminalWidth = LineEditor.screenColumns
        shownConnected = shell.link.isConnected
        schema = SchemaHelp(link: shell.link)
        editor = LineEditor(prompt: prompt(connected: shownConnected), history: HistoryFile.resolve(environment: environment)) {
            [unowned self] line in handle(line)
        }
        editor.completer = { [unowned self] before, word in
            Completer(link: link, schema: schema).complete(before: before, word: word)
        }
        editor.keepsInHistory = { [unowned self] line in !SecretLines(oracle: schema).carriesASecret(line) }
        if console.style.enabled { editor.hinter = { [unowned self] line in SyntaxHint.hint(for: line, schema: schema) } }
    }

    /// Runs until `quit` or Ctrl-D; the exit status.
    func run() -> Int32 {
        let signals = SignalPipe.install([SIGINT, SIGWINCH, SIGTSTP, SIGTERM, SIGHUP])
        link.interruption = signals  // Ctrl-C abandons a request the daemon does not answer
        if shownConnected {
            console.status(console.style.dim("connected to milieud at \(link.socketPath); help lists the commands, Ctrl-D leaves"))
            if let restore = link.restore { console.status(ConnectionMessages.restored(restore, style: console.errorStyle)) }
        }
        editor.start()
        while !quitting {
            printNotifications()
            var descriptors = [
                pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0), pollfd(fd: signals, events: Int16(POLLIN), revents: 0),
            ]
            if link.isConnected, let client = link.client {
                descriptors.append(pollfd(fd: client.fileDescriptor, events: Int16(POLLIN), revents: 0))
            }
            let ready = poll(&descriptors, nfds_t(descriptors.count), link.isConnected ? -1 : 1000)
            if ready < 0 && errno != EINTR { break }
            if ready > 0 && descriptors[1].revents != 0 { handleSignals(SignalPipe.drain()) }
            if descriptors.count > 2 && descriptors[2].revents != 0 { receive() }
            if ready > 0 && descriptors[0].revents & Int16(POLLIN | POLLHUP) != 0 { editor.readCharacter() }
            if !link.isConnected { reconnect() }
        }
        editor.stop()
        return ExitStatus.success
    }

    /// A line the user entered; nil for Ctrl-D.
    private func handle(_ line: String?) {
        guard let line else {
            quit()
            return
        }
        guard let command = joiner.add(line) else {
            editor.setPrompt(Self.continuationPrompt)
            return
        }
        editor.remember(command)
        schema.forget()
        if !link.isConnected { reconnect(now: true) }
        guard let outcome = shell.run(command) else {
            editor.setPrompt(prompt(connected: link.isConnected))
            return
        }
        // A Ctrl-C while the command waited cancelled it; it is not also a Ctrl-C at the prompt.
        handleSignals(SignalPipe.drain().filter { $0 != SIGINT })
        console.show(outcome)
        console.show(link.takeNotifications(sync: true), watches: link.watches)
        if case .quit = outcome { quit() }
        noticeLoss()
        editor.setPrompt(shell.awaitsAnswer ? Self.questionPrompt : prompt(connected: link.isConnected))
    }

    /// Leaves: readline lets go of the terminal at once, so no new prompt is drawn.
    private func quit() {
        quitting = true
        editor.stop()
    }

    private func printNotifications() {
        guard link.client?.hasNotifications == true else { return }
        let notifications = link.takeNotifications(sync: false)
        editor.printAbove { console.show(notifications, watches: link.watches) }
    }

    private func receive() {
        _ = try? link.client?.receiveAvailable()
        printNotifications()
        noticeLoss()
    }

    /// Tells the user once when the daemon went away, and changes the prompt.
    private func noticeLoss() {
        guard shownConnected, !link.isConnected else { return }
        link.disconnected()
        shownConnected = false
        lastAttempt = Date()
        editor.printAbove { console.status(ConnectionMessages.lost(socketPath: link.socketPath, style: console.errorStyle)) }
        editor.setPrompt(prompt(connected: false))
    }

    /// Tries to connect again, at most once a second unless `now`.
    private func reconnect(now: Bool = false) {
        guard now || Date().timeIntervalSince(lastAttempt) >= 1 else { return }
        lastAttempt = Date()
        schema.forget()
        let resumption: Link.Resumption?
        do {
            resumption = try link.connect()
        } catch {
            return
        }
        shownConnected = true
        let notifications = link.takeNotifications(sync: true)
        editor.printAbove {
            console.status(
                ConnectionMessages.back(resumption, restore: link.restore, socketPath: link.socketPath, style: console.errorStyle))
            console.show(notifications, watches: link.watches)
        }
        editor.setPrompt(prompt(connected: true))
    }

    private func handleSignals(_ signals: [Int32]) {
        for signal in signals {
            switch signal {
            case SIGINT:
                editor.interrupt()
                if joiner.pending != nil {
                    joiner.abandon()
                    editor.setPrompt(prompt(connected: link.isConnected))
                }
            case SIGWINCH: editor.resize()
            case SIGTSTP: editor.suspend(SignalPipe.stopProcess)
            case SIGTERM, SIGHUP: quit()
            default: break
            }
        }
    }

    /// The prompt while a question waits for its answer (`reset`).
    static let questionPrompt = "reset? [y/N] "
    /// The prompt for the next line of a command whose brackets are still open.
    static let continuationPrompt = "...> "

    /// `milieu> `, or `milieu (no daemon)> ` while disconnected; escapes are wrapped in
    /// \u{01}…\u{02} so that readline knows they take no room.
    private func prompt(connected: Bool) -> String {
        let style = console.style
        func hidden(_ code: String) -> String { style.enabled ? "\u{01}\u{1B}[\(code)m\u{02}" : "" }
        let name = hidden("1") + "milieu" + hidden("0")
        return connected ? name + "> " : name + " " + hidden("31") + "(no daemon)" + hidden("0") + "> "
    }
}

/// Signals turned into bytes on a pipe, so that the poll loop handles them in order with
/// everything else (the self-pipe trick).
enum SignalPipe {
    nonisolated(unsafe) private static var writeEnd: Int32 = -1
    nonisolated(unsafe) private static var readEnd: Int32 = -1

    /// Routes `signals` to the pipe; returns its read end, for poll.
    static func install(_ signals: [Int32]) -> Int32 {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return -1 }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        (readEnd, writeEnd) = (ends[0], ends[1])
        for signal in signals { _ = Glibc.signal(signal, forwardSignal) }
        return readEnd
    }

    /// The signals received since the last call, in order.
    static func drain() -> [Int32] {
        var buffer = [UInt8](repeating: 0, count: 64)
        var signals: [Int32] = []
        while true {
            let count = read(readEnd, &buffer, buffer.count)
            guard count > 0 else { return signals }
            signals += buffer[..<count].map(Int32.init)
        }
    }

    /// Stops the process as SIGTSTP would have, had it not been caught; returns when it
    /// is continued.
    static func stopProcess() {
        _ = Glibc.signal(SIGTSTP, SIG_DFL)
        raise(SIGTSTP)
        _ = Glibc.signal(SIGTSTP, forwardSignal)
    }

    fileprivate static func record(_ signal: Int32) {
        var byte = UInt8(truncatingIfNeeded: signal)
        _ = write(writeEnd, &byte, 1)
    }
}

private let forwardSignal: @convention(c) (Int32) -> Void = { SignalPipe.record($0) }
