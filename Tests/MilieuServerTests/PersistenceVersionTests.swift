import Foundation
import MilieuJSON
import MilieuTestSupport
import Testing

/// The versions of objects and views survive a restart as the global version does, and a
/// restore takes no versions: a stale `ifVersion` stays stale, and the history read back from
/// the log reaches as far back after a restart as before it (SPEC §8.1, §11.4, §12.3).
@Suite(.serialized) struct PersistenceVersionTests {
    private func start(_ data: String, _ extra: [String] = []) throws -> Daemon {
        try Daemon(arguments: ["--data-dir", data] + extra)
    }

    /// Stops `daemon` with `signal` (SIGTERM: a clean stop; SIGKILL: what a crash leaves).
    private func stop(_ daemon: Daemon, with signal: Int32) {
        kill(daemon.process.processIdentifier, signal)
        daemon.process.waitUntilExit()
        daemon.stop()
    }

    private func version(_ client: LineClient, _ path: String) throws -> Int? {
        try client.call("graph/get", ["path": .string(path)])["version"]?.intValue
    }

    @Test(arguments: [SIGTERM, SIGKILL])
    func aStaleIfVersionStaysStaleAcrossARestart(signal: Int32) throws {
        let data = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let first = try start(data)
        let b = try first.connect()
        let c = try first.connect()
        _ = try b.call("view/mount", ["parent": "/App", "name": "Doc", "retain": true, "state": ["text": ""]])
        _ = try b.call("graph/set", ["path": "/App/Doc.text", "value": "draft"])
        let read = try #require(try version(c, "/App/Doc"))
        for n in 1...5 { _ = try b.call("graph/set", ["path": "/App/Doc.text", "value": .string("edit \(n)")]) }
        let edited = try #require(try version(b, "/App/Doc"))
        #expect(edited == read + 5)
        stop(first, with: signal)

        let second = try start(data)
        defer { second.stop() }
        let again = try second.connect()
        #expect(try version(again, "/App/Doc") == edited, "the view's version is the one it had")
        let conflict = try again.failure("graph/set", ["path": "/App/Doc.text", "value": "stale", "ifVersion": .int(read)])
        #expect(conflict["data"]?["kind"] == "VersionConflict", "\(conflict.jsonText)")
        #expect(conflict["data"]?["actual"] == .int(edited))
        #expect(try again.call("graph/get", ["path": "/App/Doc.text"]) == "edit 5", "B's acknowledged edits stay")
    }

    @Test(arguments: [SIGTERM, SIGKILL])
    func everyObjectAndViewKeepsItsVersionAcrossARestart(signal: Int32) throws {
        let data = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let first = try start(data)
        let client = try first.connect()
        _ = try client.call(
            "view/mount",
            [
                "parent": "/App", "name": "Shop", "retain": true, "state": ["note": ""],
                "stateObjects": ["cart": ["type": "Cart"], "counter": ["type": "CounterObject"]],
            ])
        _ = try client.call("graph/call", ["path": "/App/Shop.cart.add", "args": ["apple"]])
        _ = try client.call("graph/set", ["path": "theme.colorScheme", "value": "dark"])
        _ = try client.call("graph/set", ["path": "/App/Shop.note", "value": "n"])
        // Writes that leave nothing on disk still change the object's version: a secret, and
        // an announcement with no write.
        _ = try client.call("graph/set", ["path": "login.password", "value": "pw-not-kept"])
        _ = try client.call("graph/call", ["path": "/App/Shop.counter.objectWillChange.send", "args": []])
        _ = try client.call("graph/set", ["path": "login.email", "value": "kim@example.com"])
        _ = try client.call("graph/call", ["path": "session.start", "args": ["kim"]])
        let paths = ["/App", "/App/Shop", "/App/Shop.cart", "/App/Shop.counter", "session", "theme", "login"]
        let before = try paths.map { try version(client, $0) }
        let global = try client.call("initialize")["version"]
        stop(first, with: signal)

        let second = try start(data)
        defer { second.stop() }
        let again = try second.connect()
        #expect(try again.call("initialize")["version"] == global)
        let after = try paths.map { try version(again, $0) }
        for (path, (old, new)) in zip(paths, zip(before, after)) {
            #expect(old == new, "\(path): version \(old.map(String.init) ?? "?") before the restart, \(new.map(String.init) ?? "?") after")
        }
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
