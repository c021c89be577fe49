import Foundation
import MilieuJSON
import MilieuTestSupport
import Testing

/// A client that stops reading is dropped with a last notice; memory stays bounded and
/// other clients go on being served.
@Suite(.serialized) struct SlowConsumerTests {
    /// Makes every write of theme.accentColor carry about 32 KiB to each watcher.
    /// A client watching `theme.accentColor` with a receive buffer of 4 KiB, which it never reads.
    private func slowReader(of daemon: Daemon) throws -> LineClient {
        let slow = try daemon.connect()
        var small: Int32 = 4096
        setsockopt(slow.fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        _ = try slow.call("watch", ["paths": ["theme.accentColor"]])
        return slow
    }

    private func flood(_ writer: LineClient, times: Int) throws {
        let big = String(repeating: "x", count: 32 << 10)
        for n in 0..<times { _ = try writer.call("graph/set", ["path": "theme.accentColor", "value": .string("\(n)\(big)")]) }
    }

    @Test func aReaderPastTheHardLimitIsDroppedWithANoticeAndOthersAreServed() throws {
        // A short history, so that what is measured is the output buffers, not replayable versions.
        let daemon = try Daemon(arguments: ["--output-limit", "1048576,262144,30", "--history", "8"])
        defer { daemon.stop() }
        let slow = try slowReader(of: daemon)
        let healthy = try daemon.connect()
        _ = try healthy.call("watch", ["paths": ["theme.accentColor"]])
        let writer = try daemon.connect()
        for _ in 0..<10 {
            try flood(writer, times: 20)
            for _ in 0..<20 { _ = try healthy.nextNotification() }
        }
        // 200 notifications of 32 KiB were sent to the slow reader, 6 MiB if all were kept. What
        // reaches it before the notice is what the kernel's buffers held plus at most the hard
        // limit the daemon kept for it: far fewer.
        var received = 0
        var notice: JSON?
        while let message = try slow.readMessage(timeout: 5) {
            if message["method"] == "connection/dropped" { notice = message } else { received += 1 }
        }
        #expect(notice?["params"]?["reason"] == "slowConsumer")
        #expect(received < 80, "\(received) notifications reached the slow reader")
        #expect(daemon.process.isRunning)
        #expect(try healthy.call("graph/get", ["path": "theme.colorScheme"]) == "light")
    }

    @Test func aReaderOverTheSoftLimitForTooLongIsDropped() throws {
        let daemon = try Daemon(arguments: ["--output-limit", "67108864,262144,1"])
        defer { daemon.stop() }
        let slow = try slowReader(of: daemon)
        let writer = try daemon.connect()
        try flood(writer, times: 30)
        // Over the soft limit for longer than its one second: the next write drops the reader.
        usleep(1_200_000)
        try flood(writer, times: 1)
        var last: JSON?
        while let message = try slow.readMessage(timeout: 5) { last = message }
        #expect(last?["method"] == "connection/dropped")
        #expect(last?["params"]?["message"]?.stringValue?.contains("for 1.0 s") == true)
    }

    @Test func aReaderOverTheSoftLimitIsDroppedOnTimeThoughNothingMoreIsQueued() throws {
        let daemon = try Daemon(arguments: ["--output-limit", "67108864,262144,1"])
        defer { daemon.stop() }
        let slow = try slowReader(of: daemon)
        try flood(try daemon.connect(), times: 30)
        // Nothing more is written: only the timer can see the reader stay over the soft limit.
        usleep(2_500_000)
        var last: JSON?
        while let message = try slow.readMessage(timeout: 5) { last = message }
        #expect(last?["method"] == "connection/dropped")
        #expect(last?["params"]?["message"]?.stringValue?.contains("for 1.0 s") == true)
    }

    @Test func connectionsPastTheLimitAreRefused() throws {
        let daemon = try Daemon(arguments: ["--max-connections", "2"])
        defer { daemon.stop() }
        // A round trip on the first connection takes the daemon through its loop after the
        // readiness probe's close, which it then has seen: the probe no longer counts.
        let a = try daemon.connect()
        _ = try a.call("initialize")
        let b = try daemon.connect()
        _ = try b.call("initialize")
        let c = try daemon.connect()
        let refusal = try c.readMessage()
        #expect(refusal?["error"]?["data"]?["kind"] == "LimitExceeded")
        #expect(refusal?["error"]?["data"]?["limit"] == "connections")
        #expect(try c.readMessage() == nil)
    }
}
