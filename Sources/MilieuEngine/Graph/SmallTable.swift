/// Entries in the order they were added, each key once, found by comparing keys in turn while
/// there are at most `scanLimit` and through an index past that. What a transaction touches is
/// one or a few places and objects, and hashing a key (some 300 instructions with SipHash) costs
/// more than comparing a handful (`TouchedPlaces`, `WrittenSlots`).
struct SmallTable<Key: Hashable, Value> {
    private(set) var entries: [(key: Key, value: Value)] = []
    /// Each key's position in `entries`, once there are more than `scanLimit`. Made empty with
    /// `init()`, not the literal `[:]`, which calls the literal initializer (some 20 instructions
    /// a table, and a transaction makes one).
    private var index = [Key: Int]()

    static var scanLimit: Int { 8 }

    /// Where `key`'s entry is, if the table has one.
    func position(of key: Key) -> Int? {
        entries.count <= Self.scanLimit ? entries.firstIndex { $0.key == key } : index[key]
    }

    /// Adds an entry for a key the table does not hold.
    mutating func append(_ key: Key, _ value: consuming Value) {
        entries.append((key, value))
        guard entries.count > Self.scanLimit else { return }
        if index.isEmpty {
            for (position, entry) in entries.enumerated() { index[entry.key] = position }
        } else {
            index[key] = entries.count - 1
        }
    }

    /// The value of the entry at `position`, changed in place.
    subscript(position: Int) -> Value {
        get { entries[position].value }
        _modify { yield &entries[position].value }
    }

    /// Forgets every entry, keeping the room of a few for the next transaction; a larger table is
    /// let go whole, so that one large transaction does not make every later one pay for it.
    mutating func removeAll() {
        if entries.count <= Self.scanLimit { entries.removeAllKeepingCapacity() } else { entries = [] }
        if !index.isEmpty { index = [:] }
    }
}
