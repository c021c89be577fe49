import MilieuJSON
import MilieuProtocol

extension ModelType {
    /// A model type declared in JSON, without writing Swift (SPEC §9.3):
    ///
    ///     {"name": "Profile", "style": "observable",
    ///      "properties": {"age": {"type": "int", "default": 0, "min": 0, "max": 150},
    ///                     "pin": {"type": "string", "secure": true, "pattern": "[0-9]{4}"}},
    ///      "computed": {"isAdult": {"type": "bool", "get": {">=": [{"get": "age"}, 18]}}},
    ///      "actions": {"birthday": {"steps": [{"set": "age", "to": {"+": [{"get": "age"}, 1]}}]}}}
    ///
    /// `pointer` is where the declaration sits in the request's params (`/types/0`): errors in its
    /// shape and expressions are `InvalidParams` pointing below it.
    public init(declaration: JSON, at pointer: String = "", limits: ExpressionLimits = ExpressionLimits()) throws(EngineError) {
        let base = RequestPointer(pointer)
        guard case .object(let object) = declaration else {
            throw .invalidDeclaration(field: "type", reason: "a type declaration is a JSON object")
        }
        try rejectUnknownMembers(object, allowed: ["name", "style", "properties", "computed", "actions"], at: base)
        guard case .string(let name)? = object["name"] else {
            throw .invalidDeclaration(field: "name", reason: "a type declaration needs a string \"name\"")
        }
        let style: ObservationStyle
        switch object["style"] {
        case nil: style = .observable
        case .string(let text)?:
            guard let parsed = ObservationStyle(rawValue: text) else {
                throw .invalidDeclaration(field: "style", reason: "\"\(text)\" is not observable or observableObject")
            }
            style = parsed
        default: throw .invalidDeclaration(field: "style", reason: "style is a string")
        }
        var stored: [StoredProperty] = []
        switch object["properties"] {
        case nil: break
        case .object(let properties)?:
            for (propertyName, spec) in properties {
                stored.append(
                    try StoredProperty(propertyName, declaration: spec, style: style, at: base.member("properties").member(propertyName)))
            }
        default: throw .invalidDeclaration(field: "properties", reason: "properties is an object of property declarations")
        }
        let members = DeclaredMembers(typeName: name, stored: stored, limits: limits)
        let computed = try members.computed(object["computed"], at: base.member("computed"))
        let actions = try members.actions(object["actions"], computed: computed, at: base.member("actions"))
        self.init(name: name, style: style, stored: stored, computed: computed, actions: actions)
    }
}

