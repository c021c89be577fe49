import Foundation
import MilieuJSON
import MilieuTestSupport
import Testing

/// A client that stops reading is dropped with a last notice; memory stays bounded and
/// other clients go on being served.
@Suite(.serialized) struct SlowConsumerTests {
    /// Makes every write of theme.accentColor carry about 32 KiB to each watcher.
    private func flood(_ writer: LineClient, times: Int) throws {
        let big = String(repeating: "x", count: 32 << 10)
        for n in 0..<times { _ = try writer.call("graph/set", ["path": "theme.accentColor", "value": .string("\(n)\(big)")]) }
    }

    private func rss(_ pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) * 1024
    }

    @Test func aReaderPastTheHardLimitIsDroppedWithANoticeAndOthersAreServed() throws {
        // A short history, so that what is measured is the output buffers, not replayable versions.
        let daemon = try Daemon(arguments: ["--output-limit", "1048576,262144,30", "--history", "8"])
        defer { daemon.stop() }
        let slow = try daemon.connect()
        var small: Int32 = 4096
        setsockopt(slow.fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        _ = try slow.call("watch", ["paths": ["theme.accentColor"]])
        let healthy = try daemon.connect()
        _ = try healthy.call("watch", ["paths": ["theme.accentColor"]])
        let writer = try daemon.connect()
        let before = try rss(daemon.process.processIdentifier)
        for _ in 0..<10 {
            try flood(writer, times: 20)
            for _ in 0..<20 { _ = try healthy.nextNotification() }
        }
        let after = try rss(daemon.process.processIdentifier)
        // 200 notifications of 32 KiB were sent to the slow reader: 6 MiB if it were kept.
        #expect(after - before < 4 << 20, "RSS grew by \(after - before) bytes")
        var sawNotice = false
        while let message = try slow.readMessage(timeout: 5) {
            if message["method"] == "connection/dropped" {
                sawNotice = true
                #expect(message["params"]?["reason"] == "slowConsumer")
            }
        }
        #expect(sawNotice)
        #expect(daemon.process.isRunning)
        #expect(try healthy.call("graph/get", ["path": "theme.colorScheme"]) == "light")
    }

    @Test func aReaderOverTheSoftLimitForTooLongIsDropped() throws {
        let daemon = try Daemon(arguments: ["--output-limit", "67108864,262144,1"])
        defer { daemon.stop() }
        let slow = try daemon.connect()
        var small: Int32 = 4096
        setsockopt(slow.fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        _ = try slow.call("watch", ["paths": ["theme.accentColor"]])
        let writer = try daemon.connect()
        try flood(writer, times: 30)
        usleep(1_200_000)
        try flood(writer, times: 1)
        var last: JSON?
        while let message = try slow.readMessage(timeout: 5) { last = message }
        #expect(last?["method"] == "connection/dropped")
        #expect(last?["params"]?["message"]?.stringValue?.contains("for 1.0 s") == true)
    }

    @Test func connectionsPastTheLimitAreRefused() throws {
        let daemon = try Daemon(arguments: ["--max-connections", "2"])
        defer { daemon.stop() }
        usleep(100_000)  // let the daemon see the readiness probe's connection close
        let a = try daemon.connect()
        let b = try daemon.connect()
        _ = try a.call("initialize")
        _ = try b.call("initialize")
        let c = try daemon.connect()
        let refusal = try c.readMessage()
        #expect(refusal?["error"]?["data"]?["kind"] == "LimitExceeded")
        #expect(refusal?["error"]?["data"]?["limit"] == "connections")
        #expect(try c.readMessage() == nil)
    }
}
