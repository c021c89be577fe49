/// The undo log of the transaction in progress: every change to the graph records how
/// to take it back, so that a failing operation leaves no trace (rule 14).
struct Journal {
    private var undo: [() -> Void] = []

    mutating func record(_ step: @escaping () -> Void) { undo.append(step) }

    /// Hands over the undo steps, newest last, leaving the journal empty. The caller runs them
    /// in reverse outside any access to the journal: they reuse the graph's mutators, which record.
    mutating func takeUndoSteps() -> [() -> Void] {
        defer { undo.removeAll(keepingCapacity: true) }
        return undo
    }

    mutating func discard() { undo.removeAll(keepingCapacity: true) }
}
