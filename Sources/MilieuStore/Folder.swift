import MilieuJSON
import Synchronization

/// Log records as the store stages them for the fold: the writes of all of them in one array,
/// in order — but for a value that took the place of the one before it (`append`) — and each
/// record's version and where its writes end. One array a turn rather than one a record: a
/// `graph/set`'s own array cost an allocation and some 500 instructions.
struct FoldBatch {
    private(set) var writes: [StoredWrite] = []
    private var ends: [(version: Int, end: Int)] = []
    /// How many writes `append` was given, those that took another's place too: whether a
    /// record added any (`Store.stage`) is a difference of two counts.
    private(set) var appended = 0

    var isEmpty: Bool { ends.isEmpty }
    var firstVersion: Int? { ends.first?.version }
    var lastVersion: Int? { ends.last?.version }

    /// Adds a write to the record being staged. A value of the key the last write set takes
    /// that write's place (`StoredWrite.supersedes`): a record that ended with it now ends
    /// before it, as does each record after it, which had no writes.
    mutating func append(_ write: consuming StoredWrite) {
        appended += 1
        guard let last = writes.indices.last, write.supersedes(writes[last]) else {
            writes.append(write)
            return
        }
        var record = ends.count - 1
        while record >= 0, ends[record].end == writes.count {
            ends[record].end -= 1
            record -= 1
        }
        writes[last] = write
    }

    /// Ends the record of `version`: the writes appended since the last one ended are its.
    mutating func endRecord(version: Int) { ends.append((version, writes.count)) }

    /// Adds `other`'s records after these.
    mutating func append(contentsOf other: FoldBatch) {
        let offset = writes.count
        writes += other.writes
        for (version, end) in other.ends { ends.append((version, end + offset)) }
    }

    /// Hands each record's version and the positions of its writes to `body`, in order.
    func forEachRecord(_ body: (_ version: Int, _ writes: Range<Int>) -> Void) {
        var start = 0
        for (version, end) in ends {
            body(version, start..<end)
            start = end
        }
    }

    /// The most writes a turn's batch moves to the fold one by one (`FoldQueue.append`), keeping
    /// its array for the next turn, rather than handing the array over: a new array for a turn
    /// of one write cost about 370 instructions (callgrind).
    static let movedWrites = 4

    /// The room a new turn's writes start with at most, after a turn that handed its array over:
    /// twice that turn's count (a turn whose writes were moved keeps its room), so that a
    /// turn of many pipelined writes does not grow its array from nothing (each doubling copied
    /// every write so far, some 200 instructions a write), nor grow it again whenever it holds a
    /// few more than the last (45 instructions a write, callgrind), but not the size of a rare
    /// huge turn.
    static let reservedWrites = 1024

    /// Moves the writes, in order, to the end of `target`, leaving the batch's array empty with
    /// its room kept (its records' ends stay, for `removeAll`). Each is swapped out for a write
    /// that holds no reference, then those are dropped: `removeFirst` copied each write and
    /// destroyed it in place, some 210 instructions.
    mutating func moveWrites(appendingTo target: inout [StoredWrite]) {
        for index in writes.indices {
            var write = StoredWrite.removeView(path: "")
            swap(&write, &writes[index])
            target.append(write)
        }
        while !writes.isEmpty { writes.removeLast() }
    }

    /// Empties the batch for the next turn. Writes still here were handed over in their array
    /// (or kept for the disk), and get new storage, for twice the last turn's: the fold still
    /// holds the old, and appending to it would copy it whole.
    mutating func removeAll() {
        if !writes.isEmpty {
            let count = writes.count
            writes = []
            writes.reserveCapacity(min(2 * count, Self.reservedWrites))
        }
        ends.removeAll(keepingCapacity: true)
    }
}

/// Written records waiting for the fold: arrays of writes — a turn's as it handed it over, or
/// the queue's own that small turns' writes were moved into — and each record's version, the
/// array its writes are in and their positions there. A record is four integers, not a slice
/// of its turn's writes: a slice a record cost a retain on the event loop and, with the tuple
/// that held it, some 220 instructions a write to destroy on the fold's thread (callgrind).
///
/// A write that took the place of an earlier record's (`StoredWrite.supersedes`) leaves that
/// record without it: the records up to it alone are not the state at its version. So a fold
/// that commits part of the queue ends it at a cut (`batchEnd`): a record such that none from
/// it on took a write of a record before it.
struct FoldQueue {
    private var turns: [[StoredWrite]] = []
    private var records: [(version: Int, turn: Int, writes: Range<Int>)] = []
    /// Whether the last of `turns` is the queue's own, which the writes of small turns are
    /// moved into.
    private var ownsLastTurn = false
    /// The records a fold may begin a transaction at, in order: the first of each turn but
    /// those a later turn took a write from before (the end of the queue is one too, unstored).
    private var cuts: [Int] = []

