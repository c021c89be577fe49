import MilieuJSON
import MilieuTestSupport
import Testing

/// A big answer is not a slow consumer (SPEC §1.5, §9.11): a result over the output hard limit is
/// refused with ResultTooLarge and the connection goes on; a tree of any size comes in pages.
@Suite(.serialized) struct BigResultTests {
    /// A daemon whose hard output limit is 64 KiB, and a client that mounted `count` views under
    /// /App/Big, each with a 200-byte body: some 130 KB of tree.
    private func daemonWithBigTree(count: Int) throws -> (Daemon, LineClient) {
        let daemon = try Daemon(arguments: ["--output-limit", "65536,32768,30"])
        let client = try daemon.connect()
        _ = try client.call("view/mount", ["parent": "/App", "name": "Big"])
        let body = String(repeating: "b", count: 200)
        for first in stride(from: 0, to: count, by: 50) {
            let ops = (first..<min(first + 50, count)).map { n -> JSON in
                ["method": "view/mount", "params": ["parent": "/App/Big", "name": "Row", "id": .int(n), "body": [.string(body)]]]
            }
            _ = try client.call("graph/transaction", ["ops": .array(ops)])
        }
        return (daemon, client)
    }

    @Test func aTreeOverTheHardLimitIsResultTooLargeAndTheReaderStays() throws {
        let (daemon, client) = try daemonWithBigTree(count: 400)
        defer { daemon.stop() }
        let error = try client.failure("view/tree", ["path": "/App/Big"])
        #expect(error["code"] == -32015)
        #expect(error["data"]?["kind"] == "ResultTooLarge")
        #expect(error["data"]?["limit"] == 65536)
        #expect((error["data"]?["size"]?.intValue ?? 0) > 65536)
        #expect(error["data"]?["hint"]?.stringValue?.contains("limit") == true)
        #expect(try client.call("graph/get", ["path": "/App/Big/Row[399]"])["body"]?.arrayValue?.count == 1)
        #expect(client.notifications.isEmpty, "no connection/dropped")
    }

    @Test func aTreeOverTheHardLimitComesWholeInPages() throws {
        let (daemon, client) = try daemonWithBigTree(count: 400)
        defer { daemon.stop() }
        _ = try client.failure("view/tree", ["path": "/App/Big"])
        var paths: [String] = []
        var page = try client.call("view/tree", ["path": "/App/Big", "limit": 100])
        while true {
            paths += (page["nodes"]?.arrayValue ?? []).compactMap { $0["path"]?.stringValue }
            guard let cursor = page["nextCursor"] else { break }
            page = try client.call("view/tree", ["cursor": cursor, "limit": 100])
        }
        #expect(paths.count == 401)
        #expect(paths.first == "/App/Big")
        #expect(paths.last == "/App/Big/Row[399]")
        #expect(Set(paths).count == 401)
    }
}
