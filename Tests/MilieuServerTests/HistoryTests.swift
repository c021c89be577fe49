import MilieuEngine
import Testing

@testable import MilieuServer

/// The history of commits resumable watches replay (SPEC §11.4): bounded by its retention.
@Suite struct HistoryTests {
    private static func mount(_ version: Int, views: Int) -> Commit {
        Commit(
            version: Version(version),
            changes: (0..<views).map { .viewMounted(view: "/App/Rows/Row[\($0)]", reason: .mounted, body: ["\($0)"]) })
    }

    /// A commit past the retention lets go of its changes at once: a mount of many views left in
    /// the array until a later compaction held them all (`--history 1` kept what 1024 did).
    @Test func aCommitPastTheRetentionLetsGoOfItsChanges() {
        var history = History(capacity: 1)
        history.append(Self.mount(2, views: 1000))
        history.append(Self.mount(3, views: 1))
        #expect(history.changesInMemory == 1)
        #expect(history.oldest == Version(3) && history.entry(Version(2)) == nil)
    }

    /// Each commit that falls out of the retention, by count or by bytes, is handed over as it
    /// goes, oldest first (the daemon gives it back to the graph to reuse).
    @Test func eachCommitPastTheRetentionIsHandedOver() {
        var history = History(capacity: 2, maxBytes: 100)
        var evicted: [Int] = []
        for version in 1...4 { history.append(Self.mount(version, views: 1), size: 10) { evicted.append($0.version.rawValue) } }
        #expect(evicted == [1, 2])
        history.append(Self.mount(5, views: 1), size: 95) { evicted.append($0.version.rawValue) }
        #expect(evicted == [1, 2, 3, 4])
        #expect(history.oldest == Version(5))
    }

    /// A resume is served only from versions the history holds through the current one: one that
    /// stops short of it (a log cut by a power loss) cannot say what came between.
    @Test func aResumeNeedsEveryVersionThroughTheCurrentOne() {
        var history = History(capacity: 10)
        for version in 2...4 { history.append(Self.mount(version, views: 1)) }
        #expect(history.entries(after: Version(2), current: Version(4))?.map(\.commit.version) == [Version(3), Version(4)])
        #expect(history.entries(after: Version(2), current: Version(6)) == nil)
        #expect(history.entries(after: Version(6), current: Version(6))?.isEmpty == true)
        history.removeAll()
        #expect(history.oldest == nil && history.entries(after: Version(3), current: Version(4)) == nil)
    }

    /// What made a commit goes with it when it falls out of the retention, not at a later
    /// compaction of the array.
    @Test func whatMadeACommitGoesWithIt() {
        var history = History(capacity: 1)
        weak var first: StoredCause?
        do {
            let cause = StoredCause(closing: 7)
            first = cause
            history.append(Self.mount(2, views: 1), cause: cause)
        }
        #expect(first != nil && history.entry(Version(2))?.cause === first)
        history.append(Self.mount(3, views: 1), cause: StoredCause(closing: 8))
        #expect(first == nil, "the evicted commit's cause is released")
        #expect(history.entry(Version(3))?.cause?.connection == 8)
    }
}