    var count: Int { records.count }

    func version(at record: Int) -> Int { records[record].version }

    /// Where a transaction that begins at `start` (a cut) ends: at the last cut at most `limit`
    /// records on, or, where there is none, at the first one after that.
    func batchEnd(from start: Int, limit: Int) -> Int {
        guard start + limit < records.count else { return records.count }
        let past = cuts.partitionIndex { $0 <= start + limit }
        if past > 0, cuts[past - 1] > start { return cuts[past - 1] }
        return past < cuts.count ? cuts[past] : records.count
    }

    /// Adds a turn's records after these: its array of writes, or, for a few writes
    /// (`FoldBatch.movedWrites`), the writes moved into an array of the queue's own, so that
    /// the turn keeps its array.
    mutating func append(_ batch: inout FoldBatch) {
        guard batch.writes.count <= FoldBatch.movedWrites else {
            let turn = turns.count
            turns.append(batch.writes)
            ownsLastTurn = false
            cuts.append(records.count)
            batch.forEachRecord { records.append(($0, turn, $1)) }
            return
        }
        if !ownsLastTurn {
            turns.append([])
            ownsLastTurn = true
        }
        let turn = turns.count - 1
        if !takeLastWrite(for: batch, in: turn) { cuts.append(records.count) }
        let offset = turns[turn].count
        batch.moveWrites(appendingTo: &turns[turn])
        batch.forEachRecord { records.append(($0, turn, $1.lowerBound + offset..<$1.upperBound + offset)) }
    }

    /// Drops the last write of the queue's own array, `turn`, if the batch's first write takes
    /// its place, as in `FoldBatch.append` (only the first can: a turn's own writes did so
    /// already among themselves); returns whether it did. The records from the one that had it
    /// on end before it, and no transaction may end among them. Not if that would leave
    /// `Folder.batch` records or more without a cut, which keeps a fold's transactions about
    /// that size.
    private mutating func takeLastWrite(for batch: borrowing FoldBatch, in turn: Int) -> Bool {
        guard let first = batch.writes.indices.first, let last = turns[turn].indices.last,
            batch.writes[first].supersedes(turns[turn][last])
        else { return false }
        // The record that has it: the records after it have no writes.
        var holder = records.count - 1
        while records[holder].writes.isEmpty { holder -= 1 }
        guard records.count - (cuts.last { $0 <= holder } ?? 0) < Folder.batch else { return false }
        turns[turn].removeLast()
        for record in holder..<records.count {
            records[record].writes = min(records[record].writes.lowerBound, last)..<last
        }
        while let cut = cuts.last, cut > holder { cuts.removeLast() }
        return true
    }

    /// Adds a record of its own (one read back from the log).
    mutating func append(version: Int, writes: [StoredWrite]) {
        cuts.append(records.count)
        records.append((version, turns.count, 0..<writes.count))
        turns.append(writes)
        ownsLastTurn = false
    }

    /// Adds `other`'s records after these.
    mutating func append(contentsOf other: FoldQueue) {
        let (offset, recordOffset) = (turns.count, records.count)
        cuts += other.cuts.lazy.map { $0 + recordOffset }
        turns += other.turns
        records += other.records.lazy.map { ($0.version, $0.turn + offset, $0.writes) }
        ownsLastTurn = false
    }

    /// The records from `record` (a cut) on.
    func suffix(from record: Int) -> FoldQueue {
        var rest = FoldQueue()
        guard record < records.count else { return rest }
        let first = records[record].turn
        rest.turns = Array(turns[first...])
        rest.records = records[record...].map { ($0.version, $0.turn - first, $0.writes) }
        rest.cuts = cuts.filter { $0 >= record }.map { $0 - record }
        return rest
    }

    /// Hands each record of `range` to `body`, in order: its version, the array its writes are
    /// in and where they are there (read them by index: a switch on the element then binds
    /// only what it reads).
    func forEachRecord<E: Error>(
        in range: Range<Int>, _ body: (_ version: Int, _ turn: [StoredWrite], _ writes: Range<Int>) throws(E) -> Void
    ) throws(E) {
        for index in range {
            let record = records[index]
            try body(record.version, turns[record.turn], record.writes)
        }
    }
}

/// What the fold writes into: the snapshot (a test's stand-in counts the batches).
protocol FoldTarget: Sendable {
    /// Folds `queue`'s records in `range`, in one transaction, with the `meta` entries given.
    func fold(_ queue: FoldQueue, records range: Range<Int>, meta: [String: String]) throws(StoreError)
    /// Copies the WAL into the main file and syncs it; whether all of it was copied.
    func checkpoint() -> Bool
}

