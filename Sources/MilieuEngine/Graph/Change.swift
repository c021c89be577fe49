import MilieuJSON

/// One thing a committed transaction did, in the order it happened; the daemon turns
/// these into notifications for the watchers they concern.
public enum Change: Sendable, Equatable {
    /// A stored or computed property changed. `value` is nil for a secure property (rule 13).
    case property(object: String, type: String, property: String, value: JSON?)
    /// A view's `@State` changed.
    case state(view: String, variable: String, value: JSON)
    /// A view's body was evaluated again, and why (rule 10); `printed` is what `_printChanges()`
    /// prints, for a view that declares it.
    case viewUpdated(view: String, reasons: [String], body: BodyLines, printed: String? = nil)
    /// A view appeared.
    case viewMounted(view: String, reason: MountReason, body: BodyLines, printed: String? = nil)
    /// A view went.
    case viewUnmounted(view: String, reason: UnmountReason)
    case objectCreated(object: String, type: String, owner: String?, reason: CreationReason)
    case objectDestroyed(object: String, type: String, owner: String?, reason: DestructionReason)
    /// Something worth a warning, such as `StateObjectInitIgnored` (rule 4). Boxed (`indirect`):
    /// inline, its six fields would make every change 104 bytes where the next largest needs 72,
    /// and the history keeps every change of its last versions (a mount of 100k views, 100k
    /// changes), while a diagnostic is rare.
    indirect case diagnostic(kind: String, message: String, view: String, variable: String, ignored: JSON, hint: String)

    /// The view path a view event or diagnostic is about.
    public var view: String? {
        switch self {
        case .state(let view, _, _), .viewUpdated(let view, _, _, _), .viewMounted(let view, _, _, _),
            .viewUnmounted(let view, _), .diagnostic(_, _, let view, _, _, _):
            view
        case .property, .objectCreated, .objectDestroyed: nil
        }
    }
}

extension Change {
    /// Where a change's kind comes in a version's notifications (SPEC §8.3): property changes,
    /// creations, unmounts, mounts, updates, diagnostics, destructions.
    private var protocolRank: Int {
        switch self {
        case .property, .state: 0
        case .objectCreated: 1
        case .viewUnmounted: 2
        case .viewMounted: 3
        case .viewUpdated: 4
        case .diagnostic: 5
        case .objectDestroyed: 6
        }
    }

    /// Whether `changes` are in the order notifications of one version take: by kind, and at
    /// most one destruction (destructions are put in creation order, which `inProtocolOrder` reads).
    static func isInProtocolOrder(_ changes: some Collection<Change>) -> Bool {
        changes.count < 2
            || zip(changes, changes.dropFirst()).allSatisfy { a, b in
                a.protocolRank < b.protocolRank || (a.protocolRank == b.protocolRank && a.protocolRank != 6)
            }
    }

    /// `changes`, which are not (`isInProtocolOrder`), in the order notifications of one version
    /// take (SPEC §8.3): by kind, the order of events within each kind kept, destructions in the
    /// order the objects were created.
    static func inProtocolOrder(_ changes: [Change]) -> [Change] {
        /// Destructions come in the order the objects were created: by the number in their id.
        func order(_ change: Change, _ offset: Int) -> Int {
            guard case .objectDestroyed(let object, _, _, _) = change, let n = Int(object.split(separator: "#").last ?? "") else {
                return offset
            }
            return n
        }
        // Each kind keeps arrival order, so a pass puts them in their places; only destructions
        // are sorted, by a number read once each: a large teardown costs a sort of its objects,
        // not a comparison sort of everything with an id parsed at every comparison.
        var kinds = [[Change]](repeating: [], count: 6)
        var destructions: [(order: Int, offset: Int, change: Change)] = []
        for (offset, change) in changes.enumerated() {
            let kind = change.protocolRank
            if kind == 6 { destructions.append((order(change, offset), offset, change)) } else { kinds[kind].append(change) }
        }
        destructions.sort { a, b in a.order != b.order ? a.order < b.order : a.offset < b.offset }
        return Array(kinds.joined()) + destructions.map(\.change)
    }
}

