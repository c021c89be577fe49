import MilieuJSON

/// One thing a view's last body evaluation read, and the reasons a change to it gives
/// (`view/dependencies`, SPEC §9.16). Names places, never values: nothing secure can show.
public struct ViewDependency: Sendable, Equatable {
    /// What was read.
    public enum Source: Sendable, Hashable {
        /// A stored property of an object, read through an `@Observable` object or a binding:
        /// its key path from the object (`Login#3.email`).
        case property(object: String, property: String)
        /// A view's `@State`, read by the view itself or through a binding (`/App/Parent.isOn`).
        case state(view: String, variable: String)
        /// Any announced change of an `ObservableObject` the view holds (coarse, rule 10).
        case object(object: String, type: String)
        /// An environment value, and the view that provides it (nil: the key's default).
        case environment(key: String, provider: String?)
    }

    public var source: Source
    /// The reasons a change gives, as `view/didUpdate` would list them (SPEC §6.4).
    public var reasons: [String]

    public init(source: Source, reasons: [String]) {
        self.source = source
        self.reasons = reasons
    }

    public var wire: JSON {
        var entry: JSONObject
        switch source {
        case .property(let object, let property):
            entry = [
                "kind": "property", "path": .string("\(object).\(property)"), "object": .string(object),
                "property": .string(property),
            ]
        case .state(let view, let variable):
            entry = ["kind": "state", "path": .string("\(view).\(variable)"), "view": .string(view), "variable": .string(variable)]
        case .object(let object, let type): entry = ["kind": "object", "object": .string(object), "type": .string(type)]
        case .environment(let key, let provider):
            entry = ["kind": "environment", "key": .string(key), "provider": provider.map(JSON.string) ?? .null]
        }
        entry["reasons"] = .array(reasons.map(JSON.string))
        return .object(entry)
    }

    public init?(wire: JSON) {
        guard let reasons = strings(wire["reasons"]), let kind = wire["kind"]?.stringValue else { return nil }
        let source: Source
        switch kind {
        case "property":
            guard let object = wire["object"]?.stringValue, let property = wire["property"]?.stringValue else { return nil }
            source = .property(object: object, property: property)
        case "state":
            guard let view = wire["view"]?.stringValue, let variable = wire["variable"]?.stringValue else { return nil }
            source = .state(view: view, variable: variable)
        case "object":
            guard let object = wire["object"]?.stringValue, let type = wire["type"]?.stringValue else { return nil }
            source = .object(object: object, type: type)
        case "environment":
            guard let key = wire["key"]?.stringValue, let provider = wire["provider"], provider.isNull || provider.stringValue != nil
            else { return nil }
            source = .environment(key: key, provider: provider.stringValue)
        default: return nil
        }
        self.init(source: source, reasons: reasons)
    }
}

/// A mounted view that a change of a key path would evaluate again, and the reasons it would
/// give (`graph/readers`, SPEC §9.17).
public struct ViewReader: Sendable, Equatable {
    public var view: String
    public var reasons: [String]

    public init(view: String, reasons: [String]) {
        self.view = view
        self.reasons = reasons
    }

    public var wire: JSON { ["view": .string(view), "reasons": .array(reasons.map(JSON.string))] }

    public init?(wire: JSON) {
        guard let view = wire["view"]?.stringValue, let reasons = strings(wire["reasons"]) else { return nil }
        self.init(view: view, reasons: reasons)
    }
}

/// What the environment holds for one view (`view/environment`, SPEC §9.18): the nearest
/// provider of each object type in both slots, and every environment key's value.
public struct EnvironmentScope: Sendable, Equatable {
    /// An object in the environment and the view that provides it.
    public struct ProvidedObject: Sendable, Equatable {
        public var type: String
        public var object: String
        public var provider: String

        public init(type: String, object: String, provider: String) {
            self.type = type
            self.object = object
            self.provider = provider
        }

        public var wire: JSON { ["type": .string(type), "object": .string(object), "provider": .string(provider)] }

        public init?(wire: JSON) {
            guard let type = wire["type"]?.stringValue, let object = wire["object"]?.stringValue,
                let provider = wire["provider"]?.stringValue
            else { return nil }
            self.init(type: type, object: object, provider: provider)
        }
    }

    /// An environment key's value as the view sees it, and the view that provides it (nil: the default).
    public struct Value: Sendable, Equatable {
        public var key: String
        public var value: JSON
        public var provider: String?

        public init(key: String, value: JSON, provider: String?) {
            self.key = key
            self.value = value
            self.provider = provider
        }

        public var wire: JSON { ["key": .string(key), "value": value, "provider": provider.map(JSON.string) ?? .null] }

        public init?(wire: JSON) {
            guard let key = wire["key"]?.stringValue, let value = wire["value"], let provider = wire["provider"],
                provider.isNull || provider.stringValue != nil
            else { return nil }
            self.init(key: key, value: value, provider: provider.stringValue)
        }
    }

    /// `.environmentObject(_:)`, by type.
    public var environmentObjects: [ProvidedObject]
    /// `.environment(_:)` of an `@Observable` object, by type.
    public var observables: [ProvidedObject]
    /// Every environment key, by name.
    public var environment: [Value]

    public init(environmentObjects: [ProvidedObject], observables: [ProvidedObject], environment: [Value]) {
        self.environmentObjects = environmentObjects
        self.observables = observables
        self.environment = environment
    }
}
