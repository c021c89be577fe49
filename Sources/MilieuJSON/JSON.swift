/// A JSON value: what Milieu's properties hold and what crosses the wire.
///
/// Integers and doubles are kept apart so that `1` and `1.0` round-trip as written.
/// Objects keep their keys in insertion order (so output is stable) but compare
/// without regard to order, as JSON objects do.
public enum JSON: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSON])
    case object(JSONObject)
}

/// The members of a JSON object, in insertion order, with lookup by key.
///
/// Objects on Milieu's hot paths are small (a handful of keys), so a linear scan
/// beats hashing; equality and hashing ignore order.
public struct JSONObject: Sendable, Hashable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    public typealias Member = (key: String, value: JSON)
    public private(set) var members: [Member]

    public init() { members = [] }

    public init(_ members: [Member]) {
        self.members = []
        self.members.reserveCapacity(members.count)
        for member in members { self[member.key] = member.value }
    }

    public init(dictionaryLiteral elements: (String, JSON)...) { self.init(pairs: elements) }

    /// The members of a literal, a later key replacing an earlier one; `JSON`'s literal uses it too.
    init(pairs: [(String, JSON)]) {
        members = []
        members.reserveCapacity(pairs.count)
        for (key, value) in pairs { self[key] = value }
    }

    /// Members the caller has already checked are free of duplicate keys (the parser does),
    /// taken as is without the per-key scan of `init(_:)`.
    public init(uniqueMembers members: [Member]) {
        self.members = members
    }

    // Inlinable: the engine walks members on every mount, and a call per step adds up.
    @inlinable public var startIndex: Int { members.startIndex }
    @inlinable public var endIndex: Int { members.endIndex }
    @inlinable public subscript(position: Int) -> Member { members[position] }

    /// The value for `key`; setting `nil` removes the key, setting a new key appends it.
    public subscript(key: String) -> JSON? {
        get {
            for member in members where member.key == key { return member.value }
            return nil
        }
        set {
            if let index = members.firstIndex(where: { $0.key == key }) {
                if let newValue { members[index].value = newValue } else { members.remove(at: index) }
            } else if let newValue {
                members.append((key: key, value: newValue))
            }
        }
    }

    public var keys: [String] { members.map(\.key) }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.members.count == rhs.members.count else { return false }
        for member in lhs.members where rhs[member.key] != member.value { return false }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        // Order-independent: combine each member's own hash commutatively.
        var combined = 0
        for member in members {
            var memberHasher = Hasher()
            memberHasher.combine(member.key)
            memberHasher.combine(member.value)
            combined ^= memberHasher.finalize()
        }
        hasher.combine(members.count)
        hasher.combine(combined)
    }
}

/// Literals for building values in code. There is deliberately no `nil` literal: `JSON?` is
/// common, and `nil` meaning `.null` there would be a trap.
extension JSON: ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSON)...) { self = .object(JSONObject(pairs: elements)) }
}

extension JSON {
    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    public var intValue: Int? { if case .int(let i) = self { i } else { nil } }
    public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    public var arrayValue: [JSON]? { if case .array(let a) = self { a } else { nil } }
    public var objectValue: JSONObject? { if case .object(let o) = self { o } else { nil } }
    public var isNull: Bool { if case .null = self { true } else { false } }

    /// A double for either numeric case.
    public var numberValue: Double? {
        switch self {
        case .int(let i): Double(i)
        case .double(let d): d
        default: nil
        }
    }

    /// The member `key` of an object value, or nil.
    public subscript(key: String) -> JSON? { objectValue?[key] }

    /// The JSON kind as a word for error messages: "string", "int", "object", ….
    public var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "bool"
        case .int: "int"
        case .double: "double"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}
