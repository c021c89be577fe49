import MilieuJSON

/// A model type as `schema/types` lists it (SPEC §9.2).
public struct TypeDescription: Sendable, Equatable {
    public var name: String
    /// `observable` or `observableObject`.
    public var style: String
    public var builtIn: Bool
    /// Stored properties in declaration order, then computed ones.
    public var properties: [PropertyDescription]
    public var actions: [ActionDescription]

    public init(name: String, style: String, builtIn: Bool, properties: [PropertyDescription], actions: [ActionDescription]) {
        self.name = name
        self.style = style
        self.builtIn = builtIn
        self.properties = properties
        self.actions = actions
    }

    public var wire: JSON {
        [
            "name": .string(name), "style": .string(style), "properties": .array(properties.map(\.wire)),
            "actions": .array(actions.map(\.wire)), "builtIn": .bool(builtIn),
        ]
    }

    public init?(wire: JSON) {
        guard let name = wire["name"]?.stringValue, let style = wire["style"]?.stringValue, let builtIn = wire["builtIn"]?.boolValue,
            let properties = wire["properties"]?.arrayValue, let actions = wire["actions"]?.arrayValue
        else { return nil }
        let described = properties.compactMap(PropertyDescription.init(wire:))
        let actionsDescribed = actions.compactMap(ActionDescription.init(wire:))
        guard described.count == properties.count, actionsDescribed.count == actions.count else { return nil }
        self.init(name: name, style: style, builtIn: builtIn, properties: described, actions: actionsDescribed)
    }
}

/// A property of a described type.
public struct PropertyDescription: Sendable, Equatable {
    public var name: String
    /// In the rendered syntax of SPEC §5.2 (`[string]`, `@Person?`).
    public var type: String
    public var computed: Bool
    public var secure: Bool
    /// For the stored properties of an `observableObject` type: `@Published` or a plain `var`.
    public var published: Bool?
    /// Nil for computed and secure properties, and for one that makes its object.
    public var defaultValue: JSON?
    public var constraints: Constraints
    /// A reference whose object is made with its holder, of this type (`var inner = Inner()`).
    public var makes: String?
    /// A reference whose object's announcements its holder forwards.
    public var forwards: Bool

    public init(
        name: String, type: String, computed: Bool, secure: Bool, published: Bool?, defaultValue: JSON?,
        constraints: Constraints, makes: String? = nil, forwards: Bool = false
    ) {
        self.name = name
        self.type = type
        self.computed = computed
        self.secure = secure
        self.published = published
        self.defaultValue = defaultValue
        self.constraints = constraints
        self.makes = makes
        self.forwards = forwards
    }

    public var wire: JSON {
        var entry: JSONObject = ["name": .string(name), "type": .string(type), "computed": .bool(computed), "secure": .bool(secure)]
        if let defaultValue { entry["default"] = defaultValue }
        if let published { entry["published"] = .bool(published) }
        if let makes { entry["makes"] = .string(makes) }
        if forwards { entry["forwards"] = true }
        constraints.write(into: &entry)
        return .object(entry)
    }

    public init?(wire: JSON) {
        guard let name = wire["name"]?.stringValue, let type = wire["type"]?.stringValue, let computed = wire["computed"]?.boolValue,
            let secure = wire["secure"]?.boolValue
        else { return nil }
        self.init(
            name: name, type: type, computed: computed, secure: secure, published: wire["published"]?.boolValue,
            defaultValue: wire["default"], constraints: Constraints(wire: wire), makes: wire["makes"]?.stringValue,
            forwards: wire["forwards"] == true)
    }
}

/// An action of a described type: its name, each parameter as `name: type`, and the names of
/// those whose argument is a secret (SPEC §9.3.3).
public struct ActionDescription: Sendable, Equatable {
    public var name: String
    public var params: [String]
    /// Empty when no argument is a secret (the wire leaves `secureParams` out).
    public var secureParams: [String]

    public init(name: String, params: [String], secureParams: [String] = []) {
        self.name = name
        self.params = params
        self.secureParams = secureParams
    }

    /// The positions of the secure parameters among `params`.
    public var secureIndices: [Int] {
        params.indices.filter { index in secureParams.contains { params[index].hasPrefix($0 + ":") } }
    }

    public var wire: JSON {
        var entry: JSONObject = ["name": .string(name), "params": .array(params.map(JSON.string))]
        if !secureParams.isEmpty { entry["secureParams"] = .array(secureParams.map(JSON.string)) }
        return .object(entry)
    }

    public init?(wire: JSON) {
        guard let name = wire["name"]?.stringValue, let params = strings(wire["params"]) else { return nil }
        self.init(name: name, params: params, secureParams: strings(wire["secureParams"]) ?? [])
    }
}

/// An environment key as `schema/types` lists it: built-in with SwiftUI's default, or declared.
public struct EnvironmentKeyDescription: Sendable, Equatable {
    public var name: String
    public var type: String
    /// What a view reads when no ancestor provides the key.
    public var defaultValue: JSON
    public var builtIn: Bool
    public var constraints: Constraints

    public init(name: String, type: String, defaultValue: JSON, builtIn: Bool, constraints: Constraints) {
        self.name = name
        self.type = type
        self.defaultValue = defaultValue
        self.builtIn = builtIn
        self.constraints = constraints
    }

    public var wire: JSON {
        var entry: JSONObject = ["name": .string(name), "type": .string(type), "default": defaultValue, "builtIn": .bool(builtIn)]
        constraints.write(into: &entry)
        return .object(entry)
    }

    public init?(wire: JSON) {
        guard let name = wire["name"]?.stringValue, let type = wire["type"]?.stringValue, let defaultValue = wire["default"],
            let builtIn = wire["builtIn"]?.boolValue
        else { return nil }
        self.init(name: name, type: type, defaultValue: defaultValue, builtIn: builtIn, constraints: Constraints(wire: wire))
    }
}

/// The constraints a property or key declares beyond its type (SPEC §5.3), those it has.
public struct Constraints: Sendable, Equatable {
    public var oneOf: [JSON]?
    public var min: Double?
    public var max: Double?
    /// An I-Regexp the whole string must match.
    public var pattern: String?

    public init(oneOf: [JSON]? = nil, min: Double? = nil, max: Double? = nil, pattern: String? = nil) {
        self.oneOf = oneOf
        self.min = min
        self.max = max
        self.pattern = pattern
    }

    init(wire: JSON) {
        self.init(
            oneOf: wire["oneOf"]?.arrayValue, min: wire["min"]?.numberValue, max: wire["max"]?.numberValue,
            pattern: wire["pattern"]?.stringValue)
    }

    func write(into entry: inout JSONObject) {
        if let oneOf { entry["oneOf"] = .array(oneOf) }
        if let min { entry["min"] = .double(min) }
        if let max { entry["max"] = .double(max) }
        if let pattern { entry["pattern"] = .string(pattern) }
    }

    /// Each constraint as a person reads it: `oneOf ["light","dark"]`, `min 0.5`.
    public var notes: [String] {
        var notes: [String] = []
        if let oneOf { notes.append("oneOf \(JSON.array(oneOf).jsonText)") }
        if let min { notes.append("min \(JSON.double(min).jsonText)") }
        if let max { notes.append("max \(JSON.double(max).jsonText)") }
        if let pattern { notes.append("pattern \(JSON.string(pattern).jsonText)") }
        return notes
    }
}
