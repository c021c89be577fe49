import Foundation
import MilieuJSON
import MilieuTestSupport
import Testing

/// The daemon under pressure on its descriptors and memory: a client over a limit is told which
/// limit and closed, and everyone else goes on being served (issue #15 items 5 and 6).
@Suite(.serialized) struct ResourceLimitTests {
    /// Lowers a running daemon's descriptor limit to its lowest free descriptor number, so
    /// that the next descriptor it opens is over the limit (those it holds stay open).
    private func exhaustDescriptors(of daemon: Daemon) throws {
        let pid = daemon.process.processIdentifier
        let numbers = Set(try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").compactMap { Int($0) })
        let lowestFree = (0...).first { !numbers.contains($0) } ?? 0
        // prlimit(1) (util-linux): Glibc's module does not expose prlimit(2).
        let (status, _, errors) = try ScriptRunner.run(["prlimit", "--pid", "\(pid)", "--nofile=\(lowestFree):\(lowestFree)"])
        try #require(status == 0, "prlimit failed: \(errors)")
    }

    @Test func aClientPastTheDescriptorLimitIsToldAndClosed() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let first = try daemon.connect()
        #expect(try first.call("graph/get", ["path": "theme.fontScale"]) == .double(1))
        try exhaustDescriptors(of: daemon)
        for _ in 0..<3 {
            let refused = try daemon.connect()
            let error = try #require(try refused.readMessage(timeout: 5)?["error"], "a refused client is told why")
            #expect(error["data"]?["kind"] == "LimitExceeded")
            #expect(error["data"]?["limit"] == "descriptors")
            #expect(try refused.readMessage(timeout: 5) == nil, "and closed")
        }
        #expect(try first.call("graph/get", ["path": "theme.fontScale"]) == .double(1))
    }

    /// Every limit an option sets may be as large as a whole number goes: none is turned into a
    /// bound that overflows (issue #26, item 1: `maxLineBytes + 1` trapped on a split line, and
    /// `--output-limit` trapped converting its bytes).
    @Test func limitsAsLargeAsAnIntStillServeALineSplitAcrossWrites() throws {
        let largest = "\(Int.max)"
        let daemon = try Daemon(arguments: [
            "--max-line", largest, "--input-budget", largest, "--output-budget", largest, "--history-bytes", largest,
            "--line-timeout", largest, "--output-limit", "\(largest),\(largest),1e300",
        ])
        defer { daemon.stop() }
        let client = try daemon.connect()
        try client.sendRaw(Array(#"{"jsonrpc":"2.0","id":1,"method":"graph/get","#.utf8))
        usleep(100_000)
        try client.sendRaw(Array(#""params":{"path":"theme.fontScale"}}"#.utf8) + [10])
        #expect(try client.readMessage(timeout: 5)?["result"] == .double(1))
    }

    @Test func aLineLeftUnfinishedPastTheTimeoutGetsAnErrorAndACLose() throws {
        let daemon = try Daemon(arguments: ["--line-timeout", "1"])
        defer { daemon.stop() }
        let idle = try daemon.connect()
        try idle.sendRaw(Array(#"{"jsonrpc":"2.0","id":1,"method":"graph/get","#.utf8))
        let error = try #require(try idle.readMessage(timeout: 10)?["error"], "told why")
        #expect(error["data"]?["kind"] == "LimitExceeded")
        #expect(error["data"]?["limit"] == "lineSeconds")
        #expect(error["data"]?["max"] == 1)
        #expect(try idle.readMessage(timeout: 5) == nil, "and closed")
        #expect(try daemon.connect().call("graph/get", ["path": "theme.fontScale"]) == .double(1))
    }

    @Test func pastTheInputBudgetTheLargestUnfinishedLineIsRefused() throws {
        let daemon = try Daemon(arguments: ["--input-budget", "1048576"])
        defer { daemon.stop() }
        let chunk =
            Array(#"{"jsonrpc":"2.0","id":1,"method":"graph/get","params":{"path":""#.utf8)
            + Array(repeating: UInt8(ascii: "a"), count: 300_000)
        let small = try daemon.connect()
        try small.sendRaw(chunk)
        let large = try daemon.connect()
        try large.sendRaw(chunk + chunk)
        // Held so far: 0.9 MB of the 1 MiB. Another 300 kB passes the budget: the largest line goes.
        let third = try daemon.connect()
        try third.sendRaw(chunk)
        let error = try #require(try large.readMessage(timeout: 5)?["error"], "the largest holder is told why")
        #expect(error["data"]?["limit"] == "bufferedInput")
        #expect(try large.readMessage(timeout: 5) == nil, "and closed")
        // The others' lines still fit, and are answered once they end, as any line is.
        try small.sendRaw(Array(#""}}"#.utf8) + [10])
        #expect(try small.readMessage()?["id"] == 1)
    }
}
