import MilieuJSON

/// `graph/explain` (SPEC §9.19): the cause and effect of one commit, as a graph — what made it,
/// the attributes it changed, the views it evaluated and why, and what followed.
public struct GraphExplainRequest: RPCMethod {
    public static let name = "graph/explain"

    public static let effect = MethodEffect.read
    public var version: Int

    public init(version: Int) { self.version = version }
    public init(params: inout ParamsReader) throws(RPCError) { version = try params.int("version") }
    public var params: JSONObject { ["version": .int(version)] }

    public struct Result: WireResult, Equatable {
        public var version: Int
        /// What made the commit; nil when the daemon no longer knows (a commit read back from the
        /// log after a restart, or the scene's load).
        public var cause: CommitCause?
        public var nodes: [ExplainNode]
        public var edges: [ExplainEdge]

        public init(version: Int, cause: CommitCause?, nodes: [ExplainNode], edges: [ExplainEdge]) {
            self.version = version
            self.cause = cause
            self.nodes = nodes
            self.edges = edges
        }

        public var wire: JSON {
            [
                "version": .int(version), "cause": cause?.wire ?? .null, "nodes": .array(nodes.map(\.wire)),
                "edges": .array(edges.map(\.wire)),
            ]
        }

        public init?(wire: JSON) {
            guard let version = wire["version"]?.intValue, let nodesWire = wire["nodes"]?.arrayValue,
                let edgesWire = wire["edges"]?.arrayValue
            else { return nil }
            let nodes = nodesWire.compactMap(ExplainNode.init(wire:))
            let edges = edgesWire.compactMap(ExplainEdge.init(wire:))
            guard nodes.count == nodesWire.count, edges.count == edgesWire.count else { return nil }
            let cause: CommitCause?
            switch wire["cause"] {
            case nil, .null?: cause = nil
            case let given?:
                guard let read = CommitCause(wire: given) else { return nil }
                cause = read
            }
            self.init(version: version, cause: cause, nodes: nodes, edges: edges)
        }
    }
}

/// What made a commit: a request (its method, the connection that sent it, and what each of its
/// operations named), or a connection's close (`connection/closed`), which unmounts its views.
public struct CommitCause: Sendable, Equatable {
    /// One operation of the request: its method and the path it named (a key path, or a view's).
    public struct Operation: Sendable, Equatable {
        public var method: String
        public var path: String?

        public init(method: String, path: String?) {
            self.method = method
            self.path = path
        }
    }

    /// The method name a connection's close is given.
    public static let connectionClosed = "connection/closed"

    public var method: String
    public var connection: Int
    public var pid: Int?
    /// The `client.name` it gave in `initialize`, if it did.
    public var client: String?
    public var operations: [Operation]
    /// How many more ops a transaction had than `operations` lists (the daemon keeps the first 16).
    public var moreOperations: Int

    public init(method: String, connection: Int, pid: Int?, client: String?, operations: [Operation], moreOperations: Int = 0) {
        self.method = method
        self.connection = connection
        self.pid = pid
        self.client = client
        self.operations = operations
        self.moreOperations = moreOperations
    }

    public var wire: JSON {
        var object: JSONObject = ["method": .string(method), "connection": .int(connection)]
        object.set("pid", pid.map(JSON.int))
        object.set("client", client.map(JSON.string))
        object["ops"] = .array(
            operations.map { op in
                var entry: JSONObject = ["method": .string(op.method)]
                entry.set("path", op.path.map(JSON.string))
                return .object(entry)
            })
        if moreOperations > 0 { object["moreOps"] = .int(moreOperations) }
        return .object(object)
    }

    public init?(wire: JSON) {
        guard let method = wire["method"]?.stringValue, let connection = wire["connection"]?.intValue,
            let ops = wire["ops"]?.arrayValue
        else { return nil }
        var operations: [Operation] = []
        for op in ops {
            guard let name = op["method"]?.stringValue else { return nil }
            operations.append(Operation(method: name, path: op["path"]?.stringValue))
        }
        self.init(
            method: method, connection: connection, pid: wire["pid"]?.intValue, client: wire["client"]?.stringValue,
            operations: operations, moreOperations: wire["moreOps"]?.intValue ?? 0)
    }
}

/// A node of a commit's cause-and-effect graph. `detail` holds the members its kind has
/// (SPEC §9.19): a cause's request, an attribute's name and values, a view's path, reasons and
/// evaluation order, an effect's kind and subject.
public struct ExplainNode: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case cause, attribute, view, effect
    }

    public var id: String
    public var kind: Kind
    public var detail: JSONObject

    public init(id: String, kind: Kind, detail: JSONObject) {
        self.id = id
        self.kind = kind
        self.detail = detail
    }

    public var wire: JSON {
        var object: JSONObject = ["id": .string(id), "kind": .string(kind.rawValue)]
        for (key, value) in detail { object[key] = value }
        return .object(object)
    }

    public init?(wire: JSON) {
        guard case .object(let object) = wire, let id = object["id"]?.stringValue,
            let kind = object["kind"]?.stringValue.flatMap(Kind.init(rawValue:))
        else { return nil }
        self.init(id: id, kind: kind, detail: JSONObject(object.filter { $0.key != "id" && $0.key != "kind" }))
    }
}

/// An edge of a commit's cause-and-effect graph: the cause `wrote` an attribute, an attribute
/// `invalidated` a view (with the reason the view reports), a parent's evaluation re-rendered a
/// child (`parent`, reason `@self`), and a cause or a view `caused` an effect.
public struct ExplainEdge: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case wrote, invalidated, parent, caused
    }

    public var from: String
    public var to: String
    public var kind: Kind
    public var reason: String?

    public init(from: String, to: String, kind: Kind, reason: String? = nil) {
        self.from = from
        self.to = to
        self.kind = kind
        self.reason = reason
    }

    public var wire: JSON {
        var object: JSONObject = ["from": .string(from), "to": .string(to), "kind": .string(kind.rawValue)]
        object.set("reason", reason.map(JSON.string))
        return .object(object)
    }

    public init?(wire: JSON) {
        guard let from = wire["from"]?.stringValue, let to = wire["to"]?.stringValue,
            let kind = wire["kind"]?.stringValue.flatMap(Kind.init(rawValue:))
        else { return nil }
        self.init(from: from, to: to, kind: kind, reason: wire["reason"]?.stringValue)
    }
}
