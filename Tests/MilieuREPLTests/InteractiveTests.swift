import Foundation
import MilieuClient
import MilieuJSON
import MilieuProtocol
import MilieuTestSupport
import Testing

@testable import milieu

/// The REPL in a real terminal (tmux) against a real daemon: what a person sees while
/// typing, completing, failing, and losing the daemon.
@Suite(.serialized)
struct InteractiveTests {
    /// A terminal running milieu on `daemon`'s socket, at its first prompt.
    private func repl(_ daemon: Daemon, environment: [String: String] = [:]) throws -> Terminal {
        let terminal = try Terminal([MilieuRun.binary, "--socket", daemon.socketPath], environment: environment)
        try terminal.waitFor("the prompt") { $0.hasSuffix("milieu>") }
        return terminal
    }

    private func enter(_ terminal: Terminal, _ line: String) throws {
        try terminal.type(line)
        try terminal.press("Enter")
    }

    @Test func aNotificationArrivingMidTypingLeavesTheTypedTextIntactAndTheLineStillSubmits() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let terminal = try repl(daemon)
        try enter(terminal, "watch login")
        try terminal.waitFor("w1 watching login")
        try terminal.type("get login.em")
        try terminal.waitFor("the typed text") { $0.hasSuffix("milieu> get login.em") }

        try MilieuClient(socketPath: daemon.socketPath).request(GraphSetRequest(path: "login.email", value: "kim@example.com"), timeout: 5)
        // The notification and the redrawn line are two writes: wait for both, not the first.
        let screen = try terminal.waitFor("the notification and the redrawn line") {
            $0.contains("login.isValidEmail = true") && $0.hasSuffix("milieu> get login.em")
        }
        let lines = screen.split(separator: "\n").map(String.init)
        #expect(
            Array(lines.suffix(3)) == [#"v2  login.email = "kim@example.com""#, "    login.isValidEmail = true", "milieu> get login.em"],
            "the notification is printed above the prompt, and the half-typed line is redrawn as it was")

