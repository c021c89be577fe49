import MilieuJSON

#if canImport(Glibc)
import Glibc
#endif

/// How the store keeps the log: its fsync policy, how much history it retains, and whether a
/// damaged store is recovered instead of refused.
public struct StoreOptions: Sendable {
    public var fsync = FsyncPolicy.everysec
    /// Keep what is intact of a damaged store and drop the rest, instead of refusing to start.
    public var recover = false
    /// Versions of history the log keeps (at least) once folded, for resumed watches.
    public var retainedVersions = 10_000
    /// Bytes of history the log keeps (at least) once folded.
    public var retainedBytes = 64 << 20
    /// A segment file is closed and a new one started past this size.
    public var segmentBytes = 16 << 20
    /// How often the fold runs. A test that copies the files as a crash would leave them sets it
    /// past its own length: a fold before the copy (a loaded machine can stall a test for a
    /// second) would leave no unfolded log to check, and one during it a snapshot half written.
    var foldInterval = Folder.interval
    /// How the log is synced under `always`: `fdatasync`, or in a test one that fails.
    var syncLog: @Sendable (Int32) -> Int32 = { fdatasync($0) }

    public init() {}
}

/// Milieu's durable state (SPEC §12.3): a change log of framed, checksummed records, one per
/// version, appended once per event-loop turn before the turn's responses go out, and an
/// SQLite snapshot the log is folded into off the hot path. Opening it checks both, cuts a
/// torn tail, refuses damage (or, with `recover`, keeps what is intact), folds the log's tail
/// into the snapshot and reads the state and the retained history back.
///
/// Not thread-safe: used from the event loop's thread only; the fold and the once-a-second
/// fsync run on threads of their own.
public final class Store {
    /// `milieu.db`.
    public let path: String
    public let directory: String
    /// The state to bring back, read at open.
    public private(set) var state = StoredState()
    /// The retained records, oldest first, their versions contiguous up to `lastVersion`.
    public private(set) var history: [LogRecord] = []
    /// The last version the snapshot or the log holds; versions continue after it.
    public private(set) var lastVersion = 0
    /// The log's id: the same for as long as versions continue, new in a new or recovered store.
    public private(set) var logID: UInt64 = 0
    /// What opening found and did that a person should hear of (a torn tail cut, a recovery).
    public private(set) var notices: [String] = []

    private let options: StoreOptions
    private let snapshot: Snapshot
    private var log: ChangeLog?
    private var folder: Folder?
    private var scanned: [Segment] = []
    /// The version the main file holds everything through, synced, when the store opened: what
    /// `start` records as `checkpointed` if it cannot get the main file to hold more.
    private var checkpointedAtOpen = 0
    /// Lock on the data directory, held while the store is open.
    private var lockDescriptor: Int32

    // The turn being staged, and earlier turns that could not be written yet, oldest first.
    private var turn = JSONWriter(capacity: 0)
    private var turnRecords = FoldBatch()
    /// The head of the last `value` write staged that was short enough to keep (`StoredWrite.encode`).
    private var valueHead = WrittenMemo()
    private var backlog: [Pending] = []
    private var pendingTypes: [StoredWrite] = []
    /// The last version staged: commits that took no new version are not logged twice.
    private var stagedThrough = 0
    private var stagedSizes: [(version: Int, size: Int)] = []
    private var sizesRead = 0
    private var commits = 0

    private struct Pending {
        var bytes: JSONWriter
        var records: FoldBatch
    }

    /// Opens the store in `directory`, creating the directory (0700) and its parents if needed
    /// and making it and its files private; refuses a directory of another user, and one
    /// another daemon holds (SPEC §12.3).
    public init(directory: String, options: StoreOptions) throws(StoreError) {
        try DataDirectory.prepare(directory)
        lockDescriptor = try DataDirectory.lock(directory)
        self.directory = directory
        self.options = options
        path = directory + "/milieu.db"
        do throws(StoreError) {
            snapshot = try Snapshot(path: path)
            try open()
        } catch {
            Glibc.close(lockDescriptor)
            throw error
        }
    }

    deinit { close() }

    // MARK: Opening

