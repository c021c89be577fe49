import MilieuJSON

/// `schema/types` (SPEC §9.2): every model type the daemon knows.
public struct SchemaTypesRequest: RPCMethod {
    public static let name = "schema/types"

    public static let effect = MethodEffect.read
    public init() {}
    public init(params: inout ParamsReader) throws(RPCError) {}
    public var params: JSONObject { [:] }

    public struct Result: WireResult, Equatable {
        /// Every model type, sorted by name.
        public var types: [TypeDescription]
        /// Every environment key, sorted by name.
        public var environmentKeys: [EnvironmentKeyDescription]

        public init(types: [TypeDescription], environmentKeys: [EnvironmentKeyDescription]) {
            self.types = types
            self.environmentKeys = environmentKeys
        }

        public var wire: JSON {
            ["types": .array(types.map(\.wire)), "environmentKeys": .array(environmentKeys.map(\.wire))]
        }

        public init?(wire: JSON) {
            guard let typesWire = wire["types"]?.arrayValue, let keysWire = wire["environmentKeys"]?.arrayValue else { return nil }
            let types = typesWire.compactMap(TypeDescription.init(wire:))
            let keys = keysWire.compactMap(EnvironmentKeyDescription.init(wire:))
            guard types.count == typesWire.count, keys.count == keysWire.count else { return nil }
            self.init(types: types, environmentKeys: keys)
        }
    }
}

/// `schema/register` (SPEC §9.3): declares model types and environment keys.
public struct SchemaRegisterRequest: RPCMethod {
    public static let name = "schema/register"

    public static let effect = MethodEffect.writesGraph
    /// Type declarations (SPEC §9.3), checked by the engine.
    public var types: [JSON]
    /// `{key: {type, default, secure?}}`: custom environment keys with their defaults.
    public var environmentKeys: JSONObject
    /// A type of a name already registered replaces it (SPEC §9.3): a reloaded source's own types.
    public var replace: Bool

    public init(types: [JSON] = [], environmentKeys: JSONObject = [:], replace: Bool = false) {
        self.types = types
        self.environmentKeys = environmentKeys
        self.replace = replace
    }

    public init(params: inout ParamsReader) throws(RPCError) {
        types = try params.optionalArray("types") ?? []
        environmentKeys = try params.optionalObject("environmentKeys") ?? [:]
        replace = try params.optionalBool("replace") ?? false
        guard !types.isEmpty || !environmentKeys.isEmpty else {
            throw .invalidParams(field: "/types", "at least one type declaration or environment key")
        }
    }

    public var params: JSONObject {
        var params = JSONObject()
        if !types.isEmpty { params["types"] = .array(types) }
        if !environmentKeys.isEmpty { params["environmentKeys"] = .object(environmentKeys) }
        if replace { params["replace"] = true }
        return params
    }

    public struct Result: WireResult, Equatable {
        /// The names of the types registered, in order.
        public var types: [String]
        /// The environment keys that are new.
        public var environmentKeys: [String]
        public var version: Int

        public init(types: [String], environmentKeys: [String], version: Int) {
            self.types = types
            self.environmentKeys = environmentKeys
            self.version = version
        }

        public var wire: JSON {
            [
                "types": .array(types.map(JSON.string)), "environmentKeys": .array(environmentKeys.map(JSON.string)),
                "version": .int(version),
            ]
        }

        public init?(wire: JSON) {
            guard let types = strings(wire["types"]), let keys = strings(wire["environmentKeys"]),
                let version = wire["version"]?.intValue
            else { return nil }
            self.init(types: types, environmentKeys: keys, version: version)
        }
    }
}

/// `graph/get` (SPEC §9.4): the value at a key path, an object, or a view's snapshot.
public struct GraphGetRequest: RPCMethod {
    public typealias Result = JSON
    public static let name = "graph/get"

    public static let effect = MethodEffect.read
    public var path: String

    public init(path: String) { self.path = path }
    public init(params: inout ParamsReader) throws(RPCError) { path = try params.string("path") }
    public var params: JSONObject { ["path": .string(path)] }
}

/// `graph/set` (SPEC §9.5): writes one property or `@State` variable.
public struct GraphSetRequest: TransactionMethod {
    public typealias Result = VersionResult
    public static let name = "graph/set"

    public static let effect = MethodEffect.writesValues
    public var path: String
    public var value: JSON
    /// Refuses the write (`VersionConflict`) unless the graph is at this version.
    public var ifVersion: Int?

    public init(path: String, value: JSON, ifVersion: Int? = nil) {
        self.path = path
        self.value = value
        self.ifVersion = ifVersion
    }

