import Foundation
import MilieuJSON
import MilieuTestSupport
import Testing

@testable import MilieuStore

/// A data directory an older milieud wrote — log format 1, whose record CRC leaves the length
/// out, log format 2, whose history repeats the values its writes carry, and a snapshot of
/// format 2, which kept no versions of objects and views — is read and continued in the new
/// formats, its damage is told from a torn tail as the new format's is, and a stale
/// `ifVersion` stays stale (SPEC §8.1, §12.3).
@Suite(.serialized) struct PersistenceFormatTests {
    private func u32(_ bytes: [UInt8], _ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }

    private func logFiles(_ data: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: data).filter { $0.hasPrefix("milieu-") && $0.hasSuffix(".log") }.sorted()
            .map { "\(data)/\($0)" }
    }

    /// Rewrites a segment of format 3 as format 2 wrote it: framed alike, but each change of the
    /// history that names a write of its record (`["P",object,k]`, `["S",k]`) written
    /// out whole (`["p",object,type,property,value]`, `["s",view,variable,value]`).
    private func rewriteInFormat2(_ path: String) throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(u32(bytes, 8) == 3)
        var old = JSONWriter()
        old.writeRaw(Array(bytes[0..<32]))
        var offset = 32
        var named = 0
        while offset + 20 <= bytes.count {
            let length = u32(bytes, offset)
            let version = Int(LogFormat.load(UInt64.self, bytes, at: offset + 8))
            let payload = Array(bytes[offset + 20..<offset + 20 + length])
            let writesEnd = 4 + u32(payload, 0)
            let writes = try #require(try JSON(parsing: payload[4..<writesEnd]).arrayValue)
            let history = try #require(try JSON(parsing: payload[writesEnd...]).arrayValue).map { entry -> JSON in
                guard let fields = entry.arrayValue, let tag = fields.first?.stringValue, tag == "P" || tag == "S",
                    let write = fields.last?.intValue.flatMap({ writes[$0].arrayValue })
                else { return entry }
                named += 1
                // The write is ["s", view, name, value].
                guard tag == "P" else { return .array(["s", write[1], write[2], write[3]]) }
                let property = String(write[2].stringValue?.split(separator: ".").last ?? "")
                let type = String(fields[1].stringValue?.split(separator: "#").first ?? "")
                return .array(["p", fields[1], .string(type), .string(property), write[3]])
            }
            LogFormat.appendRecord(
                version: version, to: &old, writes: { $0.write(.array(writes)) }, history: { $0.write(.array(history)) })
            offset += 20 + length
        }
        #expect(named > 0, "the log named writes: it is format 3's")
        var rewritten = old.bytes
        rewritten[8] = 2
        try Data(rewritten).write(to: URL(fileURLWithPath: path))
    }

    /// Rewrites a segment of format 3 as format 1 wrote it: `[length][crc of version and
    /// payload][version][payload]`, the history as format 2's; returns where each record starts.
    @discardableResult
    private func rewriteInFormat1(_ path: String) throws -> [Int] {
        try rewriteInFormat2(path)
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

    /// A data directory with `/App/Notes.text` and `theme.accentColor` written `count` times
    /// each, its log in format 1 (or 2).
    private func formerStore(writes count: Int, format: Int = 1) throws -> (data: String, version: Int, starts: [Int]) {
        let data = try Daemon.makeDirectory()
        let daemon = try Daemon(arguments: ["--data-dir", data])
        let client = try daemon.connect()
        _ = try client.call("view/mount", ["parent": "/App", "name": "Notes", "retain": true, "state": ["text": ""]])
        for n in 1...count {
            _ = try client.call("graph/set", ["path": "/App/Notes.text", "value": .string("note \(n)")])
            _ = try client.call("graph/set", ["path": "theme.accentColor", "value": .string("colour \(n)")])
        }
        let version = try #require(try client.call("initialize")["version"]?.intValue)
        // Killed, so that the records after the last fold are only in the log.
        kill(daemon.process.processIdentifier, SIGKILL)
        daemon.process.waitUntilExit()
        daemon.stop()
        let files = try logFiles(data)
        #expect(files.count == 1)
        let file = try #require(files.first)
        guard format == 1 else {
            try rewriteInFormat2(file)
            return (data, version, [])
        }
        return (data, version, try rewriteInFormat1(file))
    }

    @Test func aLogOfFormat1IsReadAndContinuedInTheNewFormat() throws {
        let (data, version, _) = try formerStore(writes: 20)
        defer { try? FileManager.default.removeItem(atPath: data) }
        let daemon = try Daemon(arguments: ["--data-dir", data])
        let client = try daemon.connect()
        #expect(try client.call("initialize")["version"]?.intValue == version)
        #expect(try client.call("graph/get", ["path": "/App/Notes.text"]) == "note 20")
        _ = try client.call("watch", ["paths": ["/App/Notes.text"], "sinceVersion": .int(version - 2)])
        #expect(try client.nextNotification()["params"]?["changes"] == [["path": "/App/Notes.text", "value": "note 20"]])
        _ = try client.call("graph/set", ["path": "/App/Notes.text", "value": "next"])
        daemon.stop()
        let files = try logFiles(data)
        #expect(files.count == 2, "the new records go to a new file: \(files)")
        let newest = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try #require(files.last))))
        #expect(u32(newest, 8) == Int(LogFormat.format))

        let again = try Daemon(arguments: ["--data-dir", data])
        defer { again.stop() }
        #expect(try again.connect().call("graph/get", ["path": "/App/Notes.text"]) == "next")
    }

    /// A log of format 2, continued in format 3: a watch resumed from before both reads the
    /// changes of each, the values format 2 repeated and those format 3 names in its writes.
    @Test func aWatchResumesAcrossALogOfFormat2AndTheNewFormat() throws {
        let (data, version, _) = try formerStore(writes: 3, format: 2)
        defer { try? FileManager.default.removeItem(atPath: data) }
        var daemon = try Daemon(arguments: ["--data-dir", data])
        _ = try daemon.connect().call("graph/set", ["path": "theme.accentColor", "value": "after"])
        daemon.stop()
        let files = try logFiles(data)
        #expect(try files.map { u32([UInt8](try Data(contentsOf: URL(fileURLWithPath: $0))), 8) } == [2, 3], "\(files)")

        daemon = try Daemon(arguments: ["--data-dir", data])
        defer { daemon.stop() }
        let client = try daemon.connect()
        _ = try client.call("watch", ["paths": ["theme.accentColor", "/App/Notes.text"], "sinceVersion": .int(version - 2)])
        var changes: [JSON] = []
        for _ in 0..<3 { changes += try client.nextNotification()["params"]?["changes"]?.arrayValue ?? [] }
        #expect(
            changes == [
                ["path": "/App/Notes.text", "value": "note 3"], ["path": "theme.accentColor", "value": "colour 3"],
                ["path": "theme.accentColor", "value": "after"],
            ])
    }

    /// A segment of a log format newer than this build's is refused, named, and left as it is,
    /// `--recover` or not: it is not damage, and recovering would drop what it holds. What an
    /// older milieud does with this build's format 3, if it is one that knows to.
    @Test(arguments: [false, true]) func aLogOfANewerFormatIsRefused(recover: Bool) throws {
        let (data, _, _) = try formerStore(writes: 1, format: 2)
        defer { try? FileManager.default.removeItem(atPath: data) }
        let file = try #require(try logFiles(data).first)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        bytes[8] = UInt8(LogFormat.format + 1)
        try bytes.write(to: URL(fileURLWithPath: file))
        let daemon = try Daemon(arguments: ["--data-dir", data] + (recover ? ["--recover"] : []), wait: false)
        defer { daemon.stop() }
        #expect(daemon.waitForExit() == 1)
        let log = daemon.stderrText()
        #expect(log.contains(file) && log.contains("newer milieud (log format \(LogFormat.format + 1);"), "\(log)")
        #expect(try logFiles(data) == [file])
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == bytes, "a refused start changes nothing")
    }

    /// A data directory with two segments, the first with a damaged record in its middle: its
    /// files, and the first's bytes as damaged.
    private func twoSegmentsTheFirstDamaged(_ data: String) throws -> (older: String, newer: String, damaged: Data) {
        for round in 0..<2 {
            let daemon = try Daemon(arguments: ["--data-dir", data])
            let client = try daemon.connect()
            for n in 0..<5 { _ = try client.call("graph/set", ["path": "theme.accentColor", "value": .string("c\(round)\(n)")]) }
            daemon.stop()
        }
        let files = try logFiles(data)
        try #require(files.count == 2, "each start begins a segment: \(files)")
        let (older, newer) = (files[0], files[1])
        var damaged = try Data(contentsOf: URL(fileURLWithPath: older))
        let records = segmentRecords(damaged)
        damaged[records[records.count / 2].offset + 25] ^= 0x01
        try damaged.write(to: URL(fileURLWithPath: older))
        return (older, newer, damaged)
    }

    /// A newer segment after a damaged one: refused for the newer format before the damage is
    /// looked at, so `--recover` drops neither.
    @Test func aLogOfANewerFormatAfterDamageIsRefusedAndKept() throws {
        let data = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let (older, newer, damaged) = try twoSegmentsTheFirstDamaged(data)
        let files = [older, newer]
        var later = try Data(contentsOf: URL(fileURLWithPath: newer))
        later[8] = UInt8(LogFormat.format + 1)
        try later.write(to: URL(fileURLWithPath: newer))

        let daemon = try Daemon(arguments: ["--data-dir", data, "--recover"], wait: false)
        defer { daemon.stop() }
        #expect(daemon.waitForExit() == 1)
        #expect(daemon.stderrText().contains("\(newer): it was written by a newer milieud"), "\(daemon.stderrText())")
        #expect(try logFiles(data) == files)
        #expect(try Data(contentsOf: URL(fileURLWithPath: older)) == damaged)
        #expect(try Data(contentsOf: URL(fileURLWithPath: newer)) == later)
    }

    /// A segment that cannot be opened (a symbolic link, never followed) after a damaged one
    /// stops the start, `--recover` or not: it is never taken for what the damage drops.
    @Test func aSegmentThatCannotBeOpenedAfterDamageStopsTheStart() throws {
        let data = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let (_, newer, _) = try twoSegmentsTheFirstDamaged(data)
        try FileManager.default.moveItem(atPath: newer, toPath: "\(data)/elsewhere")
        try FileManager.default.createSymbolicLink(atPath: newer, withDestinationPath: "\(data)/elsewhere")
        let daemon = try Daemon(arguments: ["--data-dir", data, "--recover"], wait: false)
        defer { daemon.stop() }
        #expect(daemon.waitForExit() == 1)
        #expect(daemon.stderrText().contains("\(newer): cannot open the log"), "\(daemon.stderrText())")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: newer) == "\(data)/elsewhere")
    }

    /// A FIFO named like a segment stops the start with the reason, `--recover` or not, and is
    /// left where it is: the start blocked in its `open` for good.
    @Test(arguments: [false, true]) func aFIFONamedLikeASegmentStopsTheStartWithoutBlocking(recover: Bool) throws {
        let data = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let fifo = "\(data)/milieu-00000000000000009999.log"
        #expect(mkfifo(fifo, 0o600) == 0)
        let daemon = try Daemon(arguments: ["--data-dir", data] + (recover ? ["--recover"] : []), wait: false)
        defer { daemon.stop() }
        #expect(daemon.waitForExit() == 1)
        #expect(daemon.stderrText().contains("\(fifo): cannot read the log: it is not a regular file"), "\(daemon.stderrText())")
        var status = stat()
        #expect(lstat(fifo, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO)
    }

    /// A FIFO or a directory named `milieu.db`, or a FIFO named as its WAL, stops the start with
    /// the reason and is left where it is. SQLite opened a FIFO `milieu.db` and said only "disk
    /// I/O error"; it took a FIFO `milieu.db-wal` for an empty WAL, and deleted it.
    @Test(arguments: [("fifo", ""), ("directory", ""), ("fifo", "-wal")])
    func aDatabaseThatIsNotARegularFileStopsTheStartWithTheReason(kind: String, suffix: String) throws {
        let data = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let database = "\(data)/milieu.db\(suffix)"
        if kind == "fifo" {
            #expect(mkfifo(database, 0o600) == 0)
        } else {
            try FileManager.default.createDirectory(atPath: database, withIntermediateDirectories: false)
        }
        let daemon = try Daemon(arguments: ["--data-dir", data], wait: false)
        defer { daemon.stop() }
        #expect(daemon.waitForExit() == 1)
        let reason = "cannot open the database: it is not a regular file; move it out of the data directory"
        #expect(daemon.stderrText().contains("\(database): \(reason)"), "\(daemon.stderrText())")
        var status = stat()
        #expect(lstat(database, &status) == 0 && status.st_mode & S_IFMT == (kind == "fifo" ? S_IFIFO : S_IFDIR))
    }

    /// A record whose checksums are right but whose payload is too short to hold its list's
    /// length is a record that does not read: refused as damage, where the length's arithmetic
    /// used to overflow and crash the start.
    @Test func aRecordTooShortForItsListIsDamageNotACrash() throws {
        let data = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let daemon = try Daemon(arguments: ["--data-dir", data])
        let version = try #require(
            try daemon.connect().call("graph/set", ["path": "theme.accentColor", "value": "teal"])["version"]?.intValue)
        daemon.stop()
        let file = try #require(try logFiles(data).last)
        let payload = Array("[]".utf8)
        var record: [UInt8] = []
        LogFormat.append(UInt32(payload.count), to: &record)
        LogFormat.append(UInt64(version + 1), to: &record)
        LogFormat.append(LogFormat.crc(payload, from: 0, count: payload.count), to: &record)
        // The header's CRC covers the length, the version and the payload's CRC, in that order.
        let header = LogFormat.crc(record, from: 0, count: 16)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        bytes += record[0..<4]
        LogFormat.append(header, to: &bytes)
        bytes += record[4...] + payload
        try Data(bytes).write(to: URL(fileURLWithPath: file))

        let again = try Daemon(arguments: ["--data-dir", data], wait: false)
        defer { again.stop() }
        #expect(again.waitForExit() == 1)
        #expect(again.stderrText().contains("the record of version \(version + 1) does not read"), "\(again.stderrText())")
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
