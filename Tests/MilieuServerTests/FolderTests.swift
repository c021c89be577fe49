import MilieuJSON
import Synchronization
import Testing

@testable import MilieuStore

/// The fold thread on its own, against a stand-in for the snapshot.
struct FolderTests {
    /// Counts the batches folded; while folding its first, the loop queues `arriving`.
    private final class CountingTarget: FoldTarget {
        let batches = Mutex<[[Int]]>([])
        let folder = Mutex<Folder?>(nil)
        let arriving: [(version: Int, writes: [StoredWrite])]

        init(arriving: [(version: Int, writes: [StoredWrite])]) { self.arriving = arriving }

        func fold(_ records: [(version: Int, writes: [StoredWrite])], meta: [String: String]) throws(StoreError) {
            let first = batches.withLock { batches in
                batches.append(records.map(\.version))
                return batches.count == 1
            }
            if first, let folder = folder.withLock({ $0 }) { folder.enqueue(arriving, head: 1) }
        }

        func checkpoint() -> Bool { true }
    }

    private static func records(_ versions: ClosedRange<Int>) -> [(version: Int, writes: [StoredWrite])] {
        versions.map { ($0, [.value(view: "/App", name: "n", value: .int($0))]) }
    }

    /// Under steady writes a fold that chased the queue never slept: it folded and synced the
    /// snapshot every few records, on the daemon's CPU, and halved the throughput of
    /// persistent writes (issue #31). What arrives during a round waits for the next.
    @Test func aRoundFoldsWhatWasQueuedWhenItBeganNotWhatArrivesMeanwhile() {
        let target = CountingTarget(arriving: Self.records(4...6))
        // An hour between rounds: only `stop` runs one here.
        let folder = Folder(snapshot: target, folded: 0, head: 1, interval: 3600)
        target.folder.withLock { $0 = folder }
        folder.enqueue(Self.records(1...3), head: 1)
        folder.stop()
        #expect(target.batches.withLock { $0 } == [[1, 2, 3]])
        #expect(folder.foldedVersion == 3)
        target.folder.withLock { $0 = nil }
    }
}
