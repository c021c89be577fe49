import Foundation
import MilieuTestSupport

/// A real terminal for the REPL: a tmux server of its own, one pane running a command,
/// driven with `send-keys` and read back with `capture-pane` — what a person would see.
final class Terminal {
    let directory: String
    /// The tmux server's socket, in `directory`, so that nothing is left behind.
    private var socket: String { "\(directory)/tmux.sock" }

    /// Starts `arguments` in a pane of `columns` × `rows` with `environment` (set on top of
    /// this process's, less NO_COLOR, MILIEU_* and XDG_STATE_HOME; no history file unless
    /// `environment` names one).
    init(_ arguments: [String], environment: [String: String] = [:], columns: Int = 160, rows: Int = 40) throws {
        directory = try Daemon.makeDirectory()
        let config = "\(directory)/tmux.conf"
        // The pane stays after its program exits, so that the last screen can be read.
        try "set -g remain-on-exit on\nset -g status off\n".write(toFile: config, atomically: true, encoding: .utf8)
        var variables = ["-u", "NO_COLOR", "-u", "MILIEU_SOCKET", "-u", "MILIEU_HISTFILE", "-u", "XDG_STATE_HOME"]
        // No history file unless the test asks for one.
        if environment["MILIEU_HISTFILE"] == nil && environment["XDG_STATE_HOME"] == nil { variables.append("MILIEU_HISTFILE=/dev/null") }
        for (key, value) in environment.sorted(by: { $0.key < $1.key }) { variables.append("\(key)=\(value)") }
        // The shell reports how the program ended (128 + n for signal n), which tmux 3.3 does not.
        let command = (["env"] + variables + arguments).map(Self.quote).joined(separator: " ") + #"; echo "[exited with $?]""#
        try tmux(["-f", config, "new-session", "-d", "-x", "\(columns)", "-y", "\(rows)", command])
    }

    deinit {
        _ = try? tmux(["kill-server"])
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Types `text` as it is.
    func type(_ text: String) throws { try tmux(["send-keys", "-t", "0", "-l", text]) }

    /// Presses keys by tmux name: `Enter`, `Tab`, `C-c`, `C-d`, `Up`, `Left`.
    func press(_ keys: String...) throws { try tmux(["send-keys", "-t", "0"] + keys) }

    /// The screen as text, trailing blank lines dropped; with `escapes`, colours included.
    func screen(escapes: Bool = false) throws -> String {
        let text = try tmux(["capture-pane", "-p", "-t", "0"] + (escapes ? ["-e"] : []))
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { String($0) }
            .reversed().drop { $0.trimmingCharacters(in: .whitespaces).isEmpty }.reversed().joined(separator: "\n")
    }

    /// The screen's last non-blank line: where the prompt and the typed text are.
    func lastLine() throws -> String { try screen().split(separator: "\n").last.map(String.init) ?? "" }

    /// Waits until `condition` holds for the screen; fails, showing the screen, after `timeout` seconds.
    @discardableResult
    func waitFor(_ what: String, timeout: Double = 10, escapes: Bool = false, _ condition: (String) -> Bool) throws -> String {
        let deadline = Date.now.addingTimeInterval(timeout)
        var shown = ""
        while Date.now < deadline {
            shown = try screen(escapes: escapes)
            if condition(shown) { return shown }
            usleep(20_000)
        }
        let state = (try? exitStatus()).map { $0.map { "exited with \($0)" } ?? "running" } ?? "unknown"
        throw TestFailure("timed out waiting for \(what); the program is \(state); the screen shows:\n\(shown)")
    }

    /// Waits until the screen contains `text`.
    @discardableResult
    func waitFor(_ text: String, timeout: Double = 10) throws -> String {
        try waitFor("\"\(text)\"", timeout: timeout) { $0.contains(text) }
    }

    /// The program's exit status once it has exited (128 + n if signal n ended it); nil while it runs.
    func exitStatus() throws -> Int32? {
        let lines = try screen().split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let line = lines.last(where: { $0.hasPrefix("[exited with ") && $0.hasSuffix("]") }) else { return nil }
        return Int32(line.dropFirst("[exited with ".count).dropLast())
    }

    @discardableResult
    private func tmux(_ arguments: [String]) throws -> String {
        let output = try ChildProcess.run(["/usr/bin/tmux", "-S", socket] + arguments, environment: ProcessInfo.processInfo.environment)
        guard output.status == 0 else {
            throw TestFailure("tmux \(arguments.joined(separator: " ")) failed: \(output.stdout)\(output.stderr)")
        }
        return output.stdout
    }

    private static func quote(_ word: String) -> String { "'" + word.replacingOccurrences(of: "'", with: #"'\''"#) + "'" }
}