    private func open() throws(StoreError) {
        let tables = try snapshot.existingTables()
        let format = try snapshot.meta("format")
        if let format, Int(format).map({ $0 > Snapshot.formatVersion }) ?? true { try snapshot.prepare() }  // throws: newer
        let names = try LogScan.segmentNames(in: directory)
        var expectedLog = try snapshot.meta("log").flatMap { UInt64($0, radix: 16) }
        var (folded, checkpointed) = try snapshot.foldedVersions()
        var problems: [(path: String, what: String)] = []
        let logPath = { (first: Int) in self.directory + "/" + LogFormat.fileName(firstVersion: first) }
        if format == nil {
            if let first = names.first {
                let log = logPath(first.firstVersion)
                problems.append(
                    (
                        path,
                        "holds no state (it is empty, new or not a milieu database) while the log \(log) holds changes: the snapshot they follow is lost"
                    ))
                // What the log holds is all there is: it is taken as it comes.
                expectedLog = nil
                folded = first.firstVersion - 1
                checkpointed = folded
            }
        } else {
            for table in Snapshot.tables(ofFormat: Int(format ?? "") ?? Snapshot.formatVersion) where !tables.contains(table) {
                problems.append((path, "its table \(table) is missing (dropped?): what it held is lost"))
            }
            if let expectedLog, names.isEmpty {
                let id = String(expectedLog, radix: 16)
                problems.append(
                    (
                        logPath(folded + 1),
                        "is missing: milieu.db holds versions through \(folded) and expects log \(id) to follow; the changes after version \(folded) are lost"
                    ))
            }
            if let head = Int(try snapshot.meta("head") ?? ""), let last = names.last?.firstVersion, head > last {
                problems.append((logPath(head), "is missing: it is the newest log file milieu.db knows of; the changes in it are lost"))
            }
        }
        var scan = try LogScan.read(directory: directory, logID: expectedLog, folded: folded, writesAfter: checkpointed)
        if let damage = scan.damage {
            let after = damage.lastGood ?? folded
            var lost = "the \(damage.bytesAfter) bytes from byte \(damage.offset) on (versions after \(after)) cannot be read"
            if let newest = damage.wholeRecordsAfter.last, newest > after {
                let count = damage.wholeRecordsAfter.count
                let records = count == 1 ? "1 whole record follows" : "\(count) whole records follow"
                lost += "; they hold versions \(after + 1)–\(newest) (\(records) the damage)"
            }
            problems.append((damage.path, "\(damage.reason): \(lost)"))
        }
        if let first = problems.first, !options.recover {
            let what = ([first.what] + problems.dropFirst().map { "\($0.path) \($0.what)" }).joined(separator: "; ")
            throw StoreError(
                path: first.path,
                "\(what). Nothing was changed. Start milieud with --recover to keep what is intact (the snapshot and the log up to the damage) and drop the rest, or move \(directory) away to start afresh"
            )
        }
        if let torn = scan.torn {
            if torn.offset < LogFormat.headerSize { unlink(torn.path) } else { _ = truncate(torn.path, off_t(torn.offset)) }
            scan.segments.removeAll { $0.size < LogFormat.headerSize }
            notices.append(
                "\(torn.path): cut a torn tail of \(torn.bytes) bytes at byte \(torn.offset) (a write cut short: no whole record is in it)")
        }
        try snapshot.prepare()
        let from = Self.foldFrom(scan.records, folded: folded, checkpointed: checkpointed)
        let records = scan.records.filter { $0.version > from }
        if !records.isEmpty {
            var queue = FoldQueue()
            for record in records { queue.append(version: record.version, writes: record.writes) }
            try snapshot.fold(queue, records: 0..<queue.count)
        }
        lastVersion = max(folded, scan.records.last?.version ?? 0)
        let synced = snapshot.checkpoint()
        checkpointedAtOpen = synced ? lastVersion : checkpointed
        if problems.isEmpty, let expectedLog {
            logID = expectedLog
            scanned = scan.segments
            history = Self.retained(scan.records, versions: options.retainedVersions, bytes: options.retainedBytes)
        } else {
            // A new store, an upgraded one (format 1 had no log), or one recovered: a new log id,
            // so clients resynchronise rather than trust a history that may have lost versions.
            var generator = SystemRandomNumberGenerator()
            logID = generator.next() | 1
            // What the old files held that reads well is folded above; they go, so that no
            // file of another id stays beside the new log, but only once the main file holds
            // it: until a checkpoint, it is only in the WAL, unsynced.
            guard synced else {
                throw StoreError(
                    path: path,
                    "another connection is reading it, so what was folded from the log could not be written into it for good; the log is kept and nothing is lost. Close the other connection (sqlite3?) and start milieud again"
                )
            }
            for segment in try LogScan.segmentNames(in: directory) { unlink(directory + "/" + segment.name) }
            ChangeLog.syncDirectory(directory)
            if !problems.isEmpty {
                notices.append(
                    "recovered \(directory): kept milieu.db and the log through version \(lastVersion); lost: "
                        + problems.map { "\($0.path) \($0.what)" }.joined(separator: "; "))
            }
            try snapshot.setMeta([
                "log": String(logID, radix: 16), "folded": String(lastVersion), "checkpointed": String(checkpointedAtOpen),
            ])
        }
        state = try snapshot.load()
    }

