import CMilieuShims
import MilieuEngine
import MilieuJSON

/// The last committed transactions, so that a watch can resume from a version it saw
/// (`watch` with `sinceVersion`) instead of reading everything again. With a data directory
/// it is fed from the log at start, so it reaches back across restarts (SPEC §11.4). It keeps
/// the newest `capacity` versions, and of those no more than `maxBytes` of log records.
struct History {
    /// A commit, its log record's size and what made it, when known (`graph/explain`): one
    /// entry, so that a commit is appended once (three arrays cost three appends and copies).
    private struct Entry {
        /// The commit's version, beside it: the searches read it without reaching into the commit,
        /// which `letGo` takes away.
        let version: Version
        /// nil once the commit falls out of the retention (`letGo`), before `start`.
        var commit: Commit?
        let size: Int
        /// Where the commit lies, kept beside it: reading it from the commit when the time comes
        /// would touch the commit, and so wait for the memory it is there to fetch ahead.
        let footprint: Commit.Footprint
        var cause: StoredCause?

        /// Moves the commit out and drops what made it: the entry holds nothing any more.
        mutating func letGo() -> Commit? {
            cause = nil
            return commit.take()
        }
    }

    private var entries: [Entry] = []
    /// Index of the oldest commit held; the ones before it are dropped lazily.
    private var start = 0
    private var bytes = 0
    let capacity: Int
    let maxBytes: Int

    /// How many appends ahead the history asks the CPU for the memory of the commit that goes
    /// then (`Commit.Footprint`). Letting the oldest go reads memory last touched 10,000 writes
    /// before: waiting for it was 2.8% of the daemon's time with 50 clients writing (perf). A
    /// turn publishes its commits one after another, some hundreds of nanoseconds apart, about
    /// what a read from memory takes: one ahead (the next to go) still left a third of the wait,
    /// four left none.
    static let prefetchAhead = 4

    init(capacity: Int, maxBytes: Int = .max) {
        self.capacity = max(0, capacity)
        self.maxBytes = maxBytes
    }

    /// Adds the newest commit, moved in with what made it; `size` is its log record's size (0
    /// without a log). Each commit that falls out of the retention is moved out to `evicted`
    /// (`Graph.recycle`): nothing is copied, where a copy of each and a placeholder in its place
    /// cost some 150 instructions a write (callgrind).
    mutating func append(
        _ commit: consuming Commit, size: Int = 0, cause: consuming StoredCause? = nil, evicted: (consuming Commit) -> Void = { _ in }
    ) {
        guard capacity > 0 else { return }
        let footprint = commit.footprint
        entries.append(Entry(version: commit.version, commit: commit, size: size, footprint: footprint, cause: cause))
        bytes += size
        while entries.count - start > capacity || (bytes > maxBytes && entries.count - start > 1) {
            bytes -= entries[start].size
            // Let go of what it holds now (a mount of 100k views holds 100k changes); its slot,
            // which nothing reads again, goes when the array is compacted below.
            if let oldest = entries[start].letGo() { evicted(oldest) }
            start += 1
            // The commit at `start` goes at the next append; the one that goes `prefetchAhead` later is fetched now.
            let ahead = start + Self.prefetchAhead - 1
            if ahead < entries.count { milieu_prefetch(entries[ahead].footprint.start, entries[ahead].footprint.count) }
        }
        if start > 1024 && start * 2 > entries.count {
            entries.removeFirst(start)
            start = 0
        }
    }

    /// Lets go of every commit held: a watch can then resume only from the current version.
    mutating func removeAll() {
        entries.removeAll()
        start = 0
        bytes = 0
    }

    /// How many changes the history keeps in memory, those of commits past its retention that
    /// wait for the array's compaction included: what its memory is in proportion to.
    var changesInMemory: Int { entries.reduce(0) { $0 + ($1.commit?.changes.count ?? 0) } }

    /// The newest version held, if any.
    var newest: Version? { entries.count > start ? entries[entries.count - 1].version : nil }

    /// The oldest version still held, if any.
    var oldest: Version? { entries.count > start ? entries[start].version : nil }

    /// The commit of `version` and what made it; nil when it is not held.
    func entry(_ version: Version) -> (commit: Commit, cause: StoredCause?)? {
        let index = firstIndex(after: Version(version.rawValue - 1))
        guard index < entries.count, entries[index].version == version, let commit = entries[index].commit else { return nil }
        return (commit, entries[index].cause)
    }

    /// The index of the first commit held after `version`.
    private func firstIndex(after version: Version) -> Int {
        entries[start...].partitionIndex { $0.version <= version }
    }

    /// The commits after `version` through `current` with what made each, oldest first; nil when
    /// some of them are not held (no longer, or never: the history stops short of `current`).
    func entries(after version: Version, current: Version) -> [(commit: Commit, cause: StoredCause?)]? {
        guard version < current else { return [] }
        guard let oldest, oldest <= version.next, newest == current else { return nil }
        let first = firstIndex(after: version)
        return entries[first...].compactMap { entry in entry.commit.map { ($0, entry.cause) } }
    }
}
