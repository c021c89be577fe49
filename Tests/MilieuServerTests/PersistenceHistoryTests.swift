import Foundation
import MilieuJSON
import MilieuTestSupport
import Testing

/// Versions and watch history across restarts: versions continue, the log's history serves
/// `watch {sinceVersion}` after a restart, and kill -9 under pipelined load loses no
/// acknowledged write (SPEC §8.1, §11.4, §12.3).
@Suite(.serialized) struct PersistenceHistoryTests {
    private func start(_ data: String, _ extra: [String] = []) throws -> Daemon {
        try Daemon(arguments: ["--data-dir", data] + extra)
    }

    private func killHard(_ daemon: Daemon) {
        kill(daemon.process.processIdentifier, SIGKILL)
        daemon.process.waitUntilExit()
        daemon.stop()
    }

    @Test func versionsContinueAcrossARestart() throws {
        let data = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let first = try start(data)
        let client = try first.connect()
        for scheme in ["dark", "light", "dark"] {
            _ = try client.call("graph/set", ["path": "theme.colorScheme", "value": .string(scheme)])
        }
        let before = try #require(try client.call("graph/set", ["path": "theme.colorScheme", "value": "light"])["version"]?.intValue)
        killHard(first)
        let second = try start(data)
        defer { second.stop() }
        let again = try second.connect()
        #expect(try again.call("initialize")["version"]?.intValue == before)
        let after = try #require(try again.call("graph/set", ["path": "theme.colorScheme", "value": "dark"])["version"]?.intValue)
        #expect(after == before + 1)
    }

    @Test func aWatchResumesAcrossARestartWithWhatItMissed() throws {
        let data = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let first = try start(data)
        let watcher = try first.connect()
        let hello = try watcher.call("initialize")
        let seen = try #require(try watcher.call("watch", ["paths": ["theme.colorScheme"]])["version"]?.intValue)
        let writer = try first.connect()
        let missed = try #require(try writer.call("graph/set", ["path": "theme.colorScheme", "value": "dark"])["version"]?.intValue)
        killHard(first)

        let second = try start(data)
        defer { second.stop() }
        let resumed = try second.connect()
        #expect(try resumed.call("initialize")["instance"] == hello["instance"], "the same store is the same instance")
        _ = try resumed.call("watch", ["paths": ["theme.colorScheme"], "sinceVersion": .int(seen)])
        let replay = try resumed.nextNotification()
        #expect(replay["params"]?["version"] == .int(missed))
        #expect(replay["params"]?["changes"] == [["path": "theme.colorScheme", "value": "dark"]])
        #expect(try resumed.isQuiet(for: 0.2))
    }