    /// The version after which a start folds `records`. The records after `checkpointed` are
    /// folded again, for what the main file may lack: those of the unbroken run of versions that
    /// ends the log, if it reaches `folded`, so that each key ends with its last write. A log
    /// that stops short of `folded` (cut by damage, synced later than the snapshot, copied before
    /// it) would take keys the snapshot holds back to older values: only what is after `folded`
    /// is folded then.
    private static func foldFrom(_ records: [LogRecord], folded: Int, checkpointed: Int) -> Int {
        guard let last = records.last, last.version >= folded else { return folded }
        var first = records.count - 1
        while first > 0, records[first - 1].version == records[first].version - 1 { first -= 1 }
        return min(max(checkpointed, records[first].version - 1), folded)
    }

    /// The newest records that fit the retention, with contiguous versions.
    static func retained(_ records: [LogRecord], versions: Int, bytes: Int) -> [LogRecord] {
        var start = records.count
        var size = 0
        while start > 0, records.count - start < versions, size + records[start - 1].size <= bytes {
            if start < records.count, records[start - 1].version != records[start].version - 1 { break }
            start -= 1
            size += records[start].size
        }
        return Array(records[start...])
    }

    /// Starts appending: the log's next record is version `nextVersion`, the one after
    /// `lastVersion` (the restore takes no versions, SPEC §8.1).
    public func start(nextVersion: Int) throws(StoreError) {
        let log = ChangeLog(
            directory: directory, logID: logID, policy: options.fsync, segmentBytes: options.segmentBytes,
            segments: scanned, sync: options.syncLog)
        try log.open(nextVersion: nextVersion)
        // A reader that keeps a checkpoint from finishing leaves the main file short (see `Folder`).
        let checkpointed = snapshot.checkpoint() ? nextVersion - 1 : checkpointedAtOpen
        try snapshot.setMeta(["head": String(log.head), "folded": String(nextVersion - 1), "checkpointed": String(checkpointed)])
        // Into the main file at once: a lost WAL must not hide that this store has a log. Until
        // it is, the main file says what it said at the opening, and the log keeps what follows.
        let claimed = snapshot.checkpoint() ? checkpointed : checkpointedAtOpen
        log.prune(folded: claimed, versions: options.retainedVersions, bytes: options.retainedBytes)
        self.log = log
        folder = Folder(
            snapshot: snapshot, checkpointed: checkpointed, claimed: claimed, head: log.head, interval: options.foldInterval)
        history = []
        scanned = []
        stagedThrough = nextVersion - 1
    }

    // MARK: Writing

    /// A type registered in the commit that is staged next (`schema/register`'s).
    public func stageType(name: String, declaration: JSON) { pendingTypes.append(.type(name: name, declaration: declaration)) }

    /// Adds version `version`'s record to this turn: the writes to fold into the snapshot, which
    /// `writes` hands to the function it is given (after the types staged since the last
    /// record), each moved into the turn's batch rather than copied, and what `history` writes
    /// into the record, which comes back in `history` at the next start. `add` returns the
    /// write's position in the record's list, by which the history may name it (`LogRecord.allWrites`).
    /// A version already staged is not staged again. Returns whether the record changes the snapshot.
    @discardableResult
    public func stage(
        version: Int, writes: (_ add: (consuming StoredWrite) -> Int) -> Void, history: (inout JSONSink) -> Void
    ) -> Bool {
        // A commit comes once, in version order; one that made no version comes with the last.
        assert(version >= stagedThrough, "version \(version) staged after \(stagedThrough): its record would be lost")
        guard version > stagedThrough else { return false }
        stagedThrough = version
        // Not the batch's writes: one may take the place of the write before it there.
        let start = turnRecords.appended
        let before = turn.count
        LogFormat.appendRecord(
            version: version, to: &turn,
            writes: { sink in
                // Each write encoded while it is still the caller's, then moved into the batch.
                sink.writeRaw(UInt8(ascii: "["))
                func add(_ write: consuming StoredWrite) -> Int {
                    let position = turnRecords.appended - start
                    if position > 0 { sink.writeRaw(UInt8(ascii: ",")) }
                    StoredWrite.encode(write, into: &sink, valueHead: &valueHead)
                    turnRecords.append(write)
                    return position
                }
                if !pendingTypes.isEmpty {
                    for type in pendingTypes { _ = add(type) }
                    pendingTypes.removeAll()
                }
                writes(add)
                sink.writeRaw(UInt8(ascii: "]"))
            }, history: history)
        turnRecords.endRecord(version: version)
        if stagedSizes.count == sizesRead {
            stagedSizes.removeAll(keepingCapacity: true)
            sizesRead = 0
        }
        stagedSizes.append((version, turn.count - before))
        return turnRecords.appended > start
    }

