import Foundation
import MilieuJSON
import MilieuTestSupport
import Testing

/// A restore takes no versions: the history read back from the log reaches as far back after a
/// restart as before it (SPEC §8.1, §11.4, §12.3).
@Suite(.serialized) struct PersistenceVersionTests {
    private func start(_ data: String, _ extra: [String] = []) throws -> Daemon {
        try Daemon(arguments: ["--data-dir", data] + extra)
    }

    @Test func aRestoreTakesNoVersionsAndTheHistoryReachesBackAcrossRestarts() throws {
        let data = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let first = try start(data)
        let client = try first.connect()
        let rows = try #require(try client.call("view/mount", ["parent": "/App", "name": "Rows", "retain": true])["version"]?.intValue)
        // More views than four transactions of the restore (1000 each) hold, mounted in four.
        for chunk in 0..<4 {
            let ops: [JSON] = (0..<1500).map { n in
                [
                    "method": "view/mount",
                    "params": [
                        "parent": "/App/Rows", "name": "Row", "id": .int(chunk * 1500 + n), "retain": true, "state": ["n": .int(n)],
                    ],
                ]
            }
            _ = try client.call("graph/transaction", ["ops": .array(ops)])
        }
        let mounted = try #require(try client.call("initialize")["version"]?.intValue)
        first.stop()

        let second = try start(data)
        let again = try second.connect()
        #expect(try again.call("initialize")["version"]?.intValue == mounted, "the restore took no versions")
        let written = try #require(
            try again.call("graph/set", ["path": "/App/Rows/Row[0].n", "value": 7])["version"]?.intValue)
        #expect(written == mounted + 1)
        second.stop()

        let third = try start(data)
        defer { third.stop() }
        let watcher = try third.connect()
        #expect(try watcher.call("initialize")["version"]?.intValue == written)
        // Everything since the first mount is still in the history: nothing was cut at a restart.
        let info = try watcher.call("daemon/info")
        #expect(info["oldestVersion"]?.intValue ?? .max <= rows, "\(info.jsonText)")
        _ = try watcher.call("watch", ["paths": ["/App/Rows/Row[0].n"], "sinceVersion": .int(rows)])
        let replay = try watcher.nextNotification()
        #expect(replay["params"]?["version"] == .int(written), "\(replay.jsonText)")
    }
}
