import Foundation
import MilieuJSON
import MilieuTestSupport
import MilieuTransport
import Testing

/// The daemon as a process: options, start-up on its embedded default, signals, the socket file.
@Suite(.serialized) struct DaemonLifecycleTests {
    @Test func startsOnTheEmbeddedDefaultScene() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        let root = try client.call("view/tree")["root"]
        #expect(root?["provides"]?["observables"] == ["Login": "Login#3", "Session": "Session#1", "Theme": "Theme#2"])
        let hello = try client.call("initialize", ["client": "tests"])
        #expect(hello["protocolVersion"] == "1")
        #expect(hello["version"] == 1)
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func aSignalStopsCleanlyAndRemovesTheSocket(signal: Int32) throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        #expect(try client.call("graph/get", ["path": "theme.colorScheme"]) == "light")
        #expect(daemon.terminate(signal: signal) == 0)
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath))
        #expect(try client.readMessage(timeout: 2) == nil)
        #expect(daemon.stderrText().contains("shutting down"))
    }

    @Test func shutdownAnswersThenStops() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let client = try daemon.connect()
        #expect(try client.call("shutdown") == [:])
        #expect(daemon.waitForExit() == 0)
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath))
    }

    @Test func socketDirectoryIs0700AndSocketIs0600() throws {
        let base = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let daemon = try Daemon(socketPath: "\(base)/run/milieu.sock")
        defer { daemon.stop() }
        try daemon.connect().sendLine("")
        var info = stat()
        #expect(stat("\(base)/run", &info) == 0 && info.st_mode & 0o777 == 0o700)
        #expect(stat("\(base)/run/milieu.sock", &info) == 0 && info.st_mode & 0o777 == 0o600)
    }

    @Test func aStaleSocketIsReplaced() throws {
        let first = try Daemon()
        defer { first.stop() }
        kill(first.process.processIdentifier, SIGKILL)
        first.process.waitUntilExit()
        #expect(FileManager.default.fileExists(atPath: first.socketPath))
        let second = try Daemon(socketPath: first.socketPath)
        defer { second.stop() }
        #expect(try second.connect().call("graph/get", ["path": "login.email"]) == "")
    }

    @Test func aSecondDaemonOnALiveSocketExitsWithAClearMessage() throws {
        let first = try Daemon()
        defer { first.stop() }
        let second = try Daemon(socketPath: first.socketPath, wait: false)
        defer { second.stop() }
        #expect(second.waitForExit() != 0)
        #expect(second.stderrText().contains("already serving"))
        #expect(try first.connect().call("graph/get", ["path": "login.email"]) == "")
    }

    @Test func somethingThatIsNotASocketIsNeverUnlinked() throws {
        let directory = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = "\(directory)/milieu.sock"
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: path))
        let daemon = try Daemon(socketPath: path, wait: false)
        defer { daemon.stop() }
        #expect(daemon.waitForExit() != 0)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "keep me")
    }

    /// The daemon trusts a socket path by the rule the clients use (SPEC §1.2, issue #26 item 14):
    /// it took a directory writable by all without the sticky bit, which the clients refused.
    @Test func aSocketDirectoryWritableByAllWithoutTheStickyBitIsRefused() throws {
        let parent = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let open = "\(parent)/open"
        mkdir(open, 0o700)
        chmod(open, 0o777)
        let refused = try Daemon(socketPath: "\(open)/milieu.sock", wait: false)
        defer { refused.stop() }
        #expect(refused.waitForExit() == 1)
        #expect(
            refused.stderrText().contains(
                "milieud will not listen at \(open)/milieu.sock: \(open) has mode 0777: others may write to it and it is not sticky"))
    }

    /// ... and a directory reached through another user's symbolic link, which that user could point elsewhere.
    @Test(.enabled(if: getuid() == 0, "needs root to give a link to another uid"))
    func aSocketDirectoryReachedThroughAnotherUsersLinkIsRefused() throws {
        let parent = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let mine = "\(parent)/mine"
        mkdir(mine, 0o700)
        let link = "\(parent)/link"
        symlink(mine, link)
        lchown(link, 65534, 65534)
        let refused = try Daemon(socketPath: "\(link)/milieu.sock", wait: false)
        defer { refused.stop() }
        #expect(refused.waitForExit() == 1)
        #expect(refused.stderrText().contains("the symbolic link \(link) belongs to uid 65534"))
    }

    /// A sticky directory writable by all, /tmp itself, may hold the socket (issue #30 item 7): nobody
    /// else can replace a file of ours there, and the clients judge the socket by its owner.
    @Test func aSocketStraightInTmpIsServedAndTrusted() throws {
        let path = "/tmp/milieu-sticky-\(getpid()).sock"
        defer { unlink(path + ".lock") }
        let daemon = try Daemon(socketPath: path)
        defer { daemon.stop() }
        #expect(try daemon.connect().call("graph/get", ["path": "theme.colorScheme"]) == "light")
    }

    @Test func anotherUidIsRefusedEvenWithALoosenedMode() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        guard getuid() == 0 else { throw TestFailure("this test switches uid and needs root") }
        chmod(daemon.directory, 0o777)
        chmod(daemon.socketPath, 0o777)
        // A child process that drops to uid 65534 (nobody) connects and prints what it gets.
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        probe.arguments = [
            "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c",
            "import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.settimeout(5); print(s.makefile().readline(), end='')",
            daemon.socketPath,
        ]
        let output = Pipe()
        probe.standardOutput = output
        try probe.run()
        probe.waitUntilExit()
        let reply = try JSON(parsing: String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
        #expect(reply["error"]?["data"]?["kind"] == "Forbidden")
        #expect(reply["error"]?["code"] == -32011)
        #expect(try daemon.connect().call("graph/get", ["path": "login.email"]) == "")
    }

    /// Runs milieud to its exit: its status and what it wrote (stdout and stderr together).
    /// Runs milieud to its exit; one that is still running after 30 s is killed, so a test that
    /// expected an exit fails instead of hanging.
    func run(_ arguments: [String]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Daemon.binary)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        let guardKill = DispatchWorkItem { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 30, execute: guardKill)
        let output = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guardKill.cancel()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    @Test func helpVersionAndBadOptions() throws {
        let help = try run(["--help"])
        #expect(help.0 == 0 && help.1.contains("--scene"))
        let version = try run(["--version"])
        #expect(version.0 == 0 && version.1.contains("protocol 1"))
        let bad = try run(["--frobnicate"])
        #expect(
            bad.0 == 2 && bad.1 == "milieud: unknown option --frobnicate; milieud --help explains each option\n",
            "one line, and where to look")
        #expect(help.1.hasPrefix("usage: milieud [--socket PATH]"), "--help starts with the synopsis")
        // Every option SPEC §1.7 lists is one --help explains and the synopsis names.
        let spec = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../protocol/SPEC.md"),
            encoding: .utf8)
        let section = spec.components(separatedBy: "### 1.7 Running the daemon")[1].components(separatedBy: "### ")[0]
        let options = section.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("| `--") else { return nil }
            return line.dropFirst(3).split(separator: "`")[0].split(separator: " ").first.map(String.init)
        }
        #expect(options.count == 17)
        for option in options {
            #expect(help.1.contains("  \(option)"), "\(option) in --help")
            #expect(["--help", "--version"].contains(option) || help.1.contains("[\(option)"), "\(option) in the synopsis")
        }
        let badScene = try run(["--scene", "/nonexistent/scene.json"])
        #expect(badScene.0 == 2 && badScene.1.contains("cannot read the scene"))
    }

    @Test func aSceneFileReplacesTheDefault() throws {
        let directory = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let scene: JSON = [
            "types": [["name": "Note", "properties": ["text": ["type": "string", "default": "hi"]]]],
            "app": ["state": ["note": ["$new": ["type": "Note"]]], "provide": ["observables": ["note"]]],
            "views": [["parent": "/App", "name": "Pad", "environment": ["note": ["type": "Note"]], "body": ["{note.text}"]]],
        ]
        try Data(scene.jsonText.utf8).write(to: URL(fileURLWithPath: "\(directory)/scene.json"))
        let daemon = try Daemon(arguments: ["--scene", "\(directory)/scene.json"])
        defer { daemon.stop() }
        let client = try daemon.connect()
        #expect(try client.call("graph/get", ["path": "/App/Pad"])["body"] == ["hi"])
        #expect(try client.failure("graph/get", ["path": "login.email"])["data"]?["kind"] == "UnknownPath")
    }

    /// `--scene FILE.swift`: milieud has `milieu translate` read the source, and serves its views
    /// under the default `/App`, whose objects stay.
    @Test func aSwiftSceneIsTranslatedAndMountedUnderTheDefaultApp() throws {
        let directory = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let source = """
            struct Greeting: View {
                @State private var name = "kim"
                var body: some View { Text("hello \\(name)") }
            }
            #Preview { Greeting() }
            """
        try Data(source.utf8).write(to: URL(fileURLWithPath: "\(directory)/Greeting.swift"))
        let daemon = try Daemon(arguments: ["--scene", "\(directory)/Greeting.swift"])
        defer { daemon.stop() }
        let client = try daemon.connect()
        #expect(try client.call("graph/get", ["path": "/App/Greeting"])["body"] == ["hello kim"])
        #expect(try client.call("graph/get", ["path": "theme.fontScale"]) == .double(1), "the default /App stays")

        try Data("struct Broken: View {\n    var body: some View {\n        Text(\"x\"\n    }\n}\n".utf8)
            .write(to: URL(fileURLWithPath: "\(directory)/Broken.swift"))
        let refused = try run(["--scene", "\(directory)/Broken.swift", "--socket", "\(directory)/b.sock"])
        #expect(refused.0 == 2 && refused.1.contains("Broken.swift:3:"), "\(refused.1)")
    }

    @Test func aClientThatClosesItsSideIsClosedAndItsViewsGo() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let watcher = try daemon.connect()
        _ = try watcher.call("watch", ["views": ["/App"]])
        let leaving = try daemon.connect()
        _ = try leaving.call("view/mount", ["parent": "/App", "name": "Temp"])
        _ = try watcher.nextNotification()
        shutdown(leaving.fd, Int32(SHUT_WR))
        #expect(try leaving.readMessage(timeout: 5) == nil)
        let gone = try watcher.nextNotification()
        #expect(gone["method"] == "view/didUnmount")
        #expect(gone["params"]?["reason"] == "connectionClosed")
    }

    @Test func aClientThatVanishesWithUnreadOutputDoesNotKillTheDaemon() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        for _ in 0..<20 {
            let client = try daemon.connect()
            try client.sendLine(#"{"jsonrpc":"2.0","id":1,"method":"rpc.discover"}"#)
            try client.sendLine(#"{"jsonrpc":"2.0","id":2,"method":"view/tree"}"#)
        }
        #expect(try daemon.connect().call("graph/get", ["path": "theme.fontScale"]) == .double(1))
    }

    /// Each client holds a descriptor: the daemon raises its soft limit to the hard one at start.
    @Test func theDaemonRaisesItsDescriptorLimit() throws {
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        try #require(limit.rlim_max > 2048, "the hard limit leaves no room to raise")
        var lowered = limit
        lowered.rlim_cur = 2048
        setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &lowered)
        let daemon = try Daemon()  // inherits the lowered soft limit
        setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        defer { daemon.stop() }
        let limits = try String(contentsOfFile: "/proc/\(daemon.process.processIdentifier)/limits", encoding: .utf8)
        let files = limits.split(separator: "\n").first { $0.hasPrefix("Max open files") } ?? ""
        let values = files.split(separator: " ", omittingEmptySubsequences: true).dropFirst(3).prefix(2)
        #expect(values.first == values.last && values.first != "2048", "\(files)")
    }
}
