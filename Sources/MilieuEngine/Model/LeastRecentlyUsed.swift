/// A map of at most `capacity` entries that, when full, makes room for a new key by dropping
/// the entry used longest ago.
///
/// Finding that entry scans them all: the capacity is small, and it happens only on a miss,
/// whose caller has just paid for building the value.
struct LeastRecentlyUsed<Key: Hashable, Value> {
    let capacity: Int
    private var entries: [Key: (value: Value, lastUse: UInt64)] = [:]
    /// Counts uses; an entry's `lastUse` is the count at its latest.
    private var clock: UInt64 = 0

    init(capacity: Int) {
        precondition(capacity > 0, "a cache holds at least one entry")
        self.capacity = capacity
    }

    var count: Int { entries.count }

    /// Whether `key` is held, without counting as a use.
    func contains(_ key: Key) -> Bool { entries[key] != nil }

    /// The value for `key`, now the most recently used; nil if it is not held.
    mutating func value(for key: Key) -> Value? {
        guard entries[key] != nil else { return nil }
        clock += 1
        entries[key]?.lastUse = clock
        return entries[key]?.value
    }

    /// Holds `value` for `key` as the most recently used, dropping the least recently used
    /// entry if `key` is new and the map is full.
    mutating func insert(_ value: Value, for key: Key) {
        if entries[key] == nil, entries.count >= capacity,
            let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key
        {
            entries[oldest] = nil
        }
        clock += 1
        entries[key] = (value, clock)
    }
}
