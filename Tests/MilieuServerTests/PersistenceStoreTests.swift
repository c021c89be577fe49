import Foundation
import MilieuJSON
import MilieuTestSupport
import Synchronization
import Testing

@testable import MilieuStore

/// The store on its own: segments rotate and go once folded and out of the retention, and
/// every fsync mode keeps what was acknowledged through kill -9.
@Suite(.serialized) struct PersistenceStoreTests {
    /// Commits each of `versions` alone, each writing `/App.n` = its version.
    private func commitVersions(_ versions: ClosedRange<Int>, to store: Store) throws {
        for version in versions {
            store.stage(
                version: version, writes: { _ = $0(.value(view: "/App", name: "n", value: .int(version))) }, history: { $0.writeRaw("[]") })
            try store.commit()
        }
    }

    /// Copies the store's files in `directory` to `copy` as a crash would leave them: as they
    /// are now, the lock not released in order.
    private func copyAsACrashLeavesIt(_ directory: String, to copy: String) throws {
        for file in try FileManager.default.contentsOfDirectory(atPath: directory) where file != "milieu.lock" {
            try FileManager.default.copyItem(atPath: "\(directory)/\(file)", toPath: "\(copy)/\(file)")
        }
    }

    private func segments(_ directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".log") }.sorted()
    }

    @Test func segmentsRotateAndGoOnceFoldedAndOutOfTheRetention() throws {
        let directory = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var options = StoreOptions()
        options.segmentBytes = 256
        options.retainedVersions = 3
        let store = try Store(directory: directory, options: options)
        try store.start(nextVersion: 1)
        try commitVersions(1...40, to: store)
        #expect(try segments(directory).count > 5, "a segment holds a few records")
        store.close()

        let again = try Store(directory: directory, options: options)
        defer { again.close() }
        #expect(again.lastVersion == 40)
        #expect(again.state.values.map(\.value) == [.int(40)])
        #expect(again.history.map(\.version) == [38, 39, 40], "the retention: the newest 3 versions")
        try again.start(nextVersion: 41)
        let kept = try segments(directory)
        #expect(kept.count <= 4, "folded segments out of the retention are gone: \(kept)")
        #expect(kept.last == "milieu-00000000000000000041.log")
    }

    /// With `--fsync always`, a turn whose `write()` went through but whose `fdatasync` failed is
    /// not acknowledged and waits in the backlog; written again from there, it is in the log once,
    /// and the next start reads every version, not the same ones twice (which it would refuse as
    /// damage).
    @Test func aTurnWhoseSyncFailedIsWrittenOnceWhenItIsRetried() throws {
        let directory = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let failures = Atomic<Int>(0)
        var options = StoreOptions()
        options.fsync = .always
        options.foldInterval = 3600
        options.syncLog = { descriptor in
            guard failures.add(1, ordering: .relaxed).newValue == 2 else { return fdatasync(descriptor) }
            errno = EIO
            return -1
        }
        let store = try Store(directory: directory, options: options)
        try store.start(nextVersion: 1)
        try commitVersions(1...1, to: store)
        store.stage(version: 2, writes: { _ = $0(.value(view: "/App", name: "n", value: 2)) }, history: { $0.writeRaw("[]") })
        #expect(throws: StoreError.self) { try store.commit() }
        #expect(store.hasBacklog)
        #expect(try store.writeBacklog(maxBytes: 1 << 20))
        try commitVersions(3...3, to: store)
        store.close()
        let again = try Store(directory: directory, options: options)
        defer { again.close() }
        #expect(again.history.map(\.version) == [1, 2, 3])
        #expect(again.state.values.map(\.value) == [.int(3)])
    }

    @Test func aGapInTheUnfoldedVersionsIsRefusedNamingThem() throws {
        let directory = try Daemon.makeDirectory()
        let copy = try Daemon.makeDirectory()
        defer {
            try? FileManager.default.removeItem(atPath: directory)
            try? FileManager.default.removeItem(atPath: copy)
        }
        var options = StoreOptions()
        options.segmentBytes = 256
        options.foldInterval = 3600
        let store = try Store(directory: directory, options: options)
        try store.start(nextVersion: 1)
        try commitVersions(1...20, to: store)
        // As a crash would leave it: the log written, the snapshot not folded yet.
        try copyAsACrashLeavesIt(directory, to: copy)
        store.close()
        let files = try segments(copy)
        try FileManager.default.removeItem(atPath: "\(copy)/\(files[1])")
        let error = #expect(throws: StoreError.self) { _ = try Store(directory: copy, options: options) }
        #expect(error?.reason.contains("are missing before version") == true && error?.reason.contains("--recover") == true)
    }

    /// Opens the store in `directory`, hands it to `body` and closes it, its database
    /// connection with it (the store goes at the end of the scope).
    private func withStore(_ directory: String, segmentBytes: Int = StoreOptions().segmentBytes, _ body: (Store) throws -> Void) throws {
        var options = StoreOptions()
        options.foldInterval = 3600
        options.segmentBytes = segmentBytes
        let store = try Store(directory: directory, options: options)
        defer { store.close() }
        try body(store)
    }

    /// Commits each of `writes` as its own record, from `first` on.
    private func commit(_ writes: [StoredWrite], from first: Int, to store: Store) throws {
        try store.start(nextVersion: first)
        for (offset, write) in writes.enumerated() {
            store.stage(version: first + offset, writes: { _ = $0(write) }, history: { $0.writeRaw("[]") })
            try store.commit()
        }
    }

    /// A crash during a fold's checkpoint can leave the main file with some of the fold's pages
    /// and not others; without the WAL (deleted, or left behind by a copy), a main file whose
    /// `meta` claimed the fold would lose the rest silently. Here every page of the fold of
    /// version 4 reached the main file but those of `vals`: the store must still bring back
    /// version 4's value, from the log.
    @Test func aFoldCutShortInTheMainFileIsFoldedAgainFromTheLog() throws {
        let directory = try Daemon.makeDirectory()
        let scratch = try Daemon.makeDirectory()
        defer {
            try? FileManager.default.removeItem(atPath: directory)
            try? FileManager.default.removeItem(atPath: scratch)
        }
        let database = "\(directory)/milieu.db"
        try withStore(directory) { try commit((1...3).map { .value(view: "/App", name: "n", value: .int($0)) }, from: 1, to: $0) }
        let before = try Data(contentsOf: URL(fileURLWithPath: database))
        try withStore(directory) { try commit([.value(view: "/App", name: "n", value: 4)], from: 4, to: $0) }
        var torn = try Data(contentsOf: URL(fileURLWithPath: database))
        try FileManager.default.copyItem(atPath: database, toPath: "\(scratch)/milieu.db")
        let pages = try ScriptRunner.sqlite("\(scratch)/milieu.db", "SELECT rootpage FROM sqlite_master WHERE tbl_name = 'vals'")
            .split(separator: "\n").compactMap { Int($0) }
        let pageSize = Int(before[16]) << 8 | Int(before[17])
        #expect(pages.count == 2 && pageSize >= 512, "the table and its index")
        for page in pages {
            let bytes = ((page - 1) * pageSize)..<(page * pageSize)
            torn.replaceSubrange(bytes, with: before[bytes])
        }
        try torn.write(to: URL(fileURLWithPath: database))
        for file in ["milieu.db-wal", "milieu.db-shm"] { try? FileManager.default.removeItem(atPath: "\(directory)/\(file)") }
        try withStore(directory) { again in
            #expect(again.state.values.map { "\($0.name)=\($0.value.jsonText)" } == ["n=4"])
        }
    }

    /// A start folds again the records after the version the main file is known to hold: each
    /// view they mount must keep its place in mount order, a child after its parent, however
    /// often the store is opened.
    @Test func foldingAgainKeepsTheMountOrder() throws {
        let directory = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let writes: [StoredWrite] = [
            .view(path: "/App/V", declaration: ["name": "V"]), .removeView(path: "/App/V"),
            .view(path: "/App/V", declaration: ["name": "V", "again": true]),
            .view(path: "/App/V/W", declaration: ["name": "W"]),
        ]
        try withStore(directory) { try commit(writes, from: 1, to: $0) }
        for next in 5...6 {
            try withStore(directory) { store in
                #expect(store.state.views.map(\.path) == ["/App/V", "/App/V/W"])
                #expect(store.state.views.first?.declaration == ["name": "V", "again": true])
                try store.start(nextVersion: next)
                store.stage(version: next, writes: { _ in }, history: { $0.writeRaw("[]") })
                try store.commit()
            }
        }
    }

    /// The snapshot can be ahead of the log: it is synced at each fold, the log once a second
    /// (`--fsync everysec`) or never (`no`), and a copy may take the log first. Folding again
    /// what the log still holds would take a key back to an older value beside newer ones: a
    /// state that never was. The snapshot is kept as it is.
    @Test func aLogThatEndsBeforeTheSnapshotTakesNoKeyBack() throws {
        let directory = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try withStore(directory) { store in
            try commit(
                [
                    .value(view: "/App", name: "a", value: 1), .value(view: "/App", name: "a", value: 2),
                    .value(view: "/App", name: "b", value: 3),
                ],
                from: 1, to: store)
        }
        // The log as if only its first record had reached the disk.
        let segment = "\(directory)/\(try #require(try segments(directory).first))"
        let bytes = try Data(contentsOf: URL(fileURLWithPath: segment))
        try bytes.prefix(segmentRecords(bytes)[1].offset).write(to: URL(fileURLWithPath: segment))
        try withStore(directory) { store in
            #expect(store.notices.isEmpty, "\(store.notices)")
            #expect(store.lastVersion == 3)
            #expect(store.state.values.map { "\($0.name)=\($0.value.jsonText)" } == ["a=2", "b=3"])
        }
    }

    /// An earlier milieud leaves `checkpointed` as it found it while it folds and prunes the log
    /// up to its own folded version: the records after `checkpointed` are then not all there.
    /// That is no damage; the run of versions the log still holds is folded again.
    @Test func aLogAnEarlierMilieudPrunedIsNotRefused() throws {
        let directory = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try withStore(directory) { try commit((1...3).map { .value(view: "/App", name: "n", value: .int($0)) }, from: 1, to: $0) }
        try withStore(directory) { store in
            try commit([.value(view: "/App", name: "m", value: 4), .value(view: "/App", name: "n", value: 5)], from: 4, to: store)
        }
        try dropSegment(0, of: 2, in: directory)
        try withStore(directory) { store in
            #expect(store.lastVersion == 5)
            #expect(store.state.values.map { "\($0.name)=\($0.value.jsonText)" } == ["m=4", "n=5"])
        }
    }

    /// Deletes segment `index` of the `count` in `directory` and sets `checkpointed` back to 0,
    /// as an earlier milieud that pruned the log (or a segment lost) would leave them.
    private func dropSegment(_ index: Int, of count: Int, in directory: String) throws {
        let files = try segments(directory)
        #expect(files.count == count)
        try FileManager.default.removeItem(atPath: "\(directory)/\(files[index])")
        _ = try ScriptRunner.sqlite("\(directory)/milieu.db", "UPDATE meta SET value = '0' WHERE key = 'checkpointed'")
    }

    /// A log with a hole before the folded version (a segment gone, `checkpointed` left behind
    /// by an earlier milieud) is folded again only from the run after the hole: a record before
    /// it would take a key back past the write the hole held.
    @Test func aHoleBeforeTheFoldedVersionFoldsAgainOnlyTheRunAfterIt() throws {
        let directory = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // A segment a record.
        try withStore(directory, segmentBytes: 1) { store in
            try commit(
                [
                    .value(view: "/App", name: "a", value: 1), .value(view: "/App", name: "a", value: 2),
                    .value(view: "/App", name: "b", value: 3),
                ],
                from: 1, to: store)
        }
        try dropSegment(1, of: 3, in: directory)
        try withStore(directory) { store in
            #expect(store.lastVersion == 3)
            #expect(store.state.values.map { "\($0.name)=\($0.value.jsonText)" } == ["a=2", "b=3"])
        }
    }

    /// A start that deletes the log once it has folded it (`--recover`, here) does so only once
    /// the main file holds what it folded: a reader of `milieu.db` that keeps the checkpoint
    /// from finishing makes it refuse and keep the log, whose records would otherwise be only
    /// in the WAL, unsynced. Once the reader is gone, the recovery goes through.
    @Test func aRecoveryKeepsTheLogUntilTheMainFileHoldsWhatItFolded() throws {
        let directory = try Daemon.makeDirectory()
        let copy = try Daemon.makeDirectory()
        defer {
            try? FileManager.default.removeItem(atPath: directory)
            try? FileManager.default.removeItem(atPath: copy)
        }
        try withStore(directory) { store in
            try commit((1...3).map { .value(view: "/App", name: "n", value: .int($0)) }, from: 1, to: store)
            // As a crash would leave it: the log written, the snapshot not folded yet.
            try copyAsACrashLeavesIt(directory, to: copy)
        }
        // Damage in the second record, a whole one after it: only the first is kept.
        let segment = "\(copy)/\(try #require(try segments(copy).first))"
        var bytes = try Data(contentsOf: URL(fileURLWithPath: segment))
        bytes[segmentRecords(bytes)[1].offset + 24] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: segment))
        var options = StoreOptions()
        options.recover = true

        let reader = Process()
        let input = Pipe()
        let output = Pipe()
        reader.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        reader.arguments = ["\(copy)/milieu.db"]
        reader.standardInput = input
        reader.standardOutput = output
        try reader.run()
        let printed = DispatchSemaphore(value: 0)
        output.fileHandleForReading.readabilityHandler = { _ in printed.signal() }
        input.fileHandleForWriting.write(Data("BEGIN;\nSELECT count(*) FROM meta;\n".utf8))
        // The count printed: its read transaction holds the WAL as it was.
        #expect(printed.wait(timeout: .now() + 30) == .success, "sqlite3 printed nothing")
        output.fileHandleForReading.readabilityHandler = nil
        let refused = #expect(throws: StoreError.self) { _ = try Store(directory: copy, options: options) }
        #expect(refused?.reason.contains("another connection") == true, "\(refused?.reason ?? "")")
        #expect(try segments(copy).count == 1, "the log is kept")
        input.fileHandleForWriting.closeFile()
        reader.waitUntilExit()

        let recovered = try Store(directory: copy, options: options)
        defer { recovered.close() }
        #expect(recovered.notices.contains { $0.contains("recovered") }, "\(recovered.notices)")
        #expect(recovered.state.values.map { "\($0.name)=\($0.value.jsonText)" } == ["n=1"])
    }

    /// The records of one turn share one array of writes: each is written with its own, the
    /// second of a turn as the first, a type staged before a record in it, and the log reads back
    /// whole after a crash (no fold ran). A value of the key written just before takes that
    /// write's place in the fold's batch, in its own record or in the last, but not in the log,
    /// and its record still says it wrote (so that its answer waits for the log).
    @Test func theRecordsOfOneTurnEachCarryTheirOwnWrites() throws {
        let directory = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var options = StoreOptions()
        options.foldInterval = 3600
        let store = try Store(directory: directory, options: options)
        try store.start(nextVersion: 1)
        store.stage(version: 1, writes: { _ = $0(.value(view: "/App", name: "a", value: 1)) }, history: { $0.writeRaw("[1]") })
        store.stageType(name: "Pet", declaration: ["name": "Pet", "properties": [:]])
        store.stage(
            version: 2,
            writes: { add in
                _ = add(.value(view: "/App", name: "b", value: 2))
                _ = add(.value(view: "/App", name: "c", value: 3))
            }, history: { $0.writeRaw("[2]") })
        #expect(!store.stage(version: 3, writes: { _ in }, history: { $0.writeRaw("[3]") }))
        let wroteTwice = store.stage(
            version: 4,
            writes: { add in
                _ = add(.value(view: "/App", name: "a", value: 4))
                _ = add(.value(view: "/App", name: "a", value: 5))
            }, history: { $0.writeRaw("[4]") })
        let wroteAgain = store.stage(
            version: 5, writes: { _ = $0(.value(view: "/App", name: "a", value: 6)) }, history: { $0.writeRaw("[5]") })
        #expect(wroteTwice && wroteAgain)
        try store.commit()
        // What a crash leaves: the log written, the snapshot not folded, no lock released in order.
        let copy = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: copy) }
        try copyAsACrashLeavesIt(directory, to: copy)
        store.close()
        let again = try Store(directory: copy, options: StoreOptions())
        defer { again.close() }
        #expect(again.notices.isEmpty, "\(again.notices)")
        #expect(again.history.map(\.version) == [1, 2, 3, 4, 5])
        #expect(again.history.map { String(decoding: $0.history, as: UTF8.self) } == ["[1]", "[2]", "[3]", "[4]", "[5]"])
        #expect(again.state.values.map { "\($0.name)=\($0.value.jsonText)" } == ["a=6", "b=2", "c=3"])
        let log = try segments(copy).map { String(decoding: try Data(contentsOf: URL(fileURLWithPath: "\(copy)/\($0)")), as: UTF8.self) }
            .joined()
        #expect(log.contains(#"[["s","/App","a",4],["s","/App","a",5]]"#), "\(log)")
        #expect(again.state.types == [["name": "Pet", "properties": [:]]])
    }

    @Test(arguments: ["always", "everysec", "no"])
    func everyFsyncModeKeepsAcknowledgedWritesThroughKill9(mode: String) throws {
        let data = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let first = try Daemon(arguments: ["--data-dir", data, "--fsync", mode])
        let client = try first.connect()
        for n in 1...20 { _ = try client.call("graph/set", ["path": "theme.fontScale", "value": .double(1 + Double(n) / 10)]) }
        kill(first.process.processIdentifier, SIGKILL)
        first.process.waitUntilExit()
        first.stop()
        let second = try Daemon(arguments: ["--data-dir", data, "--fsync", mode])
        defer { second.stop() }
        #expect(try second.connect().call("graph/get", ["path": "theme.fontScale"]) == .double(3))
    }
}

/// The store's lock is its descriptor's open file: a child this process forks holds a copy of
/// it until its exec. A parallel test spawning a process while a store was being reopened once
/// made the reopen fail with "another milieud (pid <this one>) keeps its state here".
@Suite struct StoreLockTests {
    @Test func lockingWaitsForAChildThatStillHoldsTheLockThisProcessLetGo() throws {
        let directory = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let lock = try DataDirectory.lock(directory)
        // A child holding the lock's open file for a moment, as a fork does until its exec.
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, lock, 3)
        let words: [String] = ["/bin/sh", "-c", "sleep 0.2"]
        let arguments: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { arguments.forEach { free($0) } }
        var child: pid_t = 0
        #expect(posix_spawn(&child, "/bin/sh", &actions, nil, arguments, environ) == 0)
        close(lock)
        let again = try DataDirectory.lock(directory)
        close(again)
        var status: Int32 = 0
        waitpid(child, &status, 0)
    }
}