extension Snapshot: FoldTarget {}

/// The fold: a thread with the snapshot's connection that applies written log records to
/// SQLite in batches, off the event loop, records in `meta` the version folded through, the
/// version `checkpointed` and the newest segment, then checkpoints the WAL.
///
/// `checkpointed` is the version the main file held everything through, synced, when the
/// batch began: the batch before it's. A crash during a checkpoint can leave the main file
/// with some of a batch's pages and not others, `meta`'s among them; were the WAL then lost
/// (deleted, or left behind by a copy), the main file would say it is folded through versions
/// whose values it lacks. So a start folds again the records after `checkpointed`, and the log
/// keeps them until the main file says a later version is checkpointed.
final class Folder: Sendable {
    private struct Shared {
        var queue = FoldQueue()
        /// The first version of the newest segment, for `meta` (a missing newest segment is then noticed).
        var head = 0
    }

    /// Records folded per transaction, about (`FoldQueue.batchEnd`: a transaction ends where
    /// a turn begins); a fuller queue wakes the thread early.
    static let batch = 65536
    /// How often the thread folds. Each fold syncs the WAL and the main file once (its
    /// checkpoint), and on a virtual machine a sync costs the daemon CPU: so rarely, in big
    /// batches, as Redis rewrites its file in the background.
    static let interval = 1.0

    /// What the loop thread and the fold thread share.
    private final class Work: Sendable {
        let shared = Mutex(Shared())
        /// The version the main file holds everything through, synced: the last checkpointed
        /// batch's. Only the fold thread uses it (atomic to be `Sendable`).
        let synced: Atomic<Int>
        /// The `checkpointed` the main file's `meta` says, synced: what the last checkpointed
        /// batch recorded, the `synced` of the batch before it.
        let claimed: Atomic<Int>
        let snapshot: any FoldTarget

        init(snapshot: any FoldTarget, checkpointed: Int, claimed: Int, head: Int) {
            self.snapshot = snapshot
            synced = Atomic(checkpointed)
            self.claimed = Atomic(claimed)
            shared.withLock { $0.head = head }
        }

        /// Folds what was queued when it began, a batch per transaction. It takes the queue
        /// whole, leaving the loop an empty one, so that the lock is held for no copy; a failed
        /// batch and those after it go back to the queue's front. What the loop queues
        /// meanwhile waits for the next round: a fold that chased the queue under steady writes
        /// never slept, and synced the snapshot every few records, on the daemon's CPU.
        func run() {
            let (queue, head) = shared.withLock { state in
                defer { state.queue = FoldQueue() }
                return (state.queue, state.head)
            }
            var start = 0
            while start < queue.count {
                let end = queue.batchEnd(from: start, limit: Folder.batch)
                let before = synced.load(ordering: .relaxed)
                // A fold that fails (a full disk) leaves the records queued for the next
                // round; the log holds them meanwhile, and start-up folds them in any case.
                guard
                    (try? snapshot.fold(queue, records: start..<end, meta: ["head": String(head), "checkpointed": String(before)])) != nil
                else {
                    shared.withLock { state in
                        var kept = queue.suffix(from: start)
                        kept.append(contentsOf: state.queue)
                        state.queue = kept
                    }
                    return
                }
                if snapshot.checkpoint() {
                    synced.store(queue.version(at: end - 1), ordering: .relaxed)
                    claimed.store(before, ordering: .releasing)
                }
                start = end
            }
        }
    }

    private let work: Work
    private let thread: BackgroundThread

    /// Folds into `snapshot` every `interval` seconds; the main file holds everything through
    /// `checkpointed`, synced, and its `meta` says `claimed` is.
    init(snapshot: any FoldTarget, checkpointed: Int, claimed: Int, head: Int, interval: Double = Folder.interval) {
        let work = Work(snapshot: snapshot, checkpointed: checkpointed, claimed: claimed, head: head)
        self.work = work
        thread = BackgroundThread(interval: interval) { work.run() }
        thread.start()
    }

    /// Queues records that are in the log, to be folded: a few writes are moved out of `batch`,
    /// more are shared with it (`FoldQueue.append`). Either way the batch must then be emptied
    /// (`FoldBatch.removeAll`) before it is used again.
    func enqueue(_ batch: inout FoldBatch, head: Int) {
        let backlog = work.shared.withLock { state in
            state.queue.append(&batch)
            state.head = head
            return state.queue.count
        }
        if backlog >= Self.batch { thread.wake() }
    }

    /// The `checkpointed` version the main file's `meta` says, synced: the log may drop only
    /// what is at or before it, since a start folds the records after it again.
    var claimedVersion: Int { work.claimed.load(ordering: .acquiring) }

    /// Folds what is queued and ends the thread.
    func stop() { thread.stop() }
}
