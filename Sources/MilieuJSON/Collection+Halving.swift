extension RandomAccessCollection {
    /// The index past the elements for which `isBefore` holds, found by halving: they must all
    /// come before those for which it does not (a history by version, a turn's batch answers by
    /// where their bytes are, the fold queue's cuts). In this module, the one all the daemon's
    /// share, so that each finds it.
    @inlinable package func partitionIndex(past isBefore: (Element) -> Bool) -> Index {
        var low = startIndex
        var length = count
        while length > 0 {
            let half = length / 2
            let middle = index(low, offsetBy: half)
            if isBefore(self[middle]) {
                low = index(after: middle)
                length -= half + 1
            } else {
                length = half
            }
        }
        return low
    }
}
