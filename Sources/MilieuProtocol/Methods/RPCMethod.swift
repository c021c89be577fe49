import MilieuJSON

/// One method of Milieu's protocol, as a type: its wire name, its params (the stored
/// properties) and its result. Servers decode requests into these; clients build them and
/// get the typed result back.
///
/// Adding a method: a type conforming to `RPCMethod` in this folder, an entry in
/// `Methods.all`, and its handler in the server (a test checks that every method has one).
public protocol RPCMethod: Sendable {
    associatedtype Result: WireResult
    /// The method's name on the wire, e.g. `graph/set`.
    static var name: String { get }
    /// What the method does to the daemon's state; every list that depends on it is derived from it.
    static var effect: MethodEffect { get }
    /// Reads the params; `params.rejectUnknown()` is called after, by `Methods.decode`.
    init(params: inout ParamsReader) throws(RPCError)
    /// The params as they are sent.
    var params: JSONObject { get }
}

/// What a method does to the daemon's state: each method says so where it is declared, with no
/// default, and what depends on it is derived (the disk-full refusal, the inspector's allow-list).
public enum MethodEffect: Sendable {
    /// Answers from the daemon's state and changes nothing a request can read.
    case read
    /// Writes values or runs actions (`graph/set`, `graph/call`): the writes a page may make.
    case writesValues
    /// Changes the graph's shape or what it knows: views, what they provide, types, a reset.
    case writesGraph
    /// Concerns the connection or the daemon, not the graph: watches, shutdown.
    case session

    /// Whether the method may change the graph: refused while a full disk's backlog is at its bound.
    public var changesState: Bool { self == .writesValues || self == .writesGraph }
}

/// A method that may also be an op of `graph/transaction` (SPEC §9.7).
public protocol TransactionMethod: RPCMethod {}

/// A method's result: written to the wire by the server, read back by clients.
public protocol WireResult: Sendable {
    /// The result as it is sent.
    var wire: JSON { get }
    /// Reads a result; nil when `wire` does not have this result's shape.
    init?(wire: JSON)
}

/// The registry of Milieu's methods: the only list of them.
public enum Methods {
    /// Every method, in the order SPEC §9 describes them.
    public static let all: [any RPCMethod.Type] = [
        InitializeRequest.self, SchemaTypesRequest.self, SchemaRegisterRequest.self, GraphGetRequest.self,
        GraphSetRequest.self, GraphCallRequest.self, GraphTransactionRequest.self, ViewMountRequest.self,
        ViewUnmountRequest.self, ViewProvideRequest.self, ViewTreeRequest.self, WatchRequest.self, UnwatchRequest.self,
        ShutdownRequest.self, DiscoverRequest.self, ViewDependenciesRequest.self, GraphReadersRequest.self,
        ViewEnvironmentRequest.self, GraphExplainRequest.self, DaemonInfoRequest.self, DaemonClientsRequest.self, GraphResetRequest.self,
        ViewControlsRequest.self, ViewTapRequest.self, ViewInputRequest.self,
    ]

    /// Every method name, for `rpc.discover` checks and completion.
    public static let names: [String] = all.map { $0.name }

    /// The methods a `graph/transaction` op may name.
    public static let transactionNames: [String] = all.filter { $0 is any TransactionMethod.Type }.map { $0.name }

    private static let byName: [String: any RPCMethod.Type] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    /// Decodes a request's params into its method's type, refusing params the method does not take.
    public static func decode(method: String, params: JSONObject) throws(RPCError) -> any RPCMethod {
        guard let type = byName[method] else { throw .methodNotFound(method) }
        return try decode(type, params: params)
    }

    /// Decodes params given as JSON (typed by a person, read from a file) into `type`, checked as the daemon checks them.
    public static func decode<M: RPCMethod>(_ type: M.Type, params: JSONObject) throws(RPCError) -> M {
        var reader = ParamsReader(params)
        let method = try M(params: &reader)
        try reader.rejectUnknown()
        return method
    }

    /// Decodes one op of `graph/transaction` at `pointer` (`/ops/<i>`); errors point into the request.
    static func decodeOperation(_ op: JSON, pointer: String) throws(RPCError) -> any TransactionMethod {
        guard case .object(let object) = op else { throw .invalidParams(field: pointer, "an op is {\"method\", \"params\"}") }
        guard case .string(let method)? = object["method"], let type = byName[method] as? any TransactionMethod.Type
        else {
            throw .invalidParams(field: "\(pointer)/method", "an op is one of " + transactionNames.sorted().joined(separator: ", "))
        }
        for key in object.keys where key != "method" && key != "params" {
            throw .invalidParams(field: "\(pointer)/\(key)", "unknown member")
        }
        let params: JSONObject
        switch object["params"] {
        case nil: params = [:]
        case .object(let given)?: params = given
        default: throw .invalidParams(field: "\(pointer)/params", "params is an object")
        }
        do {
            return try decode(type, params: params)
        } catch {
            throw .invalidParams(
                field: "\(pointer)/params\(error.data["field"]?.stringValue ?? "")", error.data["reason"]?.stringValue ?? error.message)
        }
    }

    /// The op `method` is as a `graph/transaction` op.
    static func op(_ method: some TransactionMethod) -> JSON {
        ["method": .string(type(of: method).name), "params": .object(method.params)]
    }
}
