extension Array {
    /// Empties the array and keeps its storage for the next transaction, as
    /// `removeAll(keepingCapacity: true)` does, one element at a time from the end. That one is
    /// a generic `replaceSubrange`, which costs some 300 instructions even for the one or two
    /// elements a write leaves in each of the tables a transaction resets.
    mutating func removeAllKeepingCapacity() {
        while !isEmpty { removeLast() }
    }
}