extension StoredProperty {
    /// A property declaration of a type of `style` (nil for what is not a model type's property, such as
    /// an environment key), found at `pointer` in the request.
    init(
        _ name: String, declaration: JSON, style: ObservationStyle? = nil, at pointer: RequestPointer = RequestPointer()
    )
        throws(EngineError)
    {
        let field = "properties.\(name)"
        guard case .object(let spec) = declaration else {
            throw .invalidDeclaration(field: field, reason: "a property declaration is an object with a \"type\"")
        }
        try rejectUnknownMembers(
            spec, allowed: ["type", "default", "secure", "published", "observationIgnored", "forwards", "oneOf", "min", "max", "pattern"],
            at: pointer)
        guard let typeDeclaration = spec["type"] else {
            throw .invalidDeclaration(field: field, reason: "a property needs a \"type\"")
        }
        let type = try PropertyType(declaration: typeDeclaration)
        var validation = Constraints()
        if let oneOf = spec["oneOf"] {
            guard case .array(let values) = oneOf, !values.isEmpty else {
                throw .invalidDeclaration(field: "\(field).oneOf", reason: "oneOf is a non-empty array of values")
            }
            validation.oneOf = values
        }
        validation.min = try Self.number(spec["min"], field: "\(field).min")
        validation.max = try Self.number(spec["max"], field: "\(field).max")
        if let pattern = spec["pattern"] {
            guard case .string(let text) = pattern else {
                throw .invalidDeclaration(field: "\(field).pattern", reason: "pattern is a string")
            }
            validation.pattern = text
        }
        let secure = try Self.flag(spec["secure"], field: "\(field).secure") ?? false
        let published = try Self.flag(spec["published"], field: "\(field).published")
        // Rule 19: @Published exists only in an ObservableObject; the Observation macro observes
        // every stored property of an @Observable type, and Swift refuses the wrapper there.
        if published != nil, style != .observableObject {
            throw .invalidDeclaration(
                field: "\(field).published",
                reason: "@Published belongs to an ObservableObject; every stored property of an @Observable type is observed. "
                    + "Declare the type with \"style\": \"observableObject\", or leave \"published\" out")
        }
        // `@ObservationIgnored`: Observation neither tracks its reads nor announces its writes.
        let ignored = try Self.flag(spec["observationIgnored"], field: "\(field).observationIgnored")
        if ignored != nil, style != .observable {
            throw .invalidDeclaration(
                field: "\(field).observationIgnored",
                reason: "@ObservationIgnored belongs to an @Observable type; an ObservableObject's plain var is \"published\": false")
        }
        // `@Published var inner = Inner()`: `"default": {"$new": {"type": "Inner"}}` on a reference to it.
        var makes: String?
        var declaredDefault = spec["default"]
        if case .object(let object)? = declaredDefault, object.count == 1, let made = object["$new"] {
            guard case .object(let new) = made, new.count == 1, case .string(let madeType)? = new["type"],
                madeType == type.referencedType
            else {
                throw .invalidDeclaration(
                    field: "\(field).default",
                    reason: "a new object for a reference is {\"$new\": {\"type\": T}}, T the type it refers to (\(type))")
            }
            makes = madeType
            declaredDefault = nil
        }
        let forwards = try Self.flag(spec["forwards"], field: "\(field).forwards") ?? false
        if forwards, style != .observableObject || type.referencedType == nil {
            throw .invalidDeclaration(
                field: "\(field).forwards",
                reason: "forwards makes an ObservableObject announce when the object a reference property holds does; "
                    + "it takes a property of type @T or @T? of an observableObject type")
        }
        self.init(
            name, type, default: Self.defaultValue(declaredDefault, type: type, validation: validation),
            secure: secure, validation: validation, published: ignored == true ? false : published ?? true, makes: makes,
            forwards: forwards)
    }

    private static func flag(_ value: JSON?, field: String) throws(EngineError) -> Bool? {
        guard let value else { return nil }
        guard case .bool(let flag) = value else { throw .invalidDeclaration(field: field, reason: "true or false") }
        return flag
    }

    /// The declared default; else the first allowed value, else the minimum when zero is below it.
    private static func defaultValue(_ declared: JSON?, type: PropertyType, validation: Constraints) -> JSON? {
        if let declared { return type.conform(declared) ?? declared }
        if let first = validation.oneOf?.first { return first }
        if let min = validation.min, min > 0 { return type == .int ? .int(Int(min.rounded(.up))) : .double(min) }
        return nil
    }

    private static func number(_ value: JSON?, field: String) throws(EngineError) -> Double? {
        guard let value else { return nil }
        guard let number = value.numberValue else { throw .invalidDeclaration(field: field, reason: "a number") }
        return number
    }
}

/// Refuses members a type declaration does not know: InvalidParams, pointing at the member.
func rejectUnknownMembers(_ object: JSONObject, allowed: [String], at pointer: RequestPointer) throws(EngineError) {
    for key in object.keys where !allowed.contains(key) {
        throw .invalidParams(
            pointer: pointer.member(key).description,
            "unknown member \"\(key)\"; expected one of " + allowed.sorted().joined(separator: ", "))
    }
}

/// Refuses keys a declaration does not know, so that a typo is an error rather than ignored.
/// An unknown member is a mistake in the params themselves: InvalidParams, pointing at it.
/// `field` is the dotted place of `object` within the declaration ("declaration" for its top).
func rejectUnknownKeys(_ object: JSONObject, allowed: Set<String>, field: String, view: String? = nil) throws(EngineError) {
    for key in object.keys where !allowed.contains(key) {
        let base = ["declaration", "type", "scene", "app"].contains(field) ? "" : "/" + field.replacingDots()
        throw .invalidParams(
            pointer: base + "/" + key, "unknown member \"\(key)\"; expected one of " + allowed.sorted().joined(separator: ", "))
    }
}

extension String {
    /// `stateObjects.vm` as the JSON Pointer path `stateObjects/vm`.
    fileprivate func replacingDots() -> String { split(separator: ".").joined(separator: "/") }
}
