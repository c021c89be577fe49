import MilieuJSON

/// The JSON kinds a value may have, as far as the expression compiler can tell.
struct ValueKinds: OptionSet, Sendable, CustomStringConvertible {
    let rawValue: UInt8

    init(rawValue: UInt8) { self.rawValue = rawValue }

    static let null = ValueKinds(rawValue: 1 << 0)
    static let bool = ValueKinds(rawValue: 1 << 1)
    static let int = ValueKinds(rawValue: 1 << 2)
    static let double = ValueKinds(rawValue: 1 << 3)
    static let string = ValueKinds(rawValue: 1 << 4)
    static let array = ValueKinds(rawValue: 1 << 5)
    static let object = ValueKinds(rawValue: 1 << 6)
    static let number: ValueKinds = [.int, .double]
    static let any: ValueKinds = [.null, .bool, .int, .double, .string, .array, .object]

    /// The kind of `value`.
    init(of value: JSON) {
        switch value {
        case .null: self = .null
        case .bool: self = .bool
        case .int: self = .int
        case .double: self = .double
        case .string: self = .string
        case .array: self = .array
        case .object: self = .object
        }
    }

    /// What a property of `type` holds (a reference holds an object id or null).
    init(holding type: PropertyType) {
        switch type {
        case .string: self = .string
        case .int: self = .int
        case .double: self = .double
        case .bool: self = .bool
        case .json: self = .any
        case .optional(let wrapped): self = ValueKinds(holding: wrapped).union(.null)
        case .array: self = .array
        case .reference: self = [.string, .null]
        case .record: self = .object
        }
    }

    /// What a write to a property of `type` accepts: what it holds, and an int for a double.
    init(accepting type: PropertyType) {
        self = ValueKinds(holding: type)
        if contains(.double) { insert(.int) }
    }

    /// `"number"`, `"string or null"`: the kinds in words, for messages.
    var description: String {
        if self == .any { return "any value" }
        var words: [String] = []
        if isSuperset(of: .number) {
            words.append("number")
        } else {
            if contains(.int) { words.append("int") }
            if contains(.double) { words.append("double") }
        }
        let named: [(ValueKinds, String)] = [(.string, "string"), (.bool, "bool"), (.array, "array"), (.object, "object"), (.null, "null")]
        for (kind, word) in named where contains(kind) { words.append(word) }
        return words.joined(separator: " or ")
    }
}

/// What the compiler knows of an expression's value before it runs.
struct StaticValue: Sendable {
    var kinds: ValueKinds
    /// For an array, the kinds of its elements.
    var elements: ValueKinds = .any
    /// Whether the value may carry a secure property's value (rule 13): it may then not become a
    /// computed property's value, an action's result, or the value of a property that is not secure.
    var secret = false
    /// The action's parameters (by position) whose argument the value may carry: where it meets a
    /// secret, or is written into a secure property, they are secure parameters (`schema/types`).
    var arguments: Set<Int> = []

    static let any = StaticValue(kinds: .any)

    /// What is known of a literal.
    init(of value: JSON) {
        kinds = ValueKinds(of: value)
        if case .array(let items) = value {
            elements = items.reduce(into: []) { $0.formUnion(ValueKinds(of: $1)) }
        }
    }

    /// What is known of a property of `type`, secure or not.
    init(holding type: PropertyType, secret: Bool = false) {
        kinds = ValueKinds(holding: type)
        switch type {
        case .array(let element), .optional(.array(let element)): elements = ValueKinds(holding: element)
        default: break
        }
        self.secret = secret
    }

    init(kinds: ValueKinds, elements: ValueKinds = .any, secret: Bool = false, arguments: Set<Int> = []) {
        self.kinds = kinds
        self.elements = elements
        self.secret = secret
        self.arguments = arguments
    }
}
