import MilieuJSON

/// `view/mount` (SPEC §9.8): mounts a view declared in the params.
public struct ViewMountRequest: TransactionMethod {
    public static let name = "view/mount"
    /// The whole declaration (`parent`, `name`, wrappers, `body`, …), read by the engine's one grammar.
    public var declaration: JSONObject

    public init(declaration: JSONObject) { self.declaration = declaration }

    public init(params: inout ParamsReader) throws(RPCError) {
        params.consumeAll()
        declaration = params.all
    }

    public var params: JSONObject { declaration }

    public struct Result: WireResult, Equatable {
        public var path: String
        /// The body as first evaluated.
        public var body: [String]
        /// The object each object-holding variable got, by variable name.
        public var objects: JSONObject
        public var version: Int

        public init(path: String, body: [String], objects: JSONObject, version: Int) {
            self.path = path
            self.body = body
            self.objects = objects
            self.version = version
        }

        public var wire: JSON {
            .object(
                JSONObject(uniqueMembers: [
                    ("path", .string(path)), ("body", .array(body.map(JSON.string))), ("objects", .object(objects)),
                    ("version", .int(version)),
                ]))
        }

        public init?(wire: JSON) {
            guard let path = wire["path"]?.stringValue, let body = strings(wire["body"]), let objects = wire["objects"]?.objectValue,
                let version = wire["version"]?.intValue
            else { return nil }
            self.init(path: path, body: body, objects: objects, version: version)
        }
    }
}

/// `view/unmount` (SPEC §9.9): unmounts a view and its subtree.
public struct ViewUnmountRequest: TransactionMethod {
    public typealias Result = VersionResult
    public static let name = "view/unmount"
    public var path: String

    public init(path: String) { self.path = path }
    public init(params: inout ParamsReader) throws(RPCError) { path = try params.string("path") }
    public var params: JSONObject { ["path": .string(path)] }
}

/// `view/provide` (SPEC §9.10): changes what a mounted view provides to its subtree.
public struct ViewProvideRequest: TransactionMethod {
    public typealias Result = VersionResult
    public static let name = "view/provide"
    public var path: String
    /// Variables to provide with `.environmentObject(_:)`.
    public var environmentObjects: [String]
    /// Variables to provide with `.environment(_:)` (an `@Observable` object).
    public var observables: [String]
    /// Environment values to set: `{key: value or {"$state": variable}}`.
    public var environment: JSONObject
    /// Types or keys to stop providing.
    public var withdraw: [String]

    public init(
        path: String, environmentObjects: [String] = [], observables: [String] = [], environment: JSONObject = [:],
        withdraw: [String] = []
    ) {
        self.path = path
        self.environmentObjects = environmentObjects
        self.observables = observables
        self.environment = environment
        self.withdraw = withdraw
    }

    public init(params: inout ParamsReader) throws(RPCError) {
        path = try params.string("path")
        environmentObjects = try params.optionalStrings("environmentObjects") ?? []
        observables = try params.optionalStrings("observables") ?? []
        environment = try params.optionalObject("environment") ?? [:]
        withdraw = try params.optionalStrings("withdraw") ?? []
    }

    public var params: JSONObject {
        var params: JSONObject = ["path": .string(path)]
        if !environmentObjects.isEmpty { params["environmentObjects"] = .array(environmentObjects.map(JSON.string)) }
        if !observables.isEmpty { params["observables"] = .array(observables.map(JSON.string)) }
        if !environment.isEmpty { params["environment"] = .object(environment) }
        if !withdraw.isEmpty { params["withdraw"] = .array(withdraw.map(JSON.string)) }
        return params
    }
}

/// `view/tree` (SPEC §9.11): the mounted views under a path, with what each holds.
public struct ViewTreeRequest: RPCMethod {
    public static let name = "view/tree"
    /// The subtree's root; nil for `/App`.
    public var path: String?

    public init(path: String? = nil) { self.path = path }
    public init(params: inout ParamsReader) throws(RPCError) { path = try params.optionalString("path") }

    public var params: JSONObject {
        var params = JSONObject()
        params.set("path", path.map(JSON.string))
        return params
    }

    public struct Result: WireResult, Equatable {
        /// The subtree, its root's `children` filled in (SPEC §9.11).
        public var root: ViewSnapshot
        public var version: Int

        public init(root: ViewSnapshot, version: Int) {
            self.root = root
            self.version = version
        }

        public var wire: JSON { ["root": root.wire, "version": .int(version)] }

        public init?(wire: JSON) {
            guard let root = wire["root"].flatMap(ViewSnapshot.init(wire:)), let version = wire["version"]?.intValue else { return nil }
            self.init(root: root, version: version)
        }
    }
}
