import MilieuJSON

/// The type of a stored property, a `@State` shape, or an action parameter.
///
/// Written as a string in declarations and in `schema/types`: `string`, `int`,
/// `double`, `bool`, `json` (any value), `T?`, `[T]`, `@TypeName` (a reference to an
/// object), and records, declared as `{"record": {"field": type}}`.
public indirect enum PropertyType: Sendable, Hashable {
    case string, int, double, bool, json
    case optional(PropertyType)
    case array(PropertyType)
    case reference(String)
    case record([(name: String, type: PropertyType)])

    public static func == (lhs: PropertyType, rhs: PropertyType) -> Bool { lhs.description == rhs.description }
    public func hash(into hasher: inout Hasher) { hasher.combine(description) }

    /// The value a property of this type starts with when its declaration gives none.
    public var zeroValue: JSON {
        switch self {
        case .string: .string("")
        case .int: .int(0)
        case .double: .double(0)
        case .bool: .bool(false)
        case .json, .optional, .reference: .null
        case .array: .array([])
        case .record(let fields): .object(JSONObject(fields.map { (key: $0.name, value: $0.type.zeroValue) }))
        }
    }

    /// The object type a reference names, whether optional (`@T?`) or not.
    public var referencedType: String? {
        switch self {
        case .reference(let type): type
        case .optional(let wrapped): wrapped.referencedType
        default: nil
        }
    }

    /// Whether a value of this type may name an object: a reference, or one inside an optional,
    /// an array or a record.
    public var holdsReference: Bool {
        switch self {
        case .reference: true
        case .optional(let wrapped), .array(let wrapped): wrapped.holdsReference
        case .record(let fields): fields.contains { $0.type.holdsReference }
        case .string, .int, .double, .bool, .json: false
        }
    }

    /// Checks `value` against this type and returns it in canonical form
    /// (an int written to a double becomes a double), or nil if it does not fit.
    public func conform(_ value: JSON) -> JSON? {
        switch (self, value) {
        case (.json, _): return value
        case (.string, .string), (.int, .int), (.bool, .bool), (.double, .double): return value
        case (.double, .int(let i)): return .double(Double(i))
        case (.optional, .null): return .null
        case (.optional(let wrapped), _): return wrapped.conform(value)
        case (.reference, .string): return value
        case (.array(let element), .array(let items)):
            var conformed: [JSON] = []
            conformed.reserveCapacity(items.count)
            for item in items {
                guard let c = element.conform(item) else { return nil }
                conformed.append(c)
            }
            return .array(conformed)
        case (.record(let fields), .object(let object)):
            guard object.count == fields.count else { return nil }
            var conformed = JSONObject()
            for field in fields {
                guard let member = object[field.name], let c = field.type.conform(member) else { return nil }
                conformed[field.name] = c
            }
            return .object(conformed)
        default: return nil
        }
    }
}

extension PropertyType: CustomStringConvertible {
    public var description: String {
        switch self {
        case .string: "string"
        case .int: "int"
        case .double: "double"
        case .bool: "bool"
        case .json: "json"
        case .optional(let wrapped): "\(wrapped)?"
        case .array(let element): "[\(element)]"
        case .reference(let type): "@\(type)"
        case .record(let fields): "{" + fields.map { "\($0.name): \($0.type)" }.joined(separator: ", ") + "}"
        }
    }
}

extension PropertyType {
    /// Parses the declaration form: a type string, or `{"record": {...}}`,
    /// `{"optional": T}`, `{"array": T}` for types a string cannot spell.
    public init(declaration: JSON) throws(EngineError) {
        switch declaration {
        case .string(let text):
            self = try PropertyType(parsing: Substring(text), whole: text)
        case .object(let object) where object.count == 1:
            let (key, inner) = object[0]
            switch key {
            case "record":
                guard case .object(let fields) = inner, !fields.isEmpty else {
                    throw .invalidDeclaration(field: "type", reason: "a record needs an object of field types")
                }
                var parsed: [(name: String, type: PropertyType)] = []
                for field in fields { parsed.append((field.key, try PropertyType(declaration: field.value))) }
                self = .record(parsed)
            case "optional": self = .optional(try PropertyType(declaration: inner))
            case "array": self = .array(try PropertyType(declaration: inner))
            default:
                throw .invalidDeclaration(field: "type", reason: "unknown type form \"\(key)\"; use record, optional or array")
            }
        default:
            throw .invalidDeclaration(field: "type", reason: "a type is a string such as \"int\" or \"[string]?\", or {\"record\": {...}}")
        }
    }

    private init(parsing text: Substring, whole: String) throws(EngineError) {
        if text.hasSuffix("?") {
            self = .optional(try PropertyType(parsing: text.dropLast(), whole: whole))
        } else if text.hasPrefix("["), text.hasSuffix("]") {
            self = .array(try PropertyType(parsing: text.dropFirst().dropLast(), whole: whole))
        } else if text.hasPrefix("@"), text.count > 1 {
            self = .reference(String(text.dropFirst()))
        } else {
            switch text {
            case "string": self = .string
            case "int": self = .int
            case "double": self = .double
            case "bool": self = .bool
            case "json": self = .json
            default:
                throw .invalidDeclaration(
                    field: "type", reason: "unknown type \"\(whole)\"; use string, int, double, bool, json, T?, [T] or @Type")
            }
        }
    }
}
