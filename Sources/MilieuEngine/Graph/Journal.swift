/// The undo log of the transaction in progress: every change to the graph records how
/// to take it back, so that a failing operation leaves no trace (rule 14).
struct Journal {
    private var undo: [() -> Void] = []

    mutating func record(_ step: @escaping () -> Void) { undo.append(step) }

    /// Takes back every recorded change, newest first.
    mutating func rollBack() {
        while let step = undo.popLast() { step() }
    }

    mutating func discard() { undo.removeAll(keepingCapacity: true) }
}
