import MilieuJSON
import MilieuProtocol

/// A JSON-RPC request the page sends to `POST /rpc`, checked before it is passed on to milieud:
/// one request (no batch) whose method is on the allow-list. The page's id is kept here and put
/// back on the daemon's answer, which goes back otherwise untouched.
struct ForwardedCall {
    /// What the page may ask: reads, a write, an action, and the read-only introspection methods
    /// a newer daemon may have (one without them answers MethodNotFound). Never what mounts or
    /// unmounts views, registers types, watches on the inspector's connection or stops the daemon.
    static let allowedMethods: Set<String> = [
        InitializeRequest.name, SchemaTypesRequest.name, GraphGetRequest.name, ViewTreeRequest.name, DiscoverRequest.name,
        GraphSetRequest.name, GraphCallRequest.name,
        "view/dependencies", "graph/readers", "view/environment", "graph/explain",
    ]

    /// The page's id, `null` when it sent none.
    let id: JSON
    let method: String
    let params: JSONObject

    /// A request refused before it reached milieud: the error, and the page's id when it had one.
    struct Refusal: Error {
        let error: RPCError
        let id: JSON

        /// The refusal as the page gets it.
        var answer: String { ForwardedCall.refusal(error, id: id) }
    }

    /// Reads the page's request; throws the error to answer it with.
    init(body: [UInt8]) throws(Refusal) {
        let message: JSON
        do {
            message = try JSON(parsing: body)
        } catch {
            throw Refusal(error: .parseError("\(error)"), id: .null)
        }
        guard case .object(let object) = message else {
            throw Refusal(error: .invalidRequest("/rpc takes one request object, not a batch"), id: .null)
        }
        id = object["id"] ?? .null
        guard case .string(let method)? = object["method"] else { throw Refusal(error: .invalidRequest("method is a string"), id: id) }
        guard Self.allowedMethods.contains(method) else {
            let error = RPCError(
                .forbidden, message: "milieu inspect does not pass on \(method): the page may read, graph/set and graph/call",
                data: ["method": .string(method), "reason": "inspector"])
            throw Refusal(error: error, id: id)
        }
        self.method = method
        switch object["params"] {
        case nil: params = [:]
        case .object(let given)?: params = given
        default: throw Refusal(error: .invalidParams(field: "", "params is an object"), id: id)
        }
    }

    /// The daemon's response to this call, as the page gets it: the page's id in place of the
    /// inspector's.
    func answer(_ response: JSONObject) -> String {
        var response = response
        response["id"] = id
        return JSON.object(response).jsonText
    }

    /// A refusal as the page gets it, with the id of its request (`null` when unknown).
    static func refusal(_ error: RPCError, id: JSON = .null) -> String {
        let wire: JSON = ["code": .int(error.code), "message": .string(error.message), "data": .object(error.data)]
        return JSON.object(["jsonrpc": "2.0", "id": id, "error": wire]).jsonText
    }
}
