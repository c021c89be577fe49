/// What one view's evaluation read, with the reasons each would give. A view reads a handful of
/// things, so a small array searched in order is cheaper than a dictionary (no hashing, one
/// allocation); the reverse index (`Graph.dependents`) is what scales with the tree.
///
/// Most views read their own `@State`, and a row of a list often reads nothing else. Those reads
/// are bits, not entries: bit i for the view's variable i (the first 64 variables; reads of
/// later ones are entries). Their reason is always `_<name>` of the variable
/// (`ReadPath.variableReason`, checked by `ReadRecorder` in debug builds), so it is made again
/// when asked for (`ViewNode.reasons(for:)`), and a view that reads only its own state carries
/// no array at all: 176 bytes a row of a list, where the array and its one entry took them.
struct DependencySet: Equatable {
    /// One thing read and the reasons a change to it gives. A named struct rather than a tuple:
    /// copying and destroying its arrays then runs specialised code, not the runtime's generic tuple walk.
    struct Entry: Equatable {
        let dependency: Dependency
        var reasons: Reasons
    }

    /// What was read besides the view's own `@State` variables that `ownState` holds.
    private(set) var entries: [Entry] = []
    /// Bit i: the view read its own `@State` variable i.
    private var ownState: UInt64 = 0

    /// How many of a view's variables `ownState` has a bit for.
    static let ownStateBits = UInt64.bitWidth

    var isEmpty: Bool { entries.isEmpty && ownState == 0 }
    /// The dependencies of `entries`: everything read but the view's own state that the bits hold.
    var dependencies: some Sequence<Dependency> { entries.lazy.map(\.dependency) }

    /// The reasons of an entry; nil for the view's own state that the bits hold (`ViewNode.reasons(for:)`).
    subscript(dependency: Dependency) -> Reasons? {
        entries.first { $0.dependency == dependency }?.reasons
    }

    /// Whether an entry holds `dependency`; not for the view's own state that the bits hold.
    func contains(_ dependency: Dependency) -> Bool { entries.contains { $0.dependency == dependency } }

    /// Whether the view read its own `@State` variable `index` (below `ownStateBits`).
    func readsOwnState(_ index: Int) -> Bool { ownState & (1 << UInt64(index)) != 0 }

    /// Records that `dependency` was read, giving `reason`.
    mutating func note(_ dependency: Dependency, _ reason: String) {
        if let index = entries.firstIndex(where: { $0.dependency == dependency }) {
            entries[index].reasons = entries[index].reasons.adding(reason)
        } else {
            // No room reserved ahead: with a view's own state in the bits, most arrays hold one
            // or two entries, and an array grows to exactly those.
            entries.append(Entry(dependency: dependency, reasons: .one(reason)))
        }
    }

    /// Records that the view read its own `@State` variable `index` (below `ownStateBits`).
    mutating func noteOwnState(_ index: Int) { ownState |= 1 << UInt64(index) }

    /// Adds `other`'s dependencies and reasons, read by the same view.
    mutating func merge(_ other: DependencySet) {
        for entry in other.entries {
            for reason in entry.reasons.all { note(entry.dependency, reason) }
        }
        ownState |= other.ownState
    }
}

extension ViewNode {
    /// The reasons a change to `dependency` gives this view, if its last evaluation read it.
    func reasons(for dependency: Dependency) -> Reasons? {
        if case .location(.state(let view, let index)) = dependency, view == serial, index < DependencySet.ownStateBits {
            let read = dependencies.readsOwnState(index) || (index < 64 && boundStates & (1 << index) != 0)
            return read ? .one(UpdateReason.variable(variables[at: index].name)) : nil
        }
        return dependencies[dependency]
    }
}