        try terminal.type("ail")
        try terminal.press("Enter")
        let after = try terminal.waitFor("the answer") { $0.hasSuffix("\"kim@example.com\"\nmilieu>") }
        #expect(after.contains("milieu> get login.email\n\"kim@example.com\""))
    }

    @Test func aHalfTypedLineThatWrapsSurvivesANotification() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let terminal = try Terminal([MilieuRun.binary, "--socket", daemon.socketPath], columns: 40)
        try terminal.waitFor("the prompt") { $0.hasSuffix("milieu>") }
        try enter(terminal, "watch theme")
        try terminal.waitFor("w1 watching theme")
        let typed = #"mount {"parent": "/App", "name": "Banner", "body": ["hello"]"#
        try terminal.type(typed)
        try terminal.waitFor("the typed text, over two rows") { $0.split(separator: "\n").suffix(2).joined() == "milieu> " + typed }

        try MilieuClient(socketPath: daemon.socketPath).request(GraphSetRequest(path: "theme.colorScheme", value: "dark"), timeout: 5)
        // The notification and the line's redraw are separate writes: wait for both, as the
        // one-row test above does, so that the screen is not read between them.
        let screen = try terminal.waitFor("the notification, then the line redrawn") {
            $0.contains(#"v2  theme.colorScheme = "dark""#) && $0.split(separator: "\n").suffix(2).joined() == "milieu> " + typed
        }
        let rows = screen.split(separator: "\n")
        #expect(rows.suffix(3).first == #"v2  theme.colorScheme = "dark""#)
        #expect(rows.suffix(2).joined() == "milieu> " + typed, "both rows of the line are redrawn below the notification")

        try terminal.type("}")
        try terminal.press("Enter")
        try terminal.waitFor("mounted /App/Banner")
    }

    @Test func tabCompletesCommandNamesAndKeyPathsThroughObjects() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let terminal = try repl(daemon, environment: ["NO_COLOR": "1"])  // no syntax hints to read around
        try terminal.type("wat")
        try terminal.press("Tab")
        try terminal.waitFor("the command name") { $0.hasSuffix("milieu> watch") }
        try terminal.press("C-u")
        try terminal.type("get log")
        try terminal.press("Tab")
        try terminal.waitFor("the variable") { $0.hasSuffix("milieu> get login") }
        try terminal.press("Tab")
        let listing = try terminal.waitFor("the object's members, listed") {
            $0.hasSuffix("milieu> get login.") && $0.contains("isValidEmail")
        }
        let listed = try #require(listing.split(separator: "\n").first { $0.contains("isValidEmail") })
        #expect(listed.contains("email") && listed.contains("isUserLoggedIn") && !listed.contains("login."), "each by its name: \(listed)")
        try terminal.type("isV")
        try terminal.press("Tab")
        try terminal.waitFor("the property") { $0.hasSuffix("milieu> get login.isValidEmail") }
        try terminal.press("Enter")
        try terminal.waitFor("its value") { $0.hasSuffix("get login.isValidEmail\nfalse\nmilieu>") }
    }

    @Test func tabCompletesViewPathsAndActions() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try MilieuClient(socketPath: daemon.socketPath)
        try client.request(
            ViewMountRequest(declaration: ["parent": "/App", "name": "ParentView", "state": ["isOn": false], "retain": true]), timeout: 5)
        try client.request(
            ViewMountRequest(declaration: [
                "parent": "/App/ParentView", "name": "ToggleRow", "bindings": ["isOn": ["$parent": "isOn"]], "retain": true,
            ]), timeout: 5)
        let terminal = try repl(daemon, environment: ["NO_COLOR": "1"])  // no syntax hints to read around
        try terminal.type("tree /App/Par")
        try terminal.press("Tab")
        try terminal.waitFor("the view path") { $0.hasSuffix("milieu> tree /App/ParentView") }
        try terminal.type("/T")
        try terminal.press("Tab")
        try terminal.waitFor("the child's path") { $0.hasSuffix("milieu> tree /App/ParentView/ToggleRow") }
        try terminal.press("C-u")
        try terminal.type("call session.st")
        try terminal.press("Tab")
        try terminal.waitFor("the action") { $0.hasSuffix("milieu> call session.start") }
        try terminal.press("C-u")
        for command in ["deps", "env"] {
            try terminal.type("\(command) /App/ParentView/T")
            try terminal.press("Tab")
            try terminal.waitFor("\(command)'s view path") { $0.hasSuffix("milieu> \(command) /App/ParentView/ToggleRow") }
            try terminal.press("C-u")
        }
        try terminal.type("readers login.isV")
        try terminal.press("Tab")
        try terminal.waitFor("the key path") { $0.hasSuffix("milieu> readers login.isValidEmail") }
        try terminal.press("C-u")
        try terminal.type("types CounterO")
        try terminal.press("Tab")
        try terminal.waitFor("the type") { $0.hasSuffix("milieu> types CounterObject") }
    }

    @Test func environmentObjectMissingIsLoudAndRedOnATerminal() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let terminal = try repl(daemon)
        try enter(terminal, #"mount {"parent": "/App", "name": "CheckoutView", "environmentObjects": {"cart": "Cart"}}"#)
        let screen = try terminal.waitFor("the error") { $0.contains("fix") }
        #expect(screen.contains("error: EnvironmentObjectMissing"))
        #expect(screen.contains("No ObservableObject of type Cart found."))
        #expect(screen.contains("type      Cart"))
        #expect(screen.contains("view      /App/CheckoutView  (variable cart)"))
        #expect(screen.contains("searched  /App/CheckoutView → /App"))
        #expect(screen.contains("fix       Provide a Cart"))
        let coloured = try terminal.screen(escapes: true)
        let heading = try #require(coloured.split(separator: "\n").first { $0.contains("error: EnvironmentObjectMissing") })
        #expect(heading.contains("31m"), "the heading is red: \(heading.debugDescription)")
        let fix = try #require(coloured.split(separator: "\n").first { $0.contains("Provide a Cart") })
        #expect(fix.contains("31m"), "the fix is red: \(fix.debugDescription)")
    }

    @Test func noColorTurnsColourOff() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let terminal = try repl(daemon, environment: ["NO_COLOR": "1"])
        try enter(terminal, #"mount {"parent": "/App", "name": "CheckoutView", "environmentObjects": {"cart": "Cart"}}"#)
        try terminal.waitFor("the error") { $0.contains("fix") }
        let coloured = try terminal.screen(escapes: true)
        #expect(!coloured.contains("\u{1B}["), "no escape sequence anywhere: \(coloured.debugDescription)")
    }

    @Test func ctrlCClearsTheLineWithoutLeavingAndCtrlDLeaves() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let terminal = try repl(daemon)
        try terminal.type("get login.email")
        // The terminal discards input it has not handed over yet when Ctrl-C arrives: press it
        // once the line is shown, as a person would.
        try terminal.waitFor("the typed line") { $0.hasSuffix("milieu> get login.email") }
        try terminal.press("C-c")
        try terminal.waitFor("a fresh prompt") { $0.hasSuffix("milieu> get login.email^C\nmilieu>") }
        try enter(terminal, "get theme.colorScheme")
        try terminal.waitFor("the answer") { $0.hasSuffix("\"light\"\nmilieu>") }
        #expect(try terminal.exitStatus() == nil)
        try terminal.press("C-d")
        try terminal.waitFor("milieu to leave") { _ in (try? terminal.exitStatus()) == 0 }
    }

    /// Enters `line` while `daemon` is stopped, cancels the wait for its answer with Ctrl-C, and
    /// lets the daemon go on; returns the screen once the prompt is back.
    private func enterAndCancel(_ line: String, _ terminal: Terminal, stopping daemon: Daemon) throws -> String {
        kill(daemon.process.processIdentifier, SIGSTOP)
        try enter(terminal, line)
        usleep(300_000)
        try terminal.press("C-c")
        let screen = try terminal.waitFor("the cancellation") { $0.contains("^C") && $0.hasSuffix("milieu>") }
        kill(daemon.process.processIdentifier, SIGCONT)
        return screen
    }

    @Test func ctrlCCancelsARequestTheDaemonDoesNotAnswerAndItsLateAnswerIsDropped() throws {
        let daemon = try Daemon()
        defer {
            kill(daemon.process.processIdentifier, SIGCONT)
            daemon.stop()
        }
        let terminal = try repl(daemon)
        let cancelled = try enterAndCancel("get login.email", terminal, stopping: daemon)
        #expect(cancelled.contains("cancelled: no answer to graph/get from milieud at \(daemon.socketPath) yet"))
        try enter(terminal, "get theme.colorScheme")
        let screen = try terminal.waitFor("the next answer") { $0.hasSuffix("\"light\"\nmilieu>") }
        #expect(!screen.contains("\"\"\nmilieu>"), "the late answer to get login.email is not printed")
        #expect(try terminal.exitStatus() == nil)
    }

    /// A raw line given up on with Ctrl-C does not answer the next raw line: its late reply is
    /// dropped, where it used to be printed as the next line's.
    @Test func ctrlCCancelsARawLineAndItsLateReplyDoesNotAnswerTheNext() throws {
        let daemon = try Daemon()
        defer {
            kill(daemon.process.processIdentifier, SIGCONT)
            daemon.stop()
        }
        let terminal = try repl(daemon)
        let first = #"{"jsonrpc":"2.0","id":"first","method":"graph/get","params":{"path":"login.email"}}"#
        let cancelled = try enterAndCancel(first, terminal, stopping: daemon)
        #expect(cancelled.contains("cancelled: no response from milieud at \(daemon.socketPath) yet"))
        try enter(terminal, #"{"jsonrpc":"2.0","id":"second","method":"graph/get","params":{"path":"theme.colorScheme"}}"#)
        let screen = try terminal.waitFor("the next reply") { $0.contains("\"light\"") && $0.hasSuffix("milieu>") }
        #expect(screen.contains(#""id": "second""#))
        #expect(!screen.contains(#""id": "first""#), "the late reply to the first line is not printed")
    }

    @Test func jsonWithOpenBracketsContinuesAtADotsPromptAndIsOneHistoryEntry() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let terminal = try repl(daemon)
        try enter(terminal, #"mount {"parent": "/App","#)
        try terminal.waitFor("the continuation prompt") { $0.hasSuffix("...>") }
        try enter(terminal, #""name": "Multi", "state": {"n": [1,"#)
        try terminal.waitFor("still open") { $0.hasSuffix("...>") }
        try enter(terminal, "2]}}")
        try terminal.waitFor("the mount") { $0.contains("mounted /App/Multi") && $0.hasSuffix("milieu>") }
        try terminal.press("Up")
        try terminal.waitFor("the whole command from the history") {
            $0.hasSuffix(#"milieu> mount {"parent": "/App", "name": "Multi", "state": {"n": [1, 2]}}"#)
        }
        try terminal.press("C-u")
        try enter(terminal, #"set theme.colorScheme {"#)
        try terminal.waitFor("the continuation prompt again") { $0.hasSuffix("...>") }
        try terminal.press("C-c")
        try terminal.waitFor("the command abandoned") { $0.hasSuffix("...> ^C\nmilieu>") }
        try enter(terminal, "get /App/Multi.n")
        try terminal.waitFor("the value") { $0.hasSuffix("  2\n]\nmilieu>") }
    }

    @Test func resetSaysWhatItWouldDoAndAsksFirst() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let terminal = try repl(daemon)
        try enter(terminal, #"mount {"parent": "/App", "name": "Kept", "retain": true}"#)
        try enter(terminal, "set theme.colorScheme dark")
        try terminal.waitFor("the write") { $0.hasSuffix("ok, version 3\nmilieu>") }
        try enter(terminal, "reset")
        let asked = try terminal.waitFor("the question") { $0.hasSuffix("reset? [y/N]") }
        #expect(asked.contains("reset to the scene's start would:"))
        #expect(asked.contains("/App/Kept (with everything below)") && asked.contains("/App.theme.colorScheme"))
        try enter(terminal, "n")
        try terminal.waitFor("the refusal") { $0.hasSuffix("nothing was reset\nmilieu>") }
        try enter(terminal, "get theme.colorScheme")
        try terminal.waitFor("nothing changed") { $0.hasSuffix("\"dark\"\nmilieu>") }
        try enter(terminal, "reset")
        try terminal.waitFor("the question again") { $0.hasSuffix("reset? [y/N]") }
        try enter(terminal, "y")
        try terminal.waitFor("the reset") { $0.contains("reset to the scene's start  version 4") && $0.hasSuffix("milieu>") }
        try enter(terminal, "get theme.colorScheme")
        try terminal.waitFor("the scene's value") { $0.hasSuffix("\"light\"\nmilieu>") }
    }

    @Test func hintsAndTabOfferWhatTheSchemaKnows() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let terminal = try repl(daemon)
        try terminal.type("set theme.fontScale ")
        try terminal.waitFor("the range") { $0.hasSuffix("milieu> set theme.fontScale <double 0.5..3>") }
        try terminal.press("C-u")
        try terminal.type("call session.start ")
        try terminal.waitFor("the action's parameter") { $0.hasSuffix("milieu> call session.start <user: string>") }
        try terminal.press("C-u")
        try terminal.type("set theme.colorScheme ")
        try terminal.waitFor("the values") { $0.hasSuffix("milieu> set theme.colorScheme light | dark") }
        try terminal.press("Tab")
        try terminal.press("Tab")
        let listing = try terminal.waitFor("the values, listed") { $0.contains("dark") && $0.contains("light\n") }
        #expect(listing.split(separator: "\n").contains { $0.contains("dark") && $0.contains("light") }, "\(listing)")
        try terminal.type("d")
        try terminal.press("Tab")
        try terminal.waitFor("the value") { $0.hasSuffix("milieu> set theme.colorScheme dark") }
        try terminal.press("Enter")
        try terminal.waitFor("the write") { $0.contains("ok, version 2") }
    }

    @Test func aSyntaxHintFollowsACommandNameAndGoesWhenTheLineIsDone() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let terminal = try repl(daemon)
        try terminal.type("set ")
        try terminal.waitFor("the hint") { $0.hasSuffix("milieu> set <keypath> <json>") }
        try terminal.type("login.email ")
        try terminal.waitFor("the rest of the hint: the schema's type") { $0.hasSuffix("milieu> set login.email <string>") }
        try terminal.type(#""a@b.co""#)
        try terminal.waitFor("the hint to go") { $0.hasSuffix(#"milieu> set login.email "a@b.co""#) }
        try terminal.press("Enter")
        let screen = try terminal.waitFor("the answer") { $0.contains("ok, version 2") }
        #expect(!screen.contains("<json>"), "no hint is left behind: \(screen)")
    }

    @Test func withoutADaemonThePromptSaysSoAndConnectsWhenOneAppears() throws {
        let directory = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socket = "\(directory)/milieu.sock"
        let terminal = try Terminal([MilieuRun.binary, "--socket", socket])
        let screen = try terminal.waitFor("the offline prompt") { $0.hasSuffix("milieu (no daemon)>") }
        #expect(screen.contains("no milieud is answering at \(socket)"))
        #expect(screen.contains("milieud --socket \(socket) &"), "it says how to start one")
        let daemon = try Daemon(socketPath: socket)
        defer { daemon.stop() }
        try terminal.waitFor("the connection") { $0.hasSuffix("connected to milieud at \(socket)\nmilieu>") }
        try enter(terminal, "get theme.colorScheme")
        try terminal.waitFor("the answer") { $0.hasSuffix("\"light\"\nmilieu>") }
    }

    @Test func afterTheDaemonRestartsTheREPLReconnectsAndWatchesAgain() throws {
        let first = try Daemon()
        let socket = first.socketPath
        // The second daemon makes its socket in the first one's directory again.
        defer { try? FileManager.default.removeItem(atPath: first.directory) }
        let terminal = try repl(first)
        try enter(terminal, "watch login")
        try terminal.waitFor("w1 watching login")
        first.stop()
        try terminal.waitFor("the offline prompt") { $0.hasSuffix("milieu (no daemon)>") }
        #expect(try terminal.screen().contains("lost milieud at \(socket)"))

        let second = try Daemon(socketPath: socket)
        defer { second.stop() }
        let screen = try terminal.waitFor("the reconnection") { $0.hasSuffix("milieu>") && $0.contains("w1 watching login again") }
        #expect(screen.contains("milieud restarted"))
        try MilieuClient(socketPath: socket).request(GraphSetRequest(path: "login.email", value: "back@example.com"), timeout: 5)
        try terminal.waitFor(#"v2  login.email = "back@example.com""#)
    }

    @Test func afterADaemonWithSavedStateRestartsTheWatchResumesWithWhatItMissed() throws {
        let data = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let first = try Daemon(arguments: ["--data-dir", data])
        let socket = first.socketPath
        defer { try? FileManager.default.removeItem(atPath: first.directory) }
        let terminal = try repl(first)
        try enter(terminal, "watch login")
        try terminal.waitFor("w1 watching login  from version 1")
        first.stop()
        try terminal.waitFor("the offline prompt") { $0.hasSuffix("milieu (no daemon)>") }
        // While the REPL is away, a daemon on the same data directory (another socket) takes a change.
        let elsewhere = try Daemon(arguments: ["--data-dir", data])
        try MilieuClient(socketPath: elsewhere.socketPath).request(
            GraphSetRequest(path: "login.email", value: "meanwhile@example.com"), timeout: 5)
        elsewhere.stop()

        let second = try Daemon(arguments: ["--data-dir", data], socketPath: socket)
        defer { second.stop() }
        let screen = try terminal.waitFor("the replay") { $0.contains(#"v2  login.email = "meanwhile@example.com""#) }
        #expect(screen.contains("w1 resumed from version 1"))
        #expect(!screen.contains("milieud restarted"), "the same store is the same instance: \(screen)")
    }

    /// #30 item 9: a restart that drops a retained view says so as the REPL reconnects, with the
    /// version the daemon is at, and `info` lists the drop.
    @Test func aRestartThatDropsARetainedViewSaysSoOnReconnectingAndInInfo() throws {
        let data = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let scene = "\(data)/form.json"
        try #"{"views": [{"parent": "/App", "name": "Form", "state": {"toggle": false}}]}"#
            .write(toFile: scene, atomically: true, encoding: .utf8)
        let first = try Daemon(arguments: ["--data-dir", data, "--scene", scene])
        let socket = first.socketPath
        defer { try? FileManager.default.removeItem(atPath: first.directory) }
        let terminal = try repl(first)
        try enter(terminal, #"mount {"parent": "/App/Form", "name": "Extra", "retain": true, "state": {"n": 1}}"#)
        try terminal.waitFor("mounted /App/Form/Extra")
        try enter(terminal, "set /App/Form/Extra.n 5")
        try terminal.waitFor("ok, version 3")
        first.stop()
        try terminal.waitFor("the offline prompt") { $0.hasSuffix("milieu (no daemon)>") }

        let second = try Daemon(arguments: ["--data-dir", data], socketPath: socket)  // the default scene: no /App/Form
        defer { second.stop() }
        let screen = try terminal.waitFor("the reconnection") { $0.hasSuffix("milieu>") && $0.contains("connected to milieud") }
        #expect(screen.contains("connected to milieud at \(socket), at version 3"), "\(screen)")
        #expect(screen.contains("milieud could not restore 1 of what it keeps when it started"), "\(screen)")
        #expect(screen.contains("view /App/Form/Extra: UnknownPath"), "\(screen)")
        try enter(terminal, "info")
        // The row is `restored  0 types, …`; the reconnection's message says "it restored" too.
        try terminal.waitFor("info's restored row") { $0.contains("0 types, 0 retained views, 0 values at start; dropped 1:") }
    }

    /// Takes the daemon away from the REPL while `meanwhile` changes the state, and brings it
    /// back where the REPL looks: stopped, started on another socket with the same data directory
    /// for `meanwhile`, stopped, and started again on its socket. With a data directory a daemon
    /// keeps its instance and its history across restarts, so the REPL resumes its watches. (A
    /// line over the daemon's limit made it drop the connection, but milieu no longer sends one.)
    private func restart(
        _ daemon: Daemon, data: String, arguments: [String], terminal: Terminal, meanwhile: (MilieuClient) throws -> Void
    ) throws -> Daemon {
        _ = daemon.terminate()
        try terminal.waitFor("lost milieud")
        let aside = try Daemon(arguments: ["--data-dir", data] + arguments)
        defer { aside.stop() }
        try meanwhile(try MilieuClient(socketPath: aside.socketPath))
        _ = aside.terminate()
        return try Daemon(arguments: ["--data-dir", data] + arguments, socketPath: daemon.socketPath)
    }

    @Test func aResumedWatchShowsWhatChangedWhileDisconnected() throws {
        let data = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let daemon = try Daemon(arguments: ["--data-dir", data])
        defer { daemon.stop() }
        let terminal = try repl(daemon)
        try enter(terminal, "watch login")
        try terminal.waitFor("w1 watching login  from version 1")
        let back = try restart(daemon, data: data, arguments: [], terminal: terminal) { client in
            try client.request(GraphSetRequest(path: "login.email", value: "meanwhile@example.com"), timeout: 5)
        }
        defer { back.stop() }
        let screen = try terminal.waitFor("the replay") { $0.contains(#"v2  login.email = "meanwhile@example.com""#) }
        #expect(screen.contains("w1 resumed from version 1"))
    }

    @Test func aWatchWhoseHistoryWasCompactedSaysSoAndWatchesAgain() throws {
        let data = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let daemon = try Daemon(arguments: ["--data-dir", data, "--history", "1"])
        defer { daemon.stop() }
        let terminal = try repl(daemon)
        try enter(terminal, "watch login")
        try terminal.waitFor("w1 watching login  from version 1")
        let back = try restart(daemon, data: data, arguments: ["--history", "1"], terminal: terminal) { client in
            for email in ["a@example.com", "b@example.com", "c@example.com"] {
                try client.request(GraphSetRequest(path: "login.email", value: .string(email)), timeout: 5)
            }
        }
        defer { back.stop() }
        try terminal.waitFor("the reconnection") { $0.hasSuffix("milieu>") && $0.contains("connected to milieud") }
        #expect(
            try terminal.screen().contains(
                "w1: history before version 4 was compacted, so changes in between are not shown; watching again from now"))
        try MilieuClient(socketPath: back.socketPath).request(GraphSetRequest(path: "login.email", value: "d@example.com"), timeout: 5)
        try terminal.waitFor(#"v5  login.email = "d@example.com""#)
    }

    @Test func aLineThatWritesASecretIsKeptOutOfTheHistory() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let history = "\(daemon.directory)/history"
        let terminal = try repl(daemon, environment: ["MILIEU_HISTFILE": history])
        let typed = [
            #"set login.password "hunter2-typed""#, #"set login.email "kim@example.com""#,
            #"{"jsonrpc": "2.0", "id": 7, "method": "graph/set", "params": {"path": "session.token", "value": "tok-raw-line"}}"#,
            "get login.email",
        ]
        for line in typed {
            try enter(terminal, line)
            try terminal.waitFor("the answer to \(line)") { $0.hasSuffix("\nmilieu>") && $0.contains(String(line.prefix(12))) }
        }
        try terminal.press("C-d")
        try terminal.waitFor("milieu to leave") { _ in (try? terminal.exitStatus()) == 0 }
        let kept = try String(contentsOfFile: history, encoding: .utf8)
        #expect(kept.contains(#"set login.email "kim@example.com""#) && kept.contains("get login.email"))
        #expect(!kept.contains("hunter2-typed") && !kept.contains("tok-raw-line"))
    }

    /// The daemon says what a path reaches: a binding to a secure property, an action whose
    /// parameter goes into one or is compared with one (issue #26, item 10). The REPL guessed from
    /// the last member's name, and kept all of these.
    @Test func aSecretWrittenThroughABindingOrAnActionIsKeptOutOfTheHistory() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let setup = try daemon.connect()
        let vault: JSON = [
            "name": "Vault", "style": "observable",
            "properties": [
                "pin": ["type": "string", "default": "0000", "secure": true], "label": ["type": "string", "default": ""],
                "ok": ["type": "bool", "default": false],
            ],
            "actions": [
                "setPin": ["parameters": [["name": "pin", "type": "string"]], "steps": [["set": "pin", "to": ["arg": "pin"]]]],
                "check": [
                    "parameters": [["name": "guess", "type": "string"]],
                    "steps": [["set": "ok", "to": ["==": [["arg": "guess"], ["get": "pin"]]]]],
                ],
                "rename": ["parameters": [["name": "label", "type": "string"]], "steps": [["set": "label", "to": ["arg": "label"]]]],
            ],
        ]
        _ = try setup.call("schema/register", ["types": [vault]])
        _ = try setup.call(
            "view/mount",
            [
                "parent": "/App", "name": "Q", "retain": true, "bindings": ["pw": ["$parent": "login.password"]],
                "environment": ["login": ["type": "Login"]], "state": ["vault": ["$new": ["type": "Vault"]]],
            ])
        let history = "\(daemon.directory)/history"
        let terminal = try repl(daemon, environment: ["MILIEU_HISTFILE": history])
        let typed = [
            #"set /App/Q.pw "hunter2-through-a-binding""#, #"call /App/Q.vault.setPin "9876""#, #"call /App/Q.vault.check "7777""#,
            #"{"jsonrpc": "2.0", "id": 8, "method": "graph/call", "params": {"path": "/App/Q.vault.setPin", "args": ["5555"]}}"#,
            #"call /App/Q.vault.rename "visible-label""#, "get /App/Q.vault.label",
        ]
        for line in typed {
            try enter(terminal, line)
            try terminal.waitFor("the answer to \(line)") { $0.hasSuffix("\nmilieu>") && $0.contains(String(line.prefix(12))) }
        }
        try terminal.press("C-d")
        try terminal.waitFor("milieu to leave") { _ in (try? terminal.exitStatus()) == 0 }
        let kept = try String(contentsOfFile: history, encoding: .utf8)
        #expect(kept.contains(#"call /App/Q.vault.rename "visible-label""#) && kept.contains("get /App/Q.vault.label"), "\(kept)")
        for secret in ["hunter2-through-a-binding", "9876", "7777", "5555"] { #expect(!kept.contains(secret), "\(secret) in \(kept)") }
    }

    /// Issue #30, item 6: at 80 columns `help` wrapped in the middle of words. It wraps at the
    /// terminal's width, on word boundaries, the continuation indented as its line.
    @Test func helpWrapsAtTheTerminalsWidthBetweenWords() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let terminal = try Terminal([MilieuRun.binary, "--socket", daemon.socketPath], columns: 60)
        try terminal.waitFor("the prompt") { $0.hasSuffix("milieu>") }
        try enter(terminal, "help watch")
        let screen = try terminal.waitFor("the help") { $0.contains("milieu monitor") && $0.hasSuffix("milieu>") }
        let lines = screen.split(separator: "\n").map(String.init)
        #expect(lines.allSatisfy { $0.count <= 60 }, "\(screen)")
        // Every word of the help is whole on the screen: none was cut at the edge.
        let help = try #require(CommandCatalog.help(for: "watch", style: .plain))
        let shown = Set(screen.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init))
        for word in help.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init) where word.count < 60 {
            #expect(shown.contains(word), "\(word) is cut: \(screen)")
        }
    }

    @Test func historyIsKeptAcrossRuns() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let history = "\(daemon.directory)/history"
        let first = try repl(daemon, environment: ["MILIEU_HISTFILE": history])
        try enter(first, "get theme.colorScheme")
        try first.waitFor("the answer") { $0.hasSuffix("\"light\"\nmilieu>") }
        try first.press("C-d")
        try first.waitFor("milieu to leave") { _ in (try? first.exitStatus()) == 0 }
        #expect(try String(contentsOfFile: history, encoding: .utf8).contains("get theme.colorScheme"))

        let second = try repl(daemon, environment: ["MILIEU_HISTFILE": history])
        try second.press("Up")
        try second.waitFor("the previous run's line") { $0.hasSuffix("milieu> get theme.colorScheme") }
    }

    @Test func withoutMilieuHistfileTheHistoryIsKeptUnderXDGStateHome() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let terminal = try repl(daemon, environment: ["XDG_STATE_HOME": daemon.directory])
        try enter(terminal, "types Cart")
        try terminal.waitFor("the answer") { $0.hasSuffix("action objectWillChange.send()\nmilieu>") }
        #expect(try String(contentsOfFile: "\(daemon.directory)/milieu/history", encoding: .utf8).contains("types Cart"))
    }
}
