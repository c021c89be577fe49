import Foundation
import MilieuJSON
import MilieuTestSupport
import Testing

@testable import MilieuStore

/// A data directory an older milieud wrote — log format 1, whose record CRC leaves the length
/// out, and a snapshot of format 2, which kept no versions of objects and views — is read and
/// continued in the new formats, its damage is told from a torn tail as the new format's is,
/// and a stale `ifVersion` stays stale (SPEC §8.1, §12.3).
@Suite(.serialized) struct PersistenceFormatTests {
    private func u32(_ bytes: [UInt8], _ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }

    private func logFiles(_ data: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: data).filter { $0.hasPrefix("milieu-") && $0.hasSuffix(".log") }.sorted()
            .map { "\(data)/\($0)" }
    }

    /// Rewrites a segment of format 2 as format 1 wrote it: `[length][crc of version and
    /// payload][version][payload]`; returns where each record starts.
    @discardableResult
    private func rewriteInFormat1(_ path: String) throws -> [Int] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(u32(bytes, 8) == 2)
        var old = Array(bytes[0..<32])
        old[8] = 1
        var starts: [Int] = []
        var offset = 32
        while offset + 20 <= bytes.count {
            let length = u32(bytes, offset)
            starts.append(old.count)
            var record = Array(bytes[offset..<offset + 4]) + [0, 0, 0, 0] + Array(bytes[offset + 8..<offset + 16])
            record += bytes[offset + 20..<offset + 20 + length]
            LogFormat.store(LogFormat.crc(record, from: 8, count: length + 8), in: &record, at: 4)
            old += record
            offset += 20 + length
        }
        try Data(old).write(to: URL(fileURLWithPath: path))
        return starts
    }

    /// A data directory with `/App/Notes.text` written `count` times, its log in format 1.
    private func formerStore(writes count: Int) throws -> (data: String, version: Int, starts: [Int]) {
        let data = try Daemon.makeDirectory()
        let daemon = try Daemon(arguments: ["--data-dir", data])
        let client = try daemon.connect()
        _ = try client.call("view/mount", ["parent": "/App", "name": "Notes", "retain": true, "state": ["text": ""]])
        for n in 1...count { _ = try client.call("graph/set", ["path": "/App/Notes.text", "value": .string("note \(n)")]) }
        let version = try #require(try client.call("initialize")["version"]?.intValue)
        // Killed, so that the records after the last fold are only in the log.
        kill(daemon.process.processIdentifier, SIGKILL)
        daemon.process.waitUntilExit()
        daemon.stop()
        let files = try logFiles(data)
        #expect(files.count == 1)
        return (data, version, try rewriteInFormat1(try #require(files.first)))
    }

    @Test func aLogOfFormat1IsReadAndContinuedInFormat2() throws {
        let (data, version, _) = try formerStore(writes: 20)
        defer { try? FileManager.default.removeItem(atPath: data) }
        let daemon = try Daemon(arguments: ["--data-dir", data])
        let client = try daemon.connect()
        #expect(try client.call("initialize")["version"]?.intValue == version)
        #expect(try client.call("graph/get", ["path": "/App/Notes.text"]) == "note 20")
        _ = try client.call("watch", ["paths": ["/App/Notes.text"], "sinceVersion": .int(version - 1)])
        #expect(try client.nextNotification()["params"]?["changes"] == [["path": "/App/Notes.text", "value": "note 20"]])
        _ = try client.call("graph/set", ["path": "/App/Notes.text", "value": "next"])
        daemon.stop()
        let files = try logFiles(data)
        #expect(files.count == 2, "the new records go to a new file: \(files)")
        let newest = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try #require(files.last))))
        #expect(u32(newest, 8) == 2)

        let again = try Daemon(arguments: ["--data-dir", data])
        defer { again.stop() }
        #expect(try again.connect().call("graph/get", ["path": "/App/Notes.text"]) == "next")
    }

    @Test func aSnapshotOfFormat2IsUpgradedAndAStaleIfVersionStaysStale() throws {
        let data = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let daemon = try Daemon(arguments: ["--data-dir", data])
        let client = try daemon.connect()
        _ = try client.call("view/mount", ["parent": "/App", "name": "Doc", "retain": true, "state": ["text": ""]])
        _ = try client.call("graph/set", ["path": "/App/Doc.text", "value": "draft"])
        let read = try #require(try client.call("graph/get", ["path": "/App/Doc"])["version"]?.intValue)
        for n in 1...5 { _ = try client.call("graph/set", ["path": "/App/Doc.text", "value": .string("edit \(n)")]) }
        daemon.stop()
        for file in try logFiles(data) { try rewriteInFormat1(file) }
        _ = try ScriptRunner.sqlite("\(data)/milieu.db", "DROP TABLE versions; UPDATE meta SET value = '2' WHERE key = 'format'")

        var upgraded = try Daemon(arguments: ["--data-dir", data])
        var again = try upgraded.connect()
        let conflict = try again.failure("graph/set", ["path": "/App/Doc.text", "value": "stale", "ifVersion": .int(read)])
        #expect(conflict["data"]?["kind"] == "VersionConflict", "\(conflict.jsonText)")
        let version = try again.call("graph/get", ["path": "/App/Doc"])["version"]
        _ = try again.call("graph/set", ["path": "theme.colorScheme", "value": "dark"])
        upgraded.stop()
        // The version the upgrade gave is kept from then on, as any other.
        upgraded = try Daemon(arguments: ["--data-dir", data])
        defer { upgraded.stop() }
        again = try upgraded.connect()
        #expect(try again.call("graph/get", ["path": "/App/Doc"])["version"] == version)
        #expect(try again.call("graph/get", ["path": "/App/Doc.text"]) == "edit 5")
    }

    @Test func aDamagedLengthInALogOfFormat1BeforeWholeRecordsIsDamage() throws {
        let (data, version, starts) = try formerStore(writes: 40)
        defer { try? FileManager.default.removeItem(atPath: data) }
        let file = try #require(try logFiles(data).first)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        bytes[starts[starts.count / 2] + 3] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: file))
        let daemon = try Daemon(arguments: ["--data-dir", data], wait: false)
        defer { daemon.stop() }
        #expect(daemon.waitForExit() == 1)
        let log = daemon.stderrText()
        #expect(log.contains(file) && log.contains("--recover") && log.contains("–\(version) ("), "\(log)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == bytes, "a refused start changes nothing")
    }
}
