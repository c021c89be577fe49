/// What one view's evaluation read, with the reasons each would give. A view reads a handful of
/// things, so a small array searched in order is cheaper than a dictionary (no hashing, one
/// allocation); the reverse index (`Graph.dependents`) is what scales with the tree.
struct DependencySet: Equatable {
    /// One thing read and the reasons a change to it gives. A named struct rather than a tuple:
    /// copying and destroying its arrays then runs specialised code, not the runtime's generic tuple walk.
    struct Entry: Equatable {
        let dependency: Dependency
        var reasons: Reasons
    }

    private(set) var entries: [Entry] = []

    var isEmpty: Bool { entries.isEmpty }
    var dependencies: some Sequence<Dependency> { entries.lazy.map(\.dependency) }

    subscript(dependency: Dependency) -> Reasons? {
        entries.first { $0.dependency == dependency }?.reasons
    }

    func contains(_ dependency: Dependency) -> Bool { entries.contains { $0.dependency == dependency } }

    /// Records that `dependency` was read, giving `reason`.
    mutating func note(_ dependency: Dependency, _ reason: String) {
        if let index = entries.firstIndex(where: { $0.dependency == dependency }) {
            entries[index].reasons = entries[index].reasons.adding(reason)
        } else {
            // Most bodies read two or three things: start with room for two rather than regrow at once.
            if entries.isEmpty { entries.reserveCapacity(2) }
            entries.append(Entry(dependency: dependency, reasons: .one(reason)))
        }
    }

    /// Adds `other`'s dependencies and reasons.
    mutating func merge(_ other: DependencySet) {
        for entry in other.entries {
            for reason in entry.reasons.all { note(entry.dependency, reason) }
        }
    }
}
