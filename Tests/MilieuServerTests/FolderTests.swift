import Foundation
import MilieuJSON
import Synchronization
import Testing

@testable import MilieuStore

/// The fold thread on its own, against a stand-in for the snapshot.
struct FolderTests {
    /// Counts the batches it is given; while folding its first, the loop queues `arriving`,
    /// and that first fold fails when `failsFirst` (a full disk). Its checkpoints answer
    /// `checkpoints` in turn, then finish.
    private final class CountingTarget: FoldTarget {
        let batches = Mutex<[[Int]]>([])
        /// The `checkpointed` each batch recorded in `meta`.
        let claims = Mutex<[String?]>([])
        let folder = Mutex<Folder?>(nil)
        let arriving: FoldBatch
        let failsFirst: Bool
        let checkpoints: Mutex<[Bool]>

        init(arriving: FoldBatch, failsFirst: Bool = false, checkpoints: [Bool] = []) {
            self.arriving = arriving
            self.failsFirst = failsFirst
            self.checkpoints = Mutex(checkpoints)
        }

        func fold(_ queue: FoldQueue, records range: Range<Int>, meta: [String: String]) throws(StoreError) {
            let first = batches.withLock { batches in
                batches.append(range.map(queue.version(at:)))
                return batches.count == 1
            }
            claims.withLock { $0.append(meta["checkpointed"]) }
            guard first else { return }
            if let folder = folder.withLock({ $0 }) {
                var batch = arriving
                folder.enqueue(&batch, head: 1)
            }
            if failsFirst { throw StoreError(path: "stand-in", "No space left on device", code: 28) }
        }

        func checkpoint() -> Bool { checkpoints.withLock { $0.isEmpty ? true : $0.removeFirst() } }
    }

    /// Queues a record of each of `versions` in `folder`, as a turn's.
    private static func enqueue(_ versions: ClosedRange<Int>, to folder: Folder) {
        var batch = records(versions)
        folder.enqueue(&batch, head: 1)
    }

    private static func records(_ versions: ClosedRange<Int>) -> FoldBatch {
        var batch = FoldBatch()
        for version in versions {
            batch.append(.value(view: "/App", name: "n", value: .int(version)))
            batch.endRecord(version: version)
        }
        return batch
    }

    /// A queue of `turns`, each of one record of the version given and its writes, queued as the
    /// store queues a turn's batch.
    private static func queue(_ turns: some Sequence<(version: Int, writes: [StoredWrite])>) -> FoldQueue {
        var queue = FoldQueue()
        var batch = FoldBatch()
        for (version, writes) in turns {
            for write in writes { batch.append(write) }
            batch.endRecord(version: version)
            queue.append(&batch)
            batch.removeAll()
        }
        return queue
    }

    /// Each record of `queue`: its version and its writes.
    private static func contents(_ queue: FoldQueue) -> [(Int, [StoredWrite])] {
        var contents: [(Int, [StoredWrite])] = []
        queue.forEachRecord(in: 0..<queue.count) { version, turn, writes in contents.append((version, Array(turn[writes]))) }
        return contents
    }

