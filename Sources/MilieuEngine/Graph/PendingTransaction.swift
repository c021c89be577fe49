import MilieuJSON

/// What the transaction in progress has touched, queued and logged so far.
struct PendingTransaction: ~Copyable {
    /// Each written place with the value it had before the transaction, in first-touch order.
    private(set) var touched = TouchedPlaces()
    /// The value each reported property or `@State` change replaced, in the order they are
    /// reported (nil: secure, rule 13).
    var replaced = ReplacedValues()
    /// `ObservableObject`s whose `objectWillChange.send()` was called (rule 19).
    var announced: Set<ObjectSerial> = []
    /// Views to evaluate, with their reasons (rule 10), parents first (rule 11).
    var queue = InvalidationQueue()
    /// Lifecycle and view events in the order they happened.
    var events = ChangeBuffer()
    /// Property and `@State` changes, which come first in a commit (SPEC §8.3).
    var propertyChanges = ChangeBuffer()
    /// Set when the tree changed in a way no notification shows (what a view provides):
    /// the transaction still takes a version.
    var structural = false
    /// Each view queued, with its reason and what gave it, for `graph/explain`.
    var invalidations: [PendingInvalidation] = []
    /// Objects whose owner let go of them in this transaction while others still held them: the
    /// owner and its reason, which their destruction reports if the last holder lets go before
    /// the transaction ends (`vm = Model()` while a child holds the old one: `replaced`).
    var disowned: [ObjectSerial: (owner: String?, reason: DestructionReason)] = [:]

    /// Hands over the values the transaction's changes replaced, leaving none.
    mutating func takeReplaced() -> ReplacedValues {
        defer { replaced = ReplacedValues() }
        return replaced
    }

    /// Empties everything for the next transaction, keeping the storage of what stays here.
    mutating func reset() {
        touched.removeAll()
        if !announced.isEmpty { announced.removeAll() }
        queue.reset()
        events.removeAll()
        propertyChanges.removeAll()
        replaced = ReplacedValues()
        structural = false
        invalidations.removeAllKeepingCapacity()
        if !disowned.isEmpty { disowned = [:] }
    }

    mutating func touch(_ location: Location, original: consuming JSON, changed: Bool) {
        touched.touch(location, original: original, changed: changed)
    }
}

/// The places a transaction wrote, each with the value it had before the transaction, in the
/// order they were first written.
struct TouchedPlaces {
    /// A written place: the value it had before the transaction, and whether any write of the
    /// transaction changed it (rule 9: a write differing from the value at that moment). A place
    /// written and written back was changed twice, and its readers re-render.
    struct Original {
        let value: JSON
        var changed: Bool
    }

    private var table = SmallTable<Location, Original>()

    /// How many places the transaction wrote.
    var count: Int { table.entries.count }

    /// The `position`-th place written, and whether a write changed it: read without a copy of
    /// its original value, which only a reported change needs (`original(at:)`).
    func place(at position: Int) -> (location: Location, changed: Bool) {
        (table.entries[position].key, table.entries[position].value.changed)
    }

    /// The value the `position`-th place had before the transaction.
    func original(at position: Int) -> JSON { table.entries[position].value.value }

    /// Whether the transaction wrote `location`.
    func contains(_ location: Location) -> Bool { table.position(of: location) != nil }

    /// Records a write of `location`, whose value before it was `original` if this is the first.
    /// Consumed, so that the first write's original is moved in, not copied.
    mutating func touch(_ location: Location, original: consuming JSON, changed: Bool) {
        guard let position = table.position(of: location) else {
            table.append(location, Original(value: original, changed: changed))
            return
        }
        if changed { table[position].changed = true }
    }

    mutating func removeAll() { table.removeAll() }
}

/// Views waiting to be evaluated, by depth so that parents come before children,
/// each at most once per transaction (rule 11).
///
/// A view's mark says whether it is queued in this transaction (`ViewNode.queuedIn`) and where
/// its reasons are (`ViewNode.queueSlot`), so that finding it costs no set or map; the reasons
/// themselves live here, not on the view, so that a tree's views do not each carry room for
/// reasons between transactions.
struct InvalidationQueue {
    /// The transaction being propagated; a view's queue marks from earlier ones are stale.
    var transaction = 0
    private var buckets: [[ViewNode]] = []
    /// The reasons of each view queued in `transaction`, at its `queueSlot`.
    private var reasons: [Reasons] = []
    private var depth = 0
    private var position = 0

    /// The `queueSlot` of a view already evaluated in this transaction.
    static let evaluated: Int32 = -1

    mutating func reset() {
        for index in buckets.indices { buckets[index].removeAllKeepingCapacity() }
        reasons.removeAllKeepingCapacity()
        depth = 0
        position = 0
    }

    /// Queues `node` with `reason` (a wire reason, SPEC §6.4); a view already queued gathers the
    /// reason, one already evaluated in this transaction is not queued again.
    mutating func add(_ node: ViewNode, reason: String) {
        guard node.queuedIn == transaction else {
            enqueue(node, .one(reason))
            return
        }
        guard node.queueSlot != Self.evaluated else { return }
        let slot = Int(node.queueSlot)
        reasons[slot] = reasons[slot].adding(reason)
    }

    /// Queues a new view for its first evaluation, which `ViewNode.arrival` explains.
    mutating func addArrival(_ node: ViewNode) { enqueue(node, .many([])) }

    private mutating func enqueue(_ node: ViewNode, _ reasons: Reasons) {
        node.queuedIn = transaction
        // A transaction queues each view at most once, and no transaction holds 2^31 views.
        node.queueSlot = Int32(self.reasons.count)
        self.reasons.append(reasons)
        // The depth is the parent chain's length (`ViewNode.depth`): walked once here.
        let level = node.depth
        while buckets.count <= level { buckets.append([]) }
        buckets[level].append(node)
        if level < depth {
            depth = level
            position = 0
        }
    }

    /// The next view to evaluate and its reasons, shallowest first.
    mutating func next() -> (ViewNode, Reasons)? {
        while depth < buckets.count {
            if position < buckets[depth].count {
                let node = buckets[depth][position]
                position += 1
                guard node.queueSlot != Self.evaluated else { continue }
                let slot = Int(node.queueSlot)
                node.queueSlot = Self.evaluated
                return (node, reasons[slot])
            }
            buckets[depth].removeAllKeepingCapacity()
            depth += 1
            position = 0
        }
        return nil
    }
}
