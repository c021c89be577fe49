import MilieuJSON

extension ModelType {
    /// A model type declared in JSON, without writing Swift:
    ///
    ///     {"name": "Profile", "style": "observable",
    ///      "properties": {"age": {"type": "int", "default": 0, "min": 0, "max": 150},
    ///                     "pin": {"type": "string", "secure": true, "pattern": "[0-9]{4}"}}}
    public init(declaration: JSON) throws(EngineError) {
        guard case .object(let object) = declaration else {
            throw .invalidDeclaration(field: "type", reason: "a type declaration is a JSON object")
        }
        try rejectUnknownKeys(object, allowed: ["name", "style", "properties"], field: "type")
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
            for (propertyName, spec) in properties { stored.append(try StoredProperty(propertyName, declaration: spec)) }
        default: throw .invalidDeclaration(field: "properties", reason: "properties is an object of property declarations")
        }
        self.init(name: name, style: style, stored: stored)
    }
}

extension StoredProperty {
    init(_ name: String, declaration: JSON) throws(EngineError) {
        let field = "properties.\(name)"
        guard case .object(let spec) = declaration else {
            throw .invalidDeclaration(field: field, reason: "a property declaration is an object with a \"type\"")
        }
        try rejectUnknownKeys(spec, allowed: ["type", "default", "secure", "oneOf", "min", "max", "pattern"], field: field)
        guard let typeDeclaration = spec["type"] else {
            throw .invalidDeclaration(field: field, reason: "a property needs a \"type\"")
        }
        let type = try PropertyType(declaration: typeDeclaration)
        var validation = Validation()
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
        var secure = false
        if let flag = spec["secure"] {
            guard case .bool(let value) = flag else {
                throw .invalidDeclaration(field: "\(field).secure", reason: "secure is true or false")
            }
            secure = value
        }
        self.init(name, type, default: Self.defaultValue(spec["default"], type: type, validation: validation),
                  secure: secure, validation: validation)
    }

    /// The declared default; else the first allowed value, else the minimum when zero is below it.
    private static func defaultValue(_ declared: JSON?, type: PropertyType, validation: Validation) -> JSON? {
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