    public init(params: inout ParamsReader) throws(RPCError) {
        path = try params.string("path")
        value = try params.required("value")
        ifVersion = try params.optionalInt("ifVersion")
    }

    public var params: JSONObject {
        var params: JSONObject = ["path": .string(path), "value": value]
        params.set("ifVersion", ifVersion.map(JSON.int))
        return params
    }
}

/// `graph/call` (SPEC §9.6): runs an action of an object.
public struct GraphCallRequest: TransactionMethod {
    public static let name = "graph/call"

    public static let effect = MethodEffect.writesValues
    public var path: String
    public var arguments: [JSON]

    public init(path: String, arguments: [JSON] = []) {
        self.path = path
        self.arguments = arguments
    }

    public init(params: inout ParamsReader) throws(RPCError) {
        path = try params.string("path")
        arguments = try params.optionalArray("args") ?? []
    }

    public var params: JSONObject {
        var params: JSONObject = ["path": .string(path)]
        if !arguments.isEmpty { params["args"] = .array(arguments) }
        return params
    }

    public struct Result: WireResult, Equatable {
        /// What the action returned (`null` for none).
        public var result: JSON
        public var version: Int

        public init(result: JSON, version: Int) {
            self.result = result
            self.version = version
        }

        public var wire: JSON { ["result": result, "version": .int(version)] }

        public init?(wire: JSON) {
            guard let version = wire["version"]?.intValue else { return nil }
            self.init(result: wire["result"] ?? .null, version: version)
        }
    }
}

/// `graph/transaction` (SPEC §9.7): several ops, all or none, under one version.
public struct GraphTransactionRequest: RPCMethod {
    public static let name = "graph/transaction"

    public static let effect = MethodEffect.writesGraph
    public var operations: [any TransactionMethod]

    public init(operations: [any TransactionMethod]) { self.operations = operations }

    public init(params: inout ParamsReader) throws(RPCError) {
        var operations: [any TransactionMethod] = []
        for (index, op) in try params.array("ops").enumerated() {
            operations.append(try Methods.decodeOperation(op, pointer: "/ops/\(index)"))
        }
        self.operations = operations
    }

    public var params: JSONObject { ["ops": .array(operations.map { Methods.op($0) })] }

    public struct Result: WireResult, Equatable {
        /// Each op's result, as its own method would have answered.
        public var results: [JSON]
        public var version: Int

        public init(results: [JSON], version: Int) {
            self.results = results
            self.version = version
        }

        public var wire: JSON { ["results": .array(results), "version": .int(version)] }

        public init?(wire: JSON) {
            guard let results = wire["results"]?.arrayValue, let version = wire["version"]?.intValue else { return nil }
            self.init(results: results, version: version)
        }
    }
}

/// `graph/reset` (SPEC §9.22): the graph back to its scene's start, as one transaction — every
/// view clients mounted unmounted (retained ones too), the scene's views, what they provide and
/// their values as they began. With `dryRun`, what it would do, and nothing done.
public struct GraphResetRequest: RPCMethod {
    public static let name = "graph/reset"

    public static let effect = MethodEffect.writesGraph
    public var dryRun: Bool

    public init(dryRun: Bool = false) { self.dryRun = dryRun }
    public init(params: inout ParamsReader) throws(RPCError) { dryRun = try params.optionalBool("dryRun") ?? false }
    public var params: JSONObject { dryRun ? ["dryRun": true] : [:] }

    public struct Result: WireResult, Equatable {
        /// The version it committed; with `dryRun`, or when there was nothing to undo, the current one.
        public var version: Int
        /// The top views it unmounted (each with everything below it), the scene views it mounted
        /// again, the scene views whose provided environment it restored, and the paths it wrote back.
        public var unmounted: [String]
        public var remounted: [String]
        public var provided: [String]
        public var written: [String]

        public init(version: Int, unmounted: [String], remounted: [String], provided: [String], written: [String]) {
            self.version = version
            self.unmounted = unmounted
            self.remounted = remounted
            self.provided = provided
            self.written = written
        }

        public var wire: JSON {
            [
                "version": .int(version), "unmounted": .array(unmounted.map(JSON.string)),
                "remounted": .array(remounted.map(JSON.string)), "provided": .array(provided.map(JSON.string)),
                "written": .array(written.map(JSON.string)),
            ]
        }

        public init?(wire: JSON) {
            guard let version = wire["version"]?.intValue, let unmounted = strings(wire["unmounted"]),
                let remounted = strings(wire["remounted"]), let provided = strings(wire["provided"]),
                let written = strings(wire["written"])
            else { return nil }
            self.init(version: version, unmounted: unmounted, remounted: remounted, provided: provided, written: written)
        }
    }
}
