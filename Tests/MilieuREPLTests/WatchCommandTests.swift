import Foundation
import MilieuClient
import MilieuJSON
import MilieuProtocol
import MilieuTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `milieu watch`, the real binary against a real daemon: it streams until told to stop.
@Suite(.serialized)
struct WatchCommandTests {
    /// A running `milieu watch` and the lines it has printed so far.
    final class Watching: Sendable {
        let process = Process()
        private let output = Pipe()
        private let lines = Lines()

        /// The lines read so far, shared with the reading thread.
        final class Lines: Sendable {
            private let storage = Mutex<[String]>([])
            func add(_ line: String) { storage.withLock { $0.append(line) } }
            var all: [String] { storage.withLock { $0 } }
        }

        /// `milieu <command> <arguments>`: `watch`, or `monitor`.
        init(_ arguments: [String], command: String = "watch") throws {
            process.executableURL = URL(fileURLWithPath: MilieuRun.binary)
            process.arguments = [command] + arguments
            process.environment = ChildProcess.environment(removing: ["NO_COLOR", "MILIEU_SOCKET"], adding: ["NO_COLOR": "1"])
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Blocking reads on a thread of its own until end of file: Foundation's
            // readabilityHandler on Linux can crash libdispatch when the pipe closes under it.
            let reading = output.fileHandleForReading.fileDescriptor
            Thread.detachNewThread { [lines] in
                var buffer = [UInt8](repeating: 0, count: 4096)
                var pending = ""
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(reading, $0.baseAddress, $0.count) }
                    if count < 0 && errno == EINTR { continue }
                    guard count > 0 else { return }
                    pending += String(decoding: buffer[..<count], as: UTF8.self)
                    while let end = pending.firstIndex(of: "\n") {
                        let line = String(pending[..<end])
                        pending = String(pending[pending.index(after: end)...])
                        lines.add(line)
                    }
                }
            }
        }

        /// Waits up to `seconds` for `count` lines.
        func waitForLines(_ count: Int, seconds: Int = 5) -> [String] {
            let deadline = ContinuousClock.now + .seconds(seconds)
            while lines.all.count < count && ContinuousClock.now < deadline { usleep(10_000) }
            return lines.all
        }

        /// Sends `signal` and waits for the exit status.
        func stop(_ signal: Int32 = SIGINT) -> Int32 {
            kill(process.processIdentifier, signal)
            process.waitUntilExit()
            return process.terminationStatus
        }
    }

    private func set(_ daemon: Daemon, _ path: String, _ value: JSON) throws {
        try MilieuClient(socketPath: daemon.socketPath).request(GraphSetRequest(path: path, value: value), timeout: 5)
    }

    @Test func itPrintsEachNotificationAsItComesUntilCtrlC() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let watching = try Watching(["--socket", daemon.socketPath, "theme.colorScheme"])
        usleep(300_000)
        try set(daemon, "theme.colorScheme", "dark")
        #expect(watching.waitForLines(1) == [#"v2  theme.colorScheme = "dark""#])
        try set(daemon, "theme.colorScheme", "light")
        #expect(watching.waitForLines(2).last == #"v3  theme.colorScheme = "light""#)
        #expect(watching.stop() == 0, "Ctrl-C ends it cleanly")
    }

    /// 3000 writes in one batch reach the watch as a burst that no read takes whole: lines are
    /// split across reads, and every one is printed (issue #26, item 1: the split trapped).
    @Test func aBurstOfThreeThousandChangesIsPrintedWhole() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let watching = try Watching(["--socket", daemon.socketPath, "theme"])
        let writer = try LineClient(path: daemon.socketPath)
        // The watch is open once a write made after it started is printed.
        for attempt in 0..<50 where watching.waitForLines(1, seconds: 0).isEmpty {
            _ = try writer.call("graph/set", ["path": "theme.accentColor", "value": .string("ready \(attempt)")])
            _ = watching.waitForLines(1, seconds: 1)
        }
        let before = watching.waitForLines(1, seconds: 0).count
        let batch: [JSON] = (0..<3000).map { n in
            [
                "jsonrpc": "2.0", "id": .int(n + 1), "method": "graph/set",
                "params": ["path": "theme.accentColor", "value": .string("c\(n)")],
            ]
        }
        try writer.sendLine(JSON.array(batch).jsonText)
        let lines = watching.waitForLines(before + 3000, seconds: 60)
        #expect(lines.count == before + 3000)
        #expect(lines.last?.hasSuffix(#"theme.accentColor = "c2999""#) == true, "\(lines.suffix(2))")
        #expect(watching.stop() == 0, "still running, and Ctrl-C ends it cleanly")
    }

    @Test func sinceReplaysTheHistoryAndJSONIsOneObjectALine() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        try set(daemon, "theme.accentColor", "red")
        let watching = try Watching(["--socket", daemon.socketPath, "--json", "--since", "1", "theme"])
        let replayed = watching.waitForLines(1)
        let first = try JSON(parsing: replayed.first ?? "")
        #expect(first["method"] == "graph/didChange")
        #expect(first["params"]?["changes"] == [["path": "theme.accentColor", "value": "red"]])
        #expect(watching.stop(SIGTERM) == 0)
    }

    @Test func monitorPrintsEveryCommitWithWhoMadeItAndWhatItDid() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let monitoring = try Watching(["--socket", daemon.socketPath], command: "monitor")
        usleep(300_000)
        let run = try MilieuRun.run([
            "--socket", daemon.socketPath, "-c", "set login.email kim@example.com", "-c",
            #"mount {"parent": "/App", "name": "Shop", "stateObjects": {"cart": {"type": "Cart"}}}"#,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = monitoring.waitForLines(3)
        let pid = lines.first.flatMap { $0.range(of: "pid ") }.map { lines[0][$0.upperBound...].prefix { $0.isNumber } }
        #expect(lines.first?.hasPrefix("v2  ● graph/set login.email  by milieu, connection ") == true, "\(lines)")
        #expect(lines.first?.hasSuffix(": 2 values") == true, "\(lines)")
        #expect(pid.flatMap { Int32($0) } != nil)
        #expect(lines.dropFirst().first?.hasPrefix("v3  ● view/mount /App/Shop  by milieu") == true, "\(lines)")
        #expect(lines.dropFirst().first?.hasSuffix(": 1 mounted, 1 object created") == true, "\(lines)")
        #expect(
            lines.dropFirst(2).first?.hasSuffix(" closed: 1 unmounted, 1 object destroyed") == true,
            "the one-shot mount goes with milieu: \(lines)")
        #expect(monitoring.stop() == 0)
    }

    @Test func monitorTakesNoTargets() throws {
        let run = try MilieuRun.run(["monitor", "login"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("monitor takes no targets"))
    }

    @Test func aWatchWithNoTargetIsAMistake() throws {
        let run = try MilieuRun.run(["watch", "--json"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("watch needs a key path or a view path"))
    }
}
