import MilieuJSON

/// One instance of a model type: its values (stored, then computed), its version,
/// and how many holders keep it alive (a view variable, a provider, `/App`).
final class ObjectRecord {
    let serial: ObjectSerial
    let name: String
    let type: RegisteredType
    /// Read on every render; every write is a leaf assignment or append, and no computed
    /// property runs while one is in progress. A stored value of an object made before the
    /// transaction is written only by `Graph.writeProperty`, which keeps its original for a
    /// rollback (`TouchedPlaces`): the journal keeps none.
    var values: [JSON]
    /// For each computed property, the stored slots its last evaluation read.
    var computedReads: [[Int]]
    var version: Version
    var holders = 0
    /// The key path of the variable that owns it, for lifecycle reports; nil once its owner
    /// went while something else still refers to it.
    var owner: String?
    /// The view and variable that own it, to tell whether its values are kept across restarts;
    /// for an object another made (`makes`), the path through it, as `outer.inner`. The view is
    /// nil once it is gone, as a `weak` one would be (`ViewNode.OwnerLink`).
    var ownerView: ViewNode? {
        get { ownerLink?.view }
        set { ownerLink = newValue?.ownerLink }
    }
    private var ownerLink: ViewNode.OwnerLink?
    var ownerVariable: String? {
        didSet { holdingVariable = ownerVariable.map(Self.variable(in:)) }
    }
    /// The variable of `ownerView` that holds it: `ownerVariable` up to its first `.` (the object
    /// that made it, for one another made). Kept, not found again at each durable write.
    private(set) var holdingVariable: String?
    /// The objects its properties made with it (`makes`) and still hold: they go with it.
    var madeObjects: [ObjectSerial] = []
    /// `owner.property` for each stored property, the name a durable write of it is kept under,
    /// made at its first: every write of a long-lived object's property would build it again.
    private var durableNames: [String] = []

    /// The view variable an owner path (`var` or `var.inner`) starts with, found among its UTF-8
    /// bytes: Character by Character cost 1.9k instructions a write.
    private static func variable(in path: String) -> String {
        path.utf8.firstIndex(of: UInt8(ascii: ".")).map { String(path[..<$0]) } ?? path
    }

    /// The name the durable write of stored `slot` is kept under, `owner` its owning variable's.
    func durableName(of slot: Int, owner: String) -> String {
        if durableNames.isEmpty { durableNames = type.model.stored.map { owner + "." + $0.name } }
        return durableNames[slot]
    }

    init(
        serial: ObjectSerial, name: String, type: RegisteredType, values: [JSON], version: Version,
        owner: (view: ViewNode, variable: String)?
    ) {
        self.ownerLink = owner?.view.ownerLink
        self.ownerVariable = owner?.variable
        self.holdingVariable = owner.map { Self.variable(in: $0.variable) }
        self.owner = owner.map { "\($0.view.path).\($0.variable)" }
        self.serial = serial
        self.name = name
        self.type = type
        self.values = values
        self.computedReads = Array(repeating: [], count: type.model.computed.count)
        self.version = version
    }

    /// Evaluates computed property `index` from the current stored values, recording what it read;
    /// a declared getter spends the request's `budget`.
    func evaluateComputed(_ index: Int, budget: EvaluationBudget) -> JSON {
        let reader = ObjectReader(record: self, budget: budget)
        let value = type.model.computed[index].compute(reader)
        computedReads[index] = reader.log.reads
        return type.model.computed[index].type.conform(value) ?? .null
    }
}

/// A read-only view of an object's stored properties handed to computed properties;
/// it records what they read (rule 12).
public struct ObjectReader {
    final class ReadLog { var reads: [Int] = [] }
    fileprivate let record: ObjectRecord
    let log = ReadLog()
    /// What the request may still spend on evaluations (declared getters spend it).
    let budget: EvaluationBudget

    fileprivate init(record: ObjectRecord, budget: EvaluationBudget) {
        self.record = record
        self.budget = budget
    }

    /// The stored property `name`; null for a name the type does not have.
    public subscript(name: String) -> JSON {
        guard let slot = record.type.slots[name], slot < record.type.storedCount else { return .null }
        log.reads.append(slot)
        return record.values[slot]
    }
}
