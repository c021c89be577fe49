import MilieuJSON
import MilieuProtocol

/// A model type with its members indexed: stored properties first, then computed ones.
public final class RegisteredType: Sendable {
    public let model: ModelType
    /// The JSON it was declared with (`schema/register`); nil for a built-in or a Swift type.
    let declaration: JSON?
    /// Property name → slot in an object's values (stored, then computed).
    let slots: SlotTable
    let actions: [String: Action]
    /// For each stored slot, the type of object it refers to (`@T` or `@T?`), or nil.
    private let referencedTypes: [String?]
    /// For each stored slot, whether a write announces itself to views (rule 19): every property
    /// of an `@Observable` type, the `@Published` ones of an `ObservableObject`.
    private let announcing: [Bool]
    /// For each stored slot, whether a value written to it needs only conforming to its type: it
    /// refers to no object and has no constraint (`Graph.checked(_:forSlot:of:path:)`).
    private let onlyConformed: [Bool]
    /// Its properties' patterns, compiled once and held for as long as the type is (`WholeMatch`).
    private let patterns: [DeclaredPattern]
    /// The stored slots whose object is made with an object of this type (`makes`), and of which type.
    let madeSlots: [(slot: Int, type: String)]
    /// The stored slots whose object's announcements an object of this type forwards (`forwards`).
    let forwardingSlots: [Int]

    init(_ model: ModelType, patterns: [DeclaredPattern], declaration: JSON? = nil) {
        self.patterns = patterns
        self.model = model
        self.declaration = declaration
        slots = SlotTable(model.stored.map(\.name) + model.computed.map(\.name))
        self.actions = Dictionary(model.actions.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        referencedTypes = model.stored.map(\.type.referencedType)
        announcing = model.stored.map(\.published)
        onlyConformed = model.stored.map { $0.type.referencedType == nil && $0.validation == Constraints() }
        madeSlots = model.stored.enumerated().compactMap { slot, property in property.makes.map { (slot, $0) } }
        forwardingSlots = model.stored.indices.filter { model.stored[$0].forwards }
    }

    public var name: String { model.name }

    /// The properties nearest `name`, for "did you mean" when a path names one it lacks.
    func nearestMembers(to name: String) -> [String] {
        Suggestions.nearest(to: name, among: model.stored.map(\.name) + model.computed.map(\.name))
    }
    var storedCount: Int { model.stored.count }
    func isComputed(_ slot: Int) -> Bool { slot >= model.stored.count }
    func isSecure(_ slot: Int) -> Bool { slot < model.stored.count && model.stored[slot].secure }
    func propertyName(_ slot: Int) -> String {
        slot < storedCount ? model.stored[slot].name : model.computed[slot - storedCount].name
    }
    func propertyType(_ slot: Int) -> PropertyType {
        slot < storedCount ? model.stored[slot].type : model.computed[slot - storedCount].type
    }
    /// The actions `graph/call` accepts, as `schema/types` lists them: an `ObservableObject`'s
    /// `objectWillChange.send` after the declared ones.
    var actionNames: [String] {
        model.actions.map(\.name) + (model.style == .observableObject ? [ObjectWillChange.action] : [])
    }
    /// Whether a value written to stored slot `slot` needs only conforming to its type.
    func isOnlyConformed(_ slot: Int) -> Bool { slot < storedCount && onlyConformed[slot] }
    /// The type a stored slot refers to, if it holds a reference.
    func referencedType(_ slot: Int) -> String? { slot < storedCount ? referencedTypes[slot] : nil }
    /// Whether a write of this stored slot tells the views that hold or read the object.
    func announces(_ slot: Int) -> Bool { slot < storedCount && announcing[slot] }
    /// Whether a write of this stored slot announces itself even when it changes nothing: a
    /// `@Published` property has no equality check (rule 9).
    func announcesEveryWrite(_ slot: Int) -> Bool { model.style == .observableObject && announces(slot) }
}

/// Property names to slots. Every body that reads a property looks one up, and most types have a
/// handful: comparing a few short names costs less than hashing one. Large types use a dictionary.
struct SlotTable: Sendable {
    private let names: [String]
    private let indexed: [String: Int]?

    init(_ names: [String]) {
        self.names = names
        indexed = names.count > 12 ? Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first }) : nil
    }

    subscript(name: String) -> Int? {
        if let indexed { return indexed[name] }
        return names.firstIndex(of: name)
    }
}

