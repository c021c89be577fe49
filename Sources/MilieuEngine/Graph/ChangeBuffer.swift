/// A transaction's changes as it records them, moved into its commit when it commits.
///
/// Storage of their own rather than an array: an array cannot give its elements away without
/// destroying them, and copying each change into the commit and destroying the array's cost as
/// much as the commit's own allocation saves. Noncopyable, so that no copy of it frees the same
/// storage; what `changes` points at is read only while the buffer is not changed.
struct ChangeBuffer: ~Copyable {
    private var base: UnsafeMutablePointer<Change>
    private var capacity: Int
    private(set) var count = 0

    /// The room kept from one transaction to the next, at most: a large one (a mount of many
    /// views) does not leave every later one holding its size.
    private static let keptCapacity = 64
    private static let initialCapacity = 4

    init() {
        capacity = Self.initialCapacity
        base = .allocate(capacity: capacity)
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }

    var isEmpty: Bool { count == 0 }

    mutating func append(_ change: consuming Change) {
        if count == capacity {
            let grown = UnsafeMutablePointer<Change>.allocate(capacity: capacity * 2)
            grown.moveInitialize(from: base, count: count)
            base.deallocate()
            base = grown
            capacity *= 2
        }
        (base + count).initialize(to: change)
        count += 1
    }

    /// The changes, read in place.
    var changes: UnsafeBufferPointer<Change> { UnsafeBufferPointer(start: base, count: count) }

    /// Moves the changes to `destination`, which has room for `count` of them, leaving none.
    mutating func move(to destination: UnsafeMutablePointer<Change>) {
        destination.moveInitialize(from: base, count: count)
        count = 0
        shrink()
    }

    /// Drops the changes.
    mutating func removeAll() {
        // Most often empty, its changes moved into a commit: deinitializing none still called
        // the runtime's array destroy (some 20 instructions, twice a transaction).
        if count > 0 { base.deinitialize(count: count) }
        count = 0
        shrink()
    }

    private mutating func shrink() {
        guard capacity > Self.keptCapacity else { return }
        base.deallocate()
        capacity = Self.initialCapacity
        base = .allocate(capacity: capacity)
    }
}
