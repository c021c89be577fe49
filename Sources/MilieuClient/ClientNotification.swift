import MilieuJSON
import MilieuProtocol

/// One notification from the daemon (`graph/didChange`, `view/didUpdate`, …), as received.
public struct ClientNotification: Sendable, Hashable {
    public let method: String
    public let params: JSONObject

    public init(method: String, params: JSONObject) {
        self.method = method
        self.params = params
    }

    /// The id of the watch it was sent for, when it carries one.
    public var watch: Int? { params["watch"]?.intValue }
    /// The version of the transaction that caused it, when it carries one.
    public var version: Int? { params["version"]?.intValue }

    /// The notification as a typed value; nil for a method this client does not know.
    public var decoded: ServerNotification? { ServerNotification(method: method, params: params) }

    /// The notification as the JSON-RPC message it arrived in.
    public var message: JSON { ["jsonrpc": "2.0", "method": .string(method), "params": .object(params)] }
}
