extension Array {
    /// Empties the array and keeps its storage for the next transaction or loop turn, as
    /// `removeAll(keepingCapacity: true)` does, one element at a time from the end. That one is
    /// a generic `replaceSubrange`, which costs some 300 instructions even for the one or two
    /// elements a write leaves in each of the tables a transaction or a turn resets. Inlinable:
    /// the server calls it too, and a generic call across modules costs more than it saves.
    @inlinable package mutating func removeAllKeepingCapacity() {
        while !isEmpty { removeLast() }
    }
}