    /// The size of the record staged for `version`, 0 when none was; asked in version order
    /// (the history counts its bytes with it).
    public func stagedSize(of version: Int) -> Int {
        while sizesRead < stagedSizes.count, stagedSizes[sizesRead].version < version { sizesRead += 1 }
        guard sizesRead < stagedSizes.count, stagedSizes[sizesRead].version == version else { return 0 }
        sizesRead += 1
        return stagedSizes[sizesRead - 1].size
    }

    /// Whether records wait for `commit`.
    public var hasStaged: Bool { !turnRecords.isEmpty }

    /// Whether earlier turns wait for the disk (`writeBacklog`).
    public var hasBacklog: Bool { !backlog.isEmpty }

    /// The bytes of log records that wait for the disk: what a full disk makes the daemon hold.
    public private(set) var backlogBytes = 0

    /// Writes the turn's records to the log with one `write()`, synced as the fsync policy says.
    /// On failure — or while earlier turns wait for the disk — they are kept, in order, in the
    /// backlog, and the error says why.
    public func commit() throws(StoreError) {
        guard !turnRecords.isEmpty, log != nil else { return }
        // Written from the turn's own buffers, which the next turn reuses: a turn that must
        // wait keeps its bytes in the backlog, and the next turn gets a new buffer.
        defer {
            turn.removeAll(keepingCapacity: true)
            turnRecords.removeAll()
        }
        guard backlog.isEmpty else {
            keep(Pending(bytes: turn, records: turnRecords))
            throw StoreError(path: directory, "earlier changes still wait for the disk")
        }
        do throws(StoreError) {
            try write(&turn, records: &turnRecords)
        } catch {
            keep(Pending(bytes: turn, records: turnRecords))
            throw error
        }
    }

    /// Writes the oldest waiting turns, about `maxBytes` of them, with one `write()`; returns
    /// whether the backlog is now empty.
    public func writeBacklog(maxBytes: Int) throws(StoreError) -> Bool {
        guard !backlog.isEmpty else { return true }
        var chunk = Pending(bytes: JSONWriter(capacity: 0), records: FoldBatch())
        var taken = 0
        while taken < backlog.count, taken == 0 || chunk.bytes.count + backlog[taken].bytes.count <= maxBytes {
            chunk.bytes.writeRaw(backlog[taken].bytes)
            chunk.records.append(contentsOf: backlog[taken].records)
            taken += 1
        }
        try write(&chunk.bytes, records: &chunk.records)
        backlog.removeFirst(taken)
        backlogBytes -= chunk.bytes.count
        return backlog.isEmpty
    }

    private func keep(_ pending: Pending) {
        backlog.append(pending)
        backlogBytes += pending.bytes.count
    }

    /// Appends `bytes` to the log and queues `records` for the fold (`Folder.enqueue`: the batch
    /// must be emptied after). On a throw nothing was queued and `records` is as it was.
    /// `bytes` is `inout` though only read: passed by value from a property of the store, it was
    /// retained and released around the call (with `commit`'s binding of `log`, some 80
    /// instructions a turn, callgrind).
    private func write(_ bytes: inout JSONWriter, records: inout FoldBatch) throws(StoreError) {
        guard let log, let folder, let first = records.firstVersion, let last = records.lastVersion else { return }
        try bytes.withBytes { (bytes) throws(StoreError) in try log.append(UnsafeRawBufferPointer(bytes), first: first, last: last) }
        folder.enqueue(&records, head: log.head)
        commits += 1
        if log.segments.count > 1 && commits % 64 == 0 {
            log.prune(
                folded: folder.claimedVersion, versions: options.retainedVersions, bytes: options.retainedBytes)
        }
    }

    /// Writes what waits for the disk if it can, folds what is written, syncs the log and lets
    /// the data directory go. Returns the versions the disk did not take, which are lost.
    @discardableResult
    public func close() -> ClosedRange<Int>? {
        while (try? writeBacklog(maxBytes: 1 << 20)) == false {}
        let lost = backlog.first?.records.firstVersion.flatMap { first in backlog.last?.records.lastVersion.map { first...$0 } }
        folder?.stop()
        folder = nil
        log?.close()
        log = nil
        if lockDescriptor >= 0 { Glibc.close(lockDescriptor) }
        lockDescriptor = -1
        return lost
    }
}

/// A store problem, with the file it concerns and what to do.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    public let path: String
    public let reason: String
    /// The errno that caused it, when a system call failed (ENOSPC: the disk is full).
    public let code: Int32?

    init(path: String, _ reason: String, code: Int32? = nil) {
        self.path = path
        self.reason = reason
        self.code = code
    }

    public var description: String { "\(path): \(reason)" }
}
