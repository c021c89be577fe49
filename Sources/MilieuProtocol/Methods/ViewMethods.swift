import MilieuJSON

/// `view/mount` (SPEC §9.8): mounts a view declared in the params.
public struct ViewMountRequest: TransactionMethod {
    public static let name = "view/mount"

    public static let effect = MethodEffect.writesGraph
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

    public static let effect = MethodEffect.writesGraph
    public var path: String

    public init(path: String) { self.path = path }
    public init(params: inout ParamsReader) throws(RPCError) { path = try params.string("path") }
    public var params: JSONObject { ["path": .string(path)] }
}

/// `view/provide` (SPEC §9.10): changes what a mounted view provides to its subtree.
public struct ViewProvideRequest: TransactionMethod {
    public typealias Result = VersionResult
    public static let name = "view/provide"

    public static let effect = MethodEffect.writesGraph
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

/// `view/tree` (SPEC §9.11): the mounted views under a path, with what each holds — as one
/// tree, or with `limit` or `cursor` a page at a time.
public struct ViewTreeRequest: RPCMethod {
    public static let name = "view/tree"

    public static let effect = MethodEffect.read
    /// Views in a page when `cursor` comes without `limit`, and the most a page may hold.
    public static let defaultLimit = 1000
    public static let maxLimit = 10000

    /// The subtree's root; nil for `/App`.
    public var path: String?
    /// Levels below `path` to include; nil for all.
    public var depth: Int?
    /// Views per page; nil (and no `cursor`) for the whole tree in one answer.
    public var limit: Int?
    /// The previous page's `nextCursor`; it carries the path and depth, which may be left out.
    public var cursor: String?

    public init(path: String? = nil, depth: Int? = nil, limit: Int? = nil, cursor: String? = nil) {
        self.path = path
        self.depth = depth
        self.limit = limit
        self.cursor = cursor
    }

    public init(params: inout ParamsReader) throws(RPCError) {
        path = try params.optionalString("path")
        depth = try params.optionalInt("depth")
        limit = try params.optionalInt("limit")
        cursor = try params.optionalString("cursor")
        if let depth, depth < 0 { throw .invalidParams(field: "/depth", "depth is 0 (the view alone) or more") }
        if let limit, !(1...Self.maxLimit).contains(limit) {
            throw .invalidParams(field: "/limit", "limit is from 1 to \(Self.maxLimit) views")
        }
    }

    public var params: JSONObject {
        var params = JSONObject()
        params.set("path", path.map(JSON.string))
        params.set("depth", depth.map(JSON.int))
        params.set("limit", limit.map(JSON.int))
        params.set("cursor", cursor.map(JSON.string))
        return params
    }

    /// Whether the answer is a page (`nodes`) rather than one tree (`root`).
    public var isPaged: Bool { limit != nil || cursor != nil }

    /// One tree, or a page of one.
    public enum Result: WireResult, Equatable {
        /// The subtree, its root's `children` filled in down to the depth limit.
        case tree(root: ViewSnapshot, version: Int)
        case page(ViewTreePage, version: Int)

        public var version: Int {
            switch self {
            case .tree(_, let version), .page(_, let version): version
            }
        }

        public var wire: JSON {
            switch self {
            case .tree(let root, let version): return ["root": root.wire, "version": .int(version)]
            case .page(let page, let version):
                var result: JSONObject = ["nodes": .array(page.nodes.map(\.wire)), "version": .int(version)]
                result.set("nextCursor", page.nextCursor.map(JSON.string))
                return .object(result)
            }
        }

        public init?(wire: JSON) {
            guard let version = wire["version"]?.intValue else { return nil }
            if let root = wire["root"] {
                guard let root = ViewSnapshot(wire: root) else { return nil }
                self = .tree(root: root, version: version)
                return
            }
            guard let items = wire["nodes"]?.arrayValue else { return nil }
            var nodes: [ViewTreePage.Node] = []
            for item in items {
                guard let node = ViewTreePage.Node(wire: item) else { return nil }
                nodes.append(node)
            }
            self = .page(ViewTreePage(nodes: nodes, nextCursor: wire["nextCursor"]?.stringValue), version: version)
        }
    }
}
