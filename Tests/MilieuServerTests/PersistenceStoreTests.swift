import Foundation
import MilieuJSON
import MilieuTestSupport
import Testing

@testable import MilieuStore

/// The store on its own: segments rotate and go once folded and out of the retention, and
/// every fsync mode keeps what was acknowledged through kill -9.
@Suite(.serialized) struct PersistenceStoreTests {
    /// Commits each of `versions` alone, each writing `/App.n` = its version.
    private func commitVersions(_ versions: ClosedRange<Int>, to store: Store) throws {
        for version in versions {
            store.stage(
                version: version, writes: { $0(.value(view: "/App", name: "n", value: .int(version))) }, history: { $0.writeRaw("[]") })
            try store.commit()
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
        for file in try FileManager.default.contentsOfDirectory(atPath: directory) where file != "milieu.lock" {
            try FileManager.default.copyItem(atPath: "\(directory)/\(file)", toPath: "\(copy)/\(file)")
        }
        store.close()
        let files = try segments(copy)
        try FileManager.default.removeItem(atPath: "\(copy)/\(files[1])")
        let error = #expect(throws: StoreError.self) { _ = try Store(directory: copy, options: options) }
        #expect(error?.reason.contains("are missing before version") == true && error?.reason.contains("--recover") == true)
    }

    /// The root pages of `table` and of its indexes in the SQLite database at `path`.
    private func rootPages(of table: String, in path: String) throws -> [Int] {
        let sqlite = Process()
        let output = Pipe()
        sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        sqlite.arguments = [path, "SELECT rootpage FROM sqlite_master WHERE tbl_name = '\(table)'"]
        sqlite.standardOutput = output
        try sqlite.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        sqlite.waitUntilExit()
        return text.split(separator: "\n").compactMap { Int($0) }
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
        var options = StoreOptions()
        options.foldInterval = 3600
        let database = "\(directory)/milieu.db"
        let first = try Store(directory: directory, options: options)
        try first.start(nextVersion: 1)
        try commitVersions(1...3, to: first)
        first.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: database))
        let second = try Store(directory: directory, options: options)
        try second.start(nextVersion: 4)
        try commitVersions(4...4, to: second)
        second.close()
        var torn = try Data(contentsOf: URL(fileURLWithPath: database))
        try FileManager.default.copyItem(atPath: database, toPath: "\(scratch)/milieu.db")
        let pages = try rootPages(of: "vals", in: "\(scratch)/milieu.db")
        let pageSize = Int(before[16]) << 8 | Int(before[17])
        #expect(!pages.isEmpty && pageSize >= 512)
        for page in pages {
            let bytes = ((page - 1) * pageSize)..<(page * pageSize)
            torn.replaceSubrange(bytes, with: before[bytes])
        }
        try torn.write(to: URL(fileURLWithPath: database))
        for file in ["milieu.db-wal", "milieu.db-shm"] { try? FileManager.default.removeItem(atPath: "\(directory)/\(file)") }

        let again = try Store(directory: directory, options: options)
        defer { again.close() }
        #expect(again.state.values.map { "\($0.name)=\($0.value.jsonText)" } == ["n=4"])
    }

    /// The records of one turn share one array of writes: each is written with its own, the
    /// second of a turn as the first, a type staged before a record in it, and the log reads back
    /// whole after a crash (no fold ran).
    @Test func theRecordsOfOneTurnEachCarryTheirOwnWrites() throws {
        let directory = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var options = StoreOptions()
        options.foldInterval = 3600
        let store = try Store(directory: directory, options: options)
        try store.start(nextVersion: 1)
        store.stage(version: 1, writes: { $0(.value(view: "/App", name: "a", value: 1)) }, history: { $0.writeRaw("[1]") })
        store.stageType(name: "Pet", declaration: ["name": "Pet", "properties": [:]])
        store.stage(
            version: 2,
            writes: { add in
                add(.value(view: "/App", name: "b", value: 2))
                add(.value(view: "/App", name: "c", value: 3))
            }, history: { $0.writeRaw("[2]") })
        store.stage(version: 3, writes: { _ in }, history: { $0.writeRaw("[3]") })
        try store.commit()
        // What a crash leaves: the log written, the snapshot not folded, no lock released in order.
        let copy = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: copy) }
        for file in try FileManager.default.contentsOfDirectory(atPath: directory) where file != "milieu.lock" {
            try FileManager.default.copyItem(atPath: "\(directory)/\(file)", toPath: "\(copy)/\(file)")
        }
        store.close()
        let again = try Store(directory: copy, options: StoreOptions())
        defer { again.close() }
        #expect(again.notices.isEmpty, "\(again.notices)")
        #expect(again.history.map(\.version) == [1, 2, 3])
        #expect(again.history.map { String(decoding: $0.history, as: UTF8.self) } == ["[1]", "[2]", "[3]"])
        #expect(again.state.values.map { "\($0.name)=\($0.value.jsonText)" } == ["a=1", "b=2", "c=3"])
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