/// What one committed transaction changed, all under one version (rule 11).
///
/// Immutable, and one reference: a commit goes from the engine to its answer, the turn, the
/// history and the log, and each copy of a struct of four collections cost some 300 instructions
/// of retains and releases (callgrind), where a reference costs one. Its changes are in the same
/// allocation as its fields (`Storage`, a `ManagedBuffer`), moved there from the transaction's
/// `ChangeBuffer`s (copied, when its events had to be put in order): an array of their own was a
/// second allocation for every write, and a second free when the history let the commit go
/// (some 300 instructions a write together).
///
/// `@unchecked Sendable`: its storage is written by `init`, before anything else can see it, and
/// after that only by `Graph.recycle`, once nothing else holds it (a `ManagedBuffer` is not
/// `Sendable`, whatever it holds). Reading its changes is inlinable, so that the daemon's modules
/// read them in place, not through a call that copies each one out.
public struct Commit: @unchecked Sendable {
    /// A commit's fields, then its changes.
    @usableFromInline final class Storage: ManagedBuffer<Fields, Change> {
        deinit {
            _ = withUnsafeMutablePointers { fields, changes in changes.deinitialize(count: fields.pointee.count) }
        }
    }

    /// Written after `init` only by `Graph.recycle`, once nothing else holds the commit.
    @usableFromInline struct Fields {
        @usableFromInline let version: Version
        /// How many changes follow.
        @usableFromInline var count: Int
        var invalidations: [Invalidation]
        var announced: Set<ObjectSerial>
        var replaced: ReplacedValues
    }

    /// `var` only so that `Graph.recycle` can ask whether it is the last reference.
    @usableFromInline var storage: Storage

    public init(version: Version, changes: [Change], invalidations: [Invalidation] = [], replaced: ReplacedValues = ReplacedValues()) {
        let fields = Fields(version: version, count: changes.count, invalidations: invalidations, announced: [], replaced: replaced)
        self.init(fields) { _ = UnsafeMutableBufferPointer(start: $0, count: changes.count).initialize(fromContentsOf: changes) }
    }

    /// A commit of `fields`, whose changes `initialize` puts in place: all `fields.count` of them,
    /// in `spare`'s storage if given (which has room for one change and holds none).
    init(_ fields: Fields, reusing spare: Storage? = nil, initialize: (UnsafeMutablePointer<Change>) -> Void) {
        if let spare {
            precondition(fields.count <= 1 && spare.header.count == 0, "a spare commit holds at most one change")
            spare.header = fields
            storage = spare
        } else {
            storage = unsafeDowncast(Storage.create(minimumCapacity: fields.count) { _ in fields }, to: Storage.self)
        }
        storage.withUnsafeMutablePointerToElements(initialize)
    }

    @inlinable public var version: Version { storage.header.version }
    /// Its changes, in protocol order (SPEC §8.3).
    @inlinable public var changes: Changes { Changes(storage: storage) }
    /// Why each view was queued for evaluation, in order (`graph/explain`); empty for a commit
    /// read back from the log.
    public var invalidations: [Invalidation] { storage.header.invalidations }
    /// The `ObservableObject`s whose `objectWillChange.send` it ran: their versions changed
    /// with no value (`durableWrites` keeps them).
    var announced: Set<ObjectSerial> { storage.header.announced }
    /// The value each property and `@State` change of `changes` replaced, recorded as the
    /// transaction wrote it (`graph/explain`'s `old`); empty for a commit read back from the log.
    public var replaced: ReplacedValues { storage.header.replaced }

    @inlinable public var isEmpty: Bool { storage.header.count == 0 }

    /// A commit's changes, read where the commit holds them.
    public struct Changes: RandomAccessCollection, @unchecked Sendable {
        @usableFromInline let storage: Storage

        @inlinable init(storage: Storage) { self.storage = storage }

        @inlinable public var startIndex: Int { 0 }
        @inlinable public var endIndex: Int { storage.header.count }

