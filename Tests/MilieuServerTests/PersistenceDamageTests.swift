import Foundation
import MilieuJSON
import MilieuTestSupport
import Testing

/// A damaged store is never read as good data: a torn tail is cut with a report; anything else
/// refuses to start, naming the file and `--recover`, which keeps what is intact and says what
/// was lost (SPEC §12.3).
@Suite(.serialized) struct PersistenceDamageTests {
    /// A data directory whose store holds `/App/Notes.text` = "kept" (and a few versions before it).
    private func storeWithNotes() throws -> String {
        let data = try Daemon.makeDirectory()
        let daemon = try Daemon(arguments: ["--data-dir", data])
        let client = try daemon.connect()
        _ = try client.call("view/mount", ["parent": "/App", "name": "Notes", "retain": true, "state": ["text": ""]])
        for text in ["one", "two", "kept"] { _ = try client.call("graph/set", ["path": "/App/Notes.text", "value": .string(text)]) }
        daemon.stop()
        return data
    }

    private func logFiles(_ data: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: data).filter { $0.hasPrefix("milieu-") && $0.hasSuffix(".log") }.sorted()
            .map { "\(data)/\($0)" }
    }

    /// Starts milieud on `data` and returns its exit status (nil: it runs) and what it logged.
    private func attempt(_ data: String, _ extra: [String] = []) throws -> (status: Int32?, log: String, notes: JSON?) {
        let daemon = try Daemon(arguments: ["--data-dir", data] + extra, wait: false)
        defer { daemon.stop() }
        // The socket accepts before the store is open: only an answer says the daemon runs.
        // (Not waitUntilReady: it would take the log of a daemon that exits for its message.)
        var answer: JSON?
        let deadline = Date.now.addingTimeInterval(10)
        while answer == nil, daemon.process.isRunning, Date.now < deadline {
            answer = try? daemon.connect().request("graph/get", ["path": "/App/Notes.text"])
            if answer == nil { usleep(10_000) }
        }
        guard let reply = answer else { return (daemon.waitForExit(), daemon.stderrText(), nil) }
        let notes = reply["result"]
        daemon.terminate()
        return (nil, daemon.stderrText(), notes)
    }

    @Test func aTornTailIsCutWithAReportAndTheRestIsKept() throws {
        let data = try storeWithNotes()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let newest = try #require(try logFiles(data).last)
        let handle = try #require(FileHandle(forWritingAtPath: newest))
        handle.seekToEndOfFile()
        // A record header whose length runs past the end of the file: a write cut short.
        handle.write(Data([64, 0, 0, 0, 1, 2, 3]))
        handle.closeFile()
        let run = try attempt(data)
        #expect(run.status == nil, "\(run.log)")
        #expect(run.notes == "kept")
        #expect(run.log.contains("cut a torn tail of 7 bytes"), "\(run.log)")
    }

    @Test func aCorruptRecordBeforeGoodOnesIsRefusedThenRecoveredSayingWhatWasLost() throws {
        let data = try storeWithNotes()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let file = try #require(try logFiles(data).first)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        bytes[segmentRecords(bytes)[1].offset + 24] ^= 0xFF  // in the second record's payload
        try bytes.write(to: URL(fileURLWithPath: file))
        let refused = try attempt(data)
        #expect(refused.status == 1)
        #expect(refused.log.contains(file) && refused.log.contains("fails its checksum"), "\(refused.log)")
        #expect(refused.log.contains("--recover"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == bytes, "a refused start changes nothing")

        let recovered = try attempt(data, ["--recover"])
        #expect(recovered.status == nil, "\(recovered.log)")
        #expect(recovered.log.contains("recovered") && recovered.log.contains("lost:") && recovered.log.contains("bytes from byte"))
        // What the snapshot holds is intact: the folded values are all there.
        #expect(recovered.notes == "kept")
        let clean = try attempt(data)
        #expect(clean.status == nil && !clean.log.contains("recover"), "the next start is clean: \(clean.log)")
    }

    /// A data directory whose newest segment holds a mount of `/App/Notes` and 300 acknowledged
    /// sets, synced before each answer, then killed (perhaps after a fold: the segment stays, as
    /// the history keeps it); and the version of each set.
    private func killedStoreWithNotes() throws -> (data: String, versions: [Int]) {
        let data = try Daemon.makeDirectory()
        let daemon = try Daemon(arguments: ["--data-dir", data, "--fsync", "always"])
        let client = try daemon.connect()
        _ = try client.call("view/mount", ["parent": "/App", "name": "Notes", "retain": true, "state": ["text": ""]])
        let versions = try (1...300).map { n in
            try #require(try client.call("graph/set", ["path": "/App/Notes.text", "value": .string("note \(n)")])["version"]?.intValue)
        }
        kill(daemon.process.processIdentifier, SIGKILL)
        daemon.process.waitUntilExit()
        daemon.stop()
        return (data, versions)
    }

    @Test func aFlippedBitInARecordLengthBeforeWholeRecordsIsDamageNotATornTail() throws {
        let (data, versions) = try killedStoreWithNotes()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let file = try #require(try logFiles(data).last)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        let all = segmentRecords(bytes)
        let middle = all[all.count / 2]
        // Bit 24 of the length: the record now seems to run past the end of the file.
        bytes[middle.offset + 3] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: file))
        let dropped = "versions \(middle.version)–\(try #require(versions.last))"

        let refused = try attempt(data)
        #expect(refused.status == 1, "\(refused.log)")
        #expect(refused.log.contains(file) && refused.log.contains("--recover"), "\(refused.log)")
        #expect(!refused.log.contains("torn"), "\(refused.log)")
        #expect(refused.log.contains(dropped), "it says what --recover would drop: \(refused.log)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == bytes, "a refused start changes nothing")

        let recovered = try attempt(data, ["--recover"])
        #expect(recovered.status == nil, "\(recovered.log)")
        #expect(recovered.log.contains("recovered") && recovered.log.contains(dropped), "\(recovered.log)")
        let clean = try attempt(data)
        #expect(clean.status == nil && !clean.log.contains("recover"), "the next start is clean: \(clean.log)")
    }

    @Test func aFlippedBitInTheLastRecordsLengthIsATornTail() throws {
        let (data, versions) = try killedStoreWithNotes()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let file = try #require(try logFiles(data).last)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        let last = try #require(segmentRecords(bytes).last)
        #expect(last.version == versions.last)
        bytes[last.offset + 3] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: file))
        let run = try attempt(data)
        #expect(run.status == nil, "\(run.log)")
        #expect(run.log.contains("cut a torn tail of \(bytes.count - last.offset) bytes"), "\(run.log)")
        // The record cut is the last one; every one before it is kept (or folded already).
        #expect(run.notes == "note 299" || run.notes == "note 300", "\(run.notes?.jsonText ?? "no answer")")
    }

    @Test func aLastRecordCutShortIsATornTail() throws {
        let (data, _) = try killedStoreWithNotes()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let file = try #require(try logFiles(data).last)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        let last = try #require(segmentRecords(bytes).last)
        try bytes.prefix(last.offset + 10).write(to: URL(fileURLWithPath: file))
        let run = try attempt(data)
        #expect(run.status == nil, "\(run.log)")
        #expect(run.log.contains("cut a torn tail of 10 bytes"), "\(run.log)")
        #expect(run.notes == "note 299" || run.notes == "note 300", "\(run.notes?.jsonText ?? "no answer")")
    }

    @Test func aDeletedLogIsRefused() throws {
        let data = try storeWithNotes()
        defer { try? FileManager.default.removeItem(atPath: data) }
        for file in try logFiles(data) { try FileManager.default.removeItem(atPath: file) }
        let refused = try attempt(data)
        #expect(refused.status == 1)
        #expect(refused.log.contains("is missing") && refused.log.contains("--recover"), "\(refused.log)")
        let recovered = try attempt(data, ["--recover"])
        #expect(recovered.status == nil && recovered.notes == "kept", "\(recovered.log)")
    }

    @Test func anEmptyDatabaseBesideALogIsRefused() throws {
        let data = try storeWithNotes()
        defer { try? FileManager.default.removeItem(atPath: data) }
        try Data().write(to: URL(fileURLWithPath: "\(data)/milieu.db"))
        for file in ["milieu.db-wal", "milieu.db-shm"] { try? FileManager.default.removeItem(atPath: "\(data)/\(file)") }
        let refused = try attempt(data)
        #expect(refused.status == 1)
        #expect(refused.log.contains("milieu.db: holds no state") && refused.log.contains("--recover"), "\(refused.log)")
    }

    @Test func aDroppedTableIsRefused() throws {
        let data = try storeWithNotes()
        defer { try? FileManager.default.removeItem(atPath: data) }
        _ = try ScriptRunner.sqlite("\(data)/milieu.db", "DROP TABLE vals")
        let refused = try attempt(data)
        #expect(refused.status == 1)
        #expect(refused.log.contains("table vals is missing") && refused.log.contains("--recover"), "\(refused.log)")
    }

    /// Killed with its last write acknowledged and its WAL then deleted, the daemon restarts
    /// from the log alone. Only a kill that lands before the first fold counts: a fold runs a
    /// second after the store opens, and a kill during its checkpoint leaves `milieu.db` with
    /// part of the fold's pages. The log brings back what such a file lacks
    /// (`PersistenceStoreTests.aFoldCutShortInTheMainFileIsFoldedAgainFromTheLog`), but pages
    /// cut short where a table's structure changed make a damaged database, refused. A run that
    /// took longer than `quickEnough` from launch to kill is therefore done again afresh.
    @Test func aDeletedDatabaseWALLosesNothingAcknowledged() throws {
        let quickEnough = 0.9
        for _ in 1...20 {
            let data = try Daemon.makeDirectory()
            defer { try? FileManager.default.removeItem(atPath: data) }
            let launched = Date.now
            let daemon = try Daemon(arguments: ["--data-dir", data])
            let client = try daemon.connect()
            _ = try client.call("view/mount", ["parent": "/App", "name": "Notes", "retain": true, "state": ["text": ""]])
            _ = try client.call("graph/set", ["path": "/App/Notes.text", "value": "kept"])
            kill(daemon.process.processIdentifier, SIGKILL)
            // After the kill: a pause before it would count.
            let quick = Date.now.timeIntervalSince(launched) < quickEnough
            daemon.stop()
            guard quick else { continue }
            for file in ["milieu.db-wal", "milieu.db-shm"] { try? FileManager.default.removeItem(atPath: "\(data)/\(file)") }
            let run = try attempt(data)
            #expect(run.status == nil, "\(run.log)")
            #expect(run.notes == "kept")
            return
        }
        Issue.record("no run of 20 got from launch to kill within \(quickEnough) s, before a fold could start")
    }
}

/// Where each record of a log segment's bytes starts, and its version: its length is its first
/// u32 in every log format (SPEC §12.3), its version the u64 at byte 8; its header is 16 bytes in
/// format 1, 20 in 2 and 3. Tests that damage or cut a segment find their records with it.
func segmentRecords(_ bytes: Data) -> [(offset: Int, version: Int)] {
    func u32(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
    func u64(_ at: Int) -> Int { (0..<8).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
    let header = u32(8) == 1 ? 16 : 20
    var found: [(Int, Int)] = []
    var offset = 32
    while offset + header <= bytes.count {
        found.append((offset, u64(offset + 8)))
        offset += header + u32(offset)
    }
    return found
}
