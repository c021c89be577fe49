/// What one view's evaluation read, with the reasons each would give. A view reads a handful of
/// things, so a small array searched in order is cheaper than a dictionary (no hashing, one
/// allocation); the reverse index (`Graph.dependents`) is what scales with the tree.
struct DependencySet: Equatable {
    private(set) var entries: [(dependency: Dependency, reasons: Reasons)] = []

    static func == (a: DependencySet, b: DependencySet) -> Bool {
        a.entries.count == b.entries.count && zip(a.entries, b.entries).allSatisfy { $0.dependency == $1.dependency && $0.reasons == $1.reasons }
    }

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
            entries.append((dependency, .one(reason)))
        }
    }

    /// Adds `other`'s dependencies and reasons.
    mutating func merge(_ other: DependencySet) {
        for (dependency, reasons) in other.entries {
            for reason in reasons.all { note(dependency, reason) }
        }
    }
}