/// The model types a graph knows, by name: the built-ins, JSON declarations, Swift types.
public struct TypeRegistry: Sendable {
    private var types: [String: RegisteredType] = [:]
    /// Registration order, so that `schema/types` lists types stably.
    public private(set) var names: [String] = []

    public init(builtins: Bool = true) {
        if builtins { for type in BuiltinTypes.all { try? register(type) } }
    }

    public subscript(name: String) -> RegisteredType? { types[name] }

    public mutating func register(_ type: any ModelDeclaring.Type) throws(EngineError) {
        try register(type.modelType)
    }

    /// Puts `model` in the place of the registered type of its name (built-in or declared), or
    /// adds it. The graph checks first that no object of the old type is alive.
    mutating func replace(_ model: ModelType, declaration: JSON? = nil) throws(EngineError) {
        guard let old = types[model.name] else { return try register(model, declaration: declaration) }
        types[model.name] = nil
        do {
            try register(model, declaration: declaration)
            names.removeLast()
        } catch {
            types[model.name] = old
            throw error
        }
    }

    /// Adds a type; its name must be new and its members well formed. `declaration` is the JSON it
    /// was declared with, so that declaring it again the same way is no change.
    public mutating func register(_ model: ModelType, declaration: JSON? = nil) throws(EngineError) {
        guard !model.name.isEmpty, !model.name.contains(where: { "#./[]{}\"@ ".contains($0) }) else {
            throw .invalidDeclaration(field: "name", reason: "\"\(model.name)\" is not a type name")
        }
        guard types[model.name] == nil else {
            throw .invalidDeclaration(field: "name", reason: "type \(model.name) is already registered")
        }
        var seen = Set<String>()
        for name in model.stored.map(\.name) + model.computed.map(\.name) + model.actions.map(\.name) {
            guard isIdentifier(name) else {
                throw .invalidDeclaration(field: "properties", reason: "\"\(name)\" is not a member name")
            }
            guard seen.insert(name).inserted else {
                throw .invalidDeclaration(field: "properties", reason: "\(model.name) declares \(name) twice")
            }
        }
        var patterns: [DeclaredPattern] = []
        for property in model.stored {
            try checkReferences(property.type, in: model)
            if let pattern = try property.checkConstraints(field: "properties.\(property.name)") { patterns.append(pattern) }
        }
        types[model.name] = RegisteredType(model, patterns: patterns, declaration: declaration)
        names.append(model.name)
    }

    private func checkReferences(_ type: PropertyType, in model: ModelType) throws(EngineError) {
        switch type {
        case .reference(let name):
            guard name == model.name || types[name] != nil else { throw .unknownType(name) }
        case .optional(let inner), .array(let inner): try checkReferences(inner, in: model)
        case .record(let fields): for field in fields { try checkReferences(field.type, in: model) }
        case .string, .int, .double, .bool, .json: break
        }
    }
}

/// Whether `name` can be a property, variable or action name: letters, digits, `_`, not starting with a digit.
func isIdentifier(_ name: some StringProtocol) -> Bool {
    guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return false }
    return name.utf8.allSatisfy { byte in
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
    }
}

extension StoredProperty {
    /// Checks what a declaration can get wrong beyond its shape: a pattern RE2 refuses or that is
    /// past its bounds, a default that is not of the type or breaks the property's own constraints.
    /// `field` names the property in errors (`properties.age`, `environmentKeys.tone`). Returns
    /// its declared pattern, which whoever keeps the property must hold.
    func checkConstraints(field: String) throws(EngineError) -> DeclaredPattern? {
        // A property that makes its object starts with that object, not with a default.
        guard makes != nil || type.conform(defaultValue) != nil else {
            throw .invalidDeclaration(field: "\(field).default", reason: "\(defaultValue.jsonText) is not a \(type)")
        }
        var declared: DeclaredPattern?
        if let pattern = validation.pattern {
            switch WholeMatch.declare(pattern) {
            case .success(let pattern): declared = pattern
            case .failure(let refusal): throw .invalidDeclaration(field: "\(field).pattern", reason: refusal.reason)
            }
        }
        if try validation.violation(of: defaultValue, subject: "\(field).default", secure: secure) != nil {
            throw .invalidDeclaration(field: "\(field).default", reason: "the default breaks the property's own validation")
        }
        return declared
    }
}