    @Test func aResumeFromBeyondTheRetentionIsCompacted() throws {
        let data = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let first = try start(data, ["--history", "3"])
        let client = try first.connect()
        var versions: [Int] = []
        for n in 0..<8 {
            let value: JSON = n % 2 == 0 ? "dark" : "light"
            versions.append(try #require(try client.call("graph/set", ["path": "theme.colorScheme", "value": value])["version"]?.intValue))
        }
        first.stop()
        let second = try start(data, ["--history", "3"])
        defer { second.stop() }
        let again = try second.connect()
        let error = try again.failure("watch", ["paths": ["theme.colorScheme"], "sinceVersion": .int(versions[0])])
        #expect(error["data"]?["kind"] == "Compacted")
        #expect(error["data"]?["oldest"] == .int(versions[5]))
        _ = try again.call("watch", ["paths": ["theme.colorScheme"], "sinceVersion": .int(versions[4])])
        #expect(try (0..<3).map { _ in try again.nextNotification()["params"]?["version"] } == versions[5...].map { .int($0) })
    }

    /// A power loss can leave the snapshot synced past the log (the fold's checkpoint syncs on
    /// its own schedule): the state comes back, but the log's history stops short of it. A watch
    /// resuming from before the gap is told `Compacted`, not replayed the history up to the gap
    /// and then the versions after it, as if none were missing between; one resuming from the
    /// current version is served, and later versions reach it.
    @Test func aHistoryThatStopsShortOfTheStateIsNotResumedAcrossTheGap() throws {
        let data = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let first = try start(data)
        let set = try first.connect().call("graph/set", ["path": "theme.colorScheme", "value": "dark"])
        let before = try #require(set["version"]?.intValue)
        first.stop()
        let second = try start(data)
        let client = try second.connect()
        _ = try client.call("graph/set", ["path": "theme.colorScheme", "value": "light"])
        let last = try #require(try client.call("graph/set", ["path": "theme.colorScheme", "value": "dark"])["version"]?.intValue)
        second.stop()
        // The second start's segment, as a power loss leaves it: its records never reached the disk.
        let segment = "\(data)/milieu-\(String(repeating: "0", count: 20 - String(before + 1).count))\(before + 1).log"
        #expect(truncate(segment, 32) == 0, "\(segment)")

        let third = try start(data)
        defer { third.stop() }
        let again = try third.connect()
        #expect(try again.call("initialize")["version"] == .int(last), "the snapshot holds the state")
        let error = try again.failure("watch", ["paths": ["theme.colorScheme"], "sinceVersion": .int(before - 1)])
        #expect(error["data"]?["kind"] == "Compacted", "\(error)")
        #expect(error["data"]?["oldest"] == .int(last))
        _ = try again.call("watch", ["paths": ["theme.colorScheme"], "sinceVersion": .int(last)])
        _ = try again.call("graph/set", ["path": "theme.colorScheme", "value": "light"])
        #expect(try again.nextNotification()["params"]?["version"] == .int(last + 1))
    }

    /// The history in memory is bounded by the bytes of its commits' log records too
    /// (`--history-bytes`), as each is published: a few records of some 100 bytes fit in 400.
    @Test func theHistoryInMemoryIsBoundedByItsRecordsBytes() throws {
        let data = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let daemon = try start(data, ["--history-bytes", "400"])
        defer { daemon.stop() }
        let client = try daemon.connect()
        var versions: [Int] = []
        for n in 0..<8 {
            let value: JSON = n % 2 == 0 ? "dark" : "light"
            versions.append(try #require(try client.call("graph/set", ["path": "theme.colorScheme", "value": value])["version"]?.intValue))
        }
        let error = try client.failure("watch", ["paths": ["theme.colorScheme"], "sinceVersion": .int(versions[0])])
        #expect(error["data"]?["kind"] == "Compacted")
        let oldest = try #require(error["data"]?["oldest"]?.intValue)
        #expect(oldest > versions[2] && oldest <= versions[7], "kept from version \(oldest) of \(versions)")
    }

    @Test func killNineUnderPipelinedLoadLosesNoAcknowledgedWrite() throws {
        let data = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let first = try start(data)
        let writers = try (0..<4).map { index -> LineClient in
            let client = try first.connect()
            _ = try client.call("view/mount", ["parent": "/App", "name": .string("P\(index)"), "retain": true, "state": ["n": 0]])
            return client
        }
        let pid = first.process.processIdentifier
        let killer = Thread {
            usleep(400_000)
            kill(pid, SIGKILL)
        }
        killer.start()
        var acknowledged = [Int](repeating: 0, count: writers.count)
        var next = 1
        var running = true
        while running {
            // 16 requests in flight on each connection, answered in order.
            for (index, writer) in writers.enumerated() {
                let lines = (next..<next + 16).map { n in
                    #"{"jsonrpc":"2.0","id":\#(n),"method":"graph/set","params":{"path":"/App/P\#(index).n","value":\#(n)}}"# + "\n"
                }
                if (try? writer.sendRaw(Array(lines.joined().utf8))) == nil { running = false }
            }
            for (index, writer) in writers.enumerated() where running {
                for _ in 0..<16 {
                    guard let reply = try? writer.readMessage(timeout: 2), let id = reply["id"]?.intValue else {
                        running = false
                        break
                    }
                    if reply["result"] != nil { acknowledged[index] = max(acknowledged[index], id) }
                }
            }
            next += 16
        }
        first.process.waitUntilExit()
        first.stop()
        #expect(acknowledged.allSatisfy { $0 > 16 }, "the load ran: \(acknowledged)")

        let second = try start(data)
        defer { second.stop() }
        let reader = try second.connect()
        for (index, count) in acknowledged.enumerated() {
            let kept = try #require(try reader.call("graph/get", ["path": .string("/App/P\(index).n")]).intValue)
            #expect(kept >= count, "P\(index): acknowledged \(count), kept \(kept)")
        }
    }
}