    /// A turn's records share one array of writes: each comes out of the queue with its own, a
    /// batch added after another keeps them apart, a turn's writes stay queued when its batch is
    /// emptied and filled again for the next turn (whether the queue took them one by one or
    /// was handed the array), and what is left from a record on (a failed fold's) keeps each record's own.
    @Test func aQueueHandsEachRecordItsOwnWrites() {
        var batch = FoldBatch()
        batch.append(.value(view: "/App", name: "a", value: 1))
        batch.append(.version(view: "/App", name: "b"))
        batch.endRecord(version: 7)
        batch.endRecord(version: 8)
        var later = FoldBatch()
        later.append(.removeView(path: "/App/Doc"))
        later.endRecord(version: 9)
        batch.append(contentsOf: later)
        var queue = FoldQueue()
        let room = batch.writes.capacity
        queue.append(&batch)
        #expect(batch.writes.isEmpty && batch.writes.capacity == room, "moved out, the array kept")
        batch.removeAll()
        #expect(batch.isEmpty && batch.writes.capacity == room)
        batch.append(.value(view: "/App", name: "c", value: 3))
        batch.endRecord(version: 10)
        #expect(batch.firstVersion == 10 && batch.lastVersion == 10 && batch.writes.count == 1)
        queue.append(&batch)
        // More writes than a turn moves one by one: its array is handed over, then a new one is filled.
        var large = FoldBatch()
        let many = (0...FoldBatch.movedWrites).map { StoredWrite.value(view: "/App", name: "d\($0)", value: .int($0)) }
        for write in many { large.append(write) }
        large.endRecord(version: 11)
        queue.append(&large)
        large.removeAll()
        large.append(.removeView(path: "/App/Other"))
        large.endRecord(version: 12)
        queue.append(&large)
        queue.append(version: 13, writes: [.version(view: "/App", name: "")])
        let all = Self.contents(queue)
        #expect(all.map(\.0) == [7, 8, 9, 10, 11, 12, 13])
        #expect(
            all.map(\.1) == [
                [.value(view: "/App", name: "a", value: 1), .version(view: "/App", name: "b")], [], [.removeView(path: "/App/Doc")],
                [.value(view: "/App", name: "c", value: 3)], many, [.removeView(path: "/App/Other")], [.version(view: "/App", name: "")],
            ])
        var rest = queue.suffix(from: 2)
        rest.append(contentsOf: queue.suffix(from: 5))
        let kept = Self.contents(rest)
        #expect(kept.map(\.0) == [9, 10, 11, 12, 13, 12, 13])
        #expect(kept.map(\.1) == Array(all[2...].map(\.1) + all[5...].map(\.1)))
        #expect(Self.contents(queue.suffix(from: 7)).isEmpty)
    }

    /// One key set turn after turn, with a turn that writes nothing between each two: each
    /// write takes the place of the last one's, so that no transaction may end between them
    /// (`FoldQueue.batchEnd`) — but only until `Folder.batch` records have gone by without a
    /// cut, the silent turns' cuts, which a later write takes away, not counted; so a long
    /// queue is still folded in transactions of about that many records.
    @Test func aKeySetTurnAfterTurnIsQueuedOnceAFoldsTransaction() {
        let turns = Folder.batch + 10
        let queue = Self.queue(
            (1...turns).lazy.map { version in (version, version % 2 == 1 ? [.value(view: "/App", name: "n", value: .int(version))] : []) })
        var queued: [StoredWrite] = []
        queue.forEachRecord(in: 0..<queue.count) { _, turn, writes in queued += turn[writes] }
        #expect(queue.count == turns)
        // The write of record 65534 (version 65535) stays: the next would have left 65536 records without a cut.
        #expect(queued == [Folder.batch - 1, turns - 1].map { StoredWrite.value(view: "/App", name: "n", value: .int($0)) })
        #expect(queue.batchEnd(from: 0, limit: 100) == Folder.batch - 1, "the first cut after the limit")
        #expect(queue.batchEnd(from: 0, limit: Folder.batch) == Folder.batch)
        #expect(queue.batchEnd(from: Folder.batch, limit: 100) == turns)
    }

    /// What is left of a queue from a cut on (a failed fold's), and the queue that arrived
    /// meanwhile after it, keep their cuts where their records went.
    @Test func aQueueLeftAfterAFailedFoldKeepsItsCuts() {
        // Two turns of one key (the second takes the first's write), then four of a key each.
        let queue = Self.queue(zip(1...6, ["a", "a", "b", "c", "d", "e"]).map { ($0, [.value(view: "/App", name: $1, value: .int($0))]) })
        #expect((0..<6).map { queue.batchEnd(from: $0, limit: 0) } == [2, 2, 3, 4, 5, 6], "no cut at the second turn")
        var rest = queue.suffix(from: 2)
        #expect(rest.count == 4 && (0..<4).map { rest.batchEnd(from: $0, limit: 0) } == [1, 2, 3, 4])
        rest.append(contentsOf: queue.suffix(from: 0))
        #expect(rest.count == 10 && (0..<10).map { rest.batchEnd(from: $0, limit: 0) } == [1, 2, 3, 4, 6, 6, 7, 8, 9, 10])
    }

    /// Under steady writes a fold that chased the queue never slept: it folded and synced the
    /// snapshot every few records, on the daemon's CPU, and halved the throughput of
    /// persistent writes (issue #31). What arrives during a round waits for the next.
    @Test func aRoundFoldsWhatWasQueuedWhenItBeganNotWhatArrivesMeanwhile() {
        let target = CountingTarget(arriving: Self.records(4...6))
        // An hour between rounds: only `stop` runs one here.
        let folder = Folder(snapshot: target, checkpointed: 0, claimed: 0, head: 1, interval: 3600)
        target.folder.withLock { $0 = folder }
        Self.enqueue(1...3, to: folder)
        folder.stop()
        #expect(target.batches.withLock { $0 } == [[1, 2, 3]])
        target.folder.withLock { $0 = nil }
    }

    /// Waits, at most 30 s, until `target` has been given `count` batches.
    private static func waitForBatches(_ count: Int, of target: CountingTarget) {
        let deadline = ContinuousClock.now + .seconds(30)
        while target.batches.withLock({ $0.count }) < count && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.005) }
    }

    /// A checkpoint that does not finish (a reader holds the WAL) leaves the main file short:
    /// the next batch records what the last finished one synced, and the log keeps the rest.
    @Test func aCheckpointThatDoesNotFinishSyncsNothing() {
        let target = CountingTarget(arriving: FoldBatch(), checkpoints: [false])
        let folder = Folder(snapshot: target, checkpointed: 2, claimed: 2, head: 1, interval: 0.01)
        Self.enqueue(3...5, to: folder)
        Self.waitForBatches(1, of: target)
        Self.enqueue(6...7, to: folder)
        Self.waitForBatches(2, of: target)
        Self.enqueue(8...9, to: folder)
        folder.stop()
        #expect(target.batches.withLock { $0 } == [[3, 4, 5], [6, 7], [8, 9]])
        #expect(target.claims.withLock { $0 } == ["2", "2", "7"])
        #expect(folder.claimedVersion == 7)
    }

    /// A batch records as checkpointed what the batch before it synced, not its own last
    /// version: a crash during its checkpoint may leave the main file with part of it (see
    /// `Folder`). What the main file says once a batch is checkpointed is what the log must keep
    /// the records after.
    @Test func aBatchClaimsWhatTheBatchBeforeItSynced() {
        let target = CountingTarget(arriving: FoldBatch())
        let folder = Folder(snapshot: target, checkpointed: 2, claimed: 2, head: 1, interval: 3600)
        Self.enqueue(3...5, to: folder)
        folder.stop()
        #expect(folder.claimedVersion == 2)
        let again = Folder(snapshot: target, checkpointed: 2, claimed: 2, head: 1, interval: 0.01)
        Self.enqueue(3...5, to: again)
        Self.waitForBatches(2, of: target)
        Self.enqueue(6...7, to: again)
        again.stop()
        #expect(target.batches.withLock { $0 } == [[3, 4, 5], [3, 4, 5], [6, 7]])
        #expect(target.claims.withLock { $0 } == ["2", "2", "5"])
        #expect(again.claimedVersion == 5)
    }

    /// A batch that fails to fold goes back to the queue's front, before what arrived during
    /// it, and a later round folds them all, in order.
    @Test func aFailedBatchIsFoldedLaterBeforeWhatArrivedDuringIt() throws {
        let target = CountingTarget(arriving: Self.records(4...6), failsFirst: true)
        let folder = Folder(snapshot: target, checkpointed: 0, claimed: 0, head: 1, interval: 0.01)
        target.folder.withLock { $0 = folder }
        Self.enqueue(1...3, to: folder)
        Self.waitForBatches(2, of: target)
        folder.stop()
        #expect(target.batches.withLock { $0 } == [[1, 2, 3], [1, 2, 3, 4, 5, 6]])
        #expect(target.claims.withLock { $0 } == ["0", "0"], "the failed batch synced nothing")
        target.folder.withLock { $0 = nil }
    }
}