        @inlinable public subscript(position: Int) -> Change {
            precondition(position >= 0 && position < storage.header.count, "change \(position) of \(storage.header.count)")
            return storage.withUnsafeMutablePointerToElements { $0[position] }
        }

        /// The parts of the change at `position` if it is a property change, read in place: a
        /// switch on `self[position]`, which returns a copy, copied every field of the change
        /// (about 310 instructions with the copy's destruction) to bind the three it reads. In
        /// place, a `switch` on the element where it lies, not an `if case` (nor a property of
        /// `Change` doing one): `if case` copied the whole change there too, then let go of what
        /// it did not bind (callgrind: three string retains, a value's copy and destruction, two
        /// releases; some 120 instructions a call).
        func property(at position: Int) -> (object: String, property: String, value: JSON?)? {
            precondition(position >= 0 && position < storage.header.count, "change \(position) of \(storage.header.count)")
            return storage.withUnsafeMutablePointerToElements { changes in
                switch changes[position] {
                case .property(let object, _, let property, let value): (object, property, value)
                default: nil
                }
            }
        }

        /// The object of the change at `position` if it is a property change, read in place as
        /// `property(at:)` reads.
        public func propertyObject(at position: Int) -> String? {
            precondition(position >= 0 && position < storage.header.count, "change \(position) of \(storage.header.count)")
            return storage.withUnsafeMutablePointerToElements { changes in
                switch changes[position] {
                case .property(let object, _, _, _): object
                default: nil
                }
            }
        }
    }
}

extension Commit {
    /// Where a commit lies in memory: its fields and the room of its first change, what letting
    /// it go reads and writes first (`Graph.recycle` checks that nothing else holds it, reads its
    /// count and moves its change out). It holds no reference, so the commit may be gone by the
    /// time it is used: it is only for asking the CPU for those bytes ahead (`milieu_prefetch`,
    /// which never faults), never to be read through.
    public struct Footprint {
        public let start: UnsafeRawPointer
        public let count: Int
    }

    /// For a holder of many commits that lets the oldest go: the history's oldest was made
    /// 10,000 writes before, and is long out of the caches when it goes.
    public var footprint: Footprint {
        let start = UnsafeRawPointer(Unmanaged.passUnretained(storage).toOpaque())
        let changes = storage.withUnsafeMutablePointerToElements { UnsafeRawPointer($0) }
        return Footprint(start: start, count: changes - start + MemoryLayout<Change>.stride)
    }
}

/// The values a commit's property and `@State` changes replaced, one for each, in the order of
/// those changes (they come first in a commit, SPEC §8.3); nil for a secure value (rule 13). Most
/// commits change one value, which is kept without an array.
public struct ReplacedValues: Sendable {
    private enum Storage: Sendable {
        case none
        case one(JSON?)
        case many([JSON?])
    }

    private var storage = Storage.none

    public init() {}

    /// Consumed, so that a change's old value is moved in (callers hand it over with `consume`):
    /// taken by copy, the copy and the caller's release of its own cost some 60 instructions a
    /// write (callgrind).
    mutating func append(_ value: consuming JSON?) {
        switch storage {
        case .none: storage = .one(value)
        case .one(let first): storage = .many([first, value])
        case .many(var values):
            storage = .none
            values.append(value)
            storage = .many(values)
        }
    }

    /// The value the `index`-th property or `@State` change replaced: `.some(nil)` when it was
    /// secure, nil when it is not known (a commit read back from the log).
    public subscript(index: Int) -> JSON?? {
        switch storage {
        case .none: nil
        case .one(let value): index == 0 ? .some(value) : nil
        case .many(let values): values.indices.contains(index) ? .some(values[index]) : nil
        }
    }
}

/// The number of a committed transaction that changed something: one total order across
/// connections (SPEC §8.1). Version 0 is the scene as loaded.
public struct Version: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: Int
    public init(_ rawValue: Int) { self.rawValue = rawValue }
    public static func < (a: Version, b: Version) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "\(rawValue)" }
    /// The version the next commit will take.
    public var next: Version { Version(rawValue + 1) }
}
