import MilieuEngine

/// The last committed transactions, so that a watch can resume from a version it saw
/// (`watch` with `sinceVersion`) instead of reading everything again.
struct History {
    private var commits: [Commit] = []
    private var start = 0
    let capacity: Int

    init(capacity: Int) { self.capacity = max(0, capacity) }

    mutating func append(_ commit: Commit) {
        guard capacity > 0 else { return }
        if commits.count < capacity {
            commits.append(commit)
        } else {
            commits[start] = commit
            start = (start + 1) % capacity
        }
    }

    /// The newest version held, if any.
    var newest: Version? {
        guard !commits.isEmpty else { return nil }
        return commits[(start + commits.count - 1) % commits.count].version
    }

    /// The oldest version still held, if any.
    var oldest: Version? { commits.isEmpty ? nil : commits[start].version }

    /// The commits after `version`, oldest first; nil when some of them are no longer held.
    func commits(after version: Version, current: Version) -> [Commit]? {
        guard version < current else { return [] }
        let ordered = Array(commits[start...] + commits[..<start])
        guard let first = ordered.first, first.version <= version.next else { return nil }
        return ordered.filter { $0.version > version }
    }
}
