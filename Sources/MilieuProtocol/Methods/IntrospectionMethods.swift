import MilieuJSON

/// Reads the list of `key` from a result as `Element`s, or nil when one of them is not one.
private func list<Element>(_ wire: JSON, _ key: String, _ element: (JSON) -> Element?) -> [Element]? {
    guard let items = wire[key]?.arrayValue else { return nil }
    let elements = items.compactMap(element)
    return elements.count == items.count ? elements : nil
}

/// `view/dependencies` (SPEC §9.16): what a view's last body evaluation read, each with the
/// reasons a change to it gives — the engine's own dependency record, not a re-derivation.
public struct ViewDependenciesRequest: RPCMethod {
    public static let name = "view/dependencies"

    public static let effect = MethodEffect.read
    public var path: String

    public init(path: String) { self.path = path }
    public init(params: inout ParamsReader) throws(RPCError) { path = try params.string("path") }
    public var params: JSONObject { ["path": .string(path)] }

    public struct Result: WireResult, Equatable {
        /// The view's canonical path.
        public var path: String
        /// In the order the evaluation read them.
        public var dependencies: [ViewDependency]
        public var version: Int

        public init(path: String, dependencies: [ViewDependency], version: Int) {
            self.path = path
            self.dependencies = dependencies
            self.version = version
        }

        public var wire: JSON {
            ["path": .string(path), "dependencies": .array(dependencies.map(\.wire)), "version": .int(version)]
        }

        public init?(wire: JSON) {
            guard let path = wire["path"]?.stringValue, let dependencies = list(wire, "dependencies", ViewDependency.init(wire:)),
                let version = wire["version"]?.intValue
            else { return nil }
            self.init(path: path, dependencies: dependencies, version: version)
        }
    }
}

/// `graph/readers` (SPEC §9.17): the mounted views a change of a key path would evaluate again,
/// and the reasons each would give.
public struct GraphReadersRequest: RPCMethod {
    public static let name = "graph/readers"

    public static let effect = MethodEffect.read
    public var path: String

    public init(path: String) { self.path = path }
    public init(params: inout ParamsReader) throws(RPCError) { path = try params.string("path") }
    public var params: JSONObject { ["path": .string(path)] }

    public struct Result: WireResult, Equatable {
        /// Parents before children, as they would be evaluated.
        public var readers: [ViewReader]
        public var version: Int

        public init(readers: [ViewReader], version: Int) {
            self.readers = readers
            self.version = version
        }

        public var wire: JSON { ["readers": .array(readers.map(\.wire)), "version": .int(version)] }

        public init?(wire: JSON) {
            guard let readers = list(wire, "readers", ViewReader.init(wire:)), let version = wire["version"]?.intValue else {
                return nil
            }
            self.init(readers: readers, version: version)
        }
    }
}

/// `view/environment` (SPEC §9.18): every object and value the environment holds for a view,
/// with the ancestor that provides each.
public struct ViewEnvironmentRequest: RPCMethod {
    public static let name = "view/environment"

    public static let effect = MethodEffect.read
    public var path: String

    public init(path: String) { self.path = path }
    public init(params: inout ParamsReader) throws(RPCError) { path = try params.string("path") }
    public var params: JSONObject { ["path": .string(path)] }

    public struct Result: WireResult, Equatable {
        public var path: String
        public var scope: EnvironmentScope
        public var version: Int

        public init(path: String, scope: EnvironmentScope, version: Int) {
            self.path = path
            self.scope = scope
            self.version = version
        }

        public var wire: JSON {
            [
                "path": .string(path), "environmentObjects": .array(scope.environmentObjects.map(\.wire)),
                "observables": .array(scope.observables.map(\.wire)), "environment": .array(scope.environment.map(\.wire)),
                "version": .int(version),
            ]
        }

        public init?(wire: JSON) {
            guard let path = wire["path"]?.stringValue,
                let objects = list(wire, "environmentObjects", EnvironmentScope.ProvidedObject.init(wire:)),
                let observables = list(wire, "observables", EnvironmentScope.ProvidedObject.init(wire:)),
                let environment = list(wire, "environment", EnvironmentScope.Value.init(wire:)),
                let version = wire["version"]?.intValue
            else { return nil }
            self.init(
                path: path, scope: EnvironmentScope(environmentObjects: objects, observables: observables, environment: environment),
                version: version)
        }
    }
}
