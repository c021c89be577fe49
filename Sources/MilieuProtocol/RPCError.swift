import MilieuJSON

/// The one error type on the wire: `code`, `message` and `data` (with `data.kind` always set).
///
/// Every error thrown while handling a request becomes one of these in one place, at the boundary.
public struct RPCError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: Int
    public let message: String
    public let data: JSONObject

    /// An error of `kind`, with its code.
    public init(_ kind: ErrorKind, message: String, data: JSONObject = [:]) {
        self.init(code: kind.code, message: message, kind: kind.rawValue, data: data)
    }

    /// An error as read from the wire, whose kind may be one this side does not know.
    public init(code: Int, message: String, kind: String, data: JSONObject = [:]) {
        self.code = code
        self.message = message
        var data = data
        data["kind"] = .string(kind)
        self.data = data
    }

    public var description: String { "\(code) \(data["kind"]?.stringValue ?? ""): \(message)" }
    /// `data.kind` as sent; empty when there was none.
    public var kind: String { data["kind"]?.stringValue ?? "" }
    /// `data.kind` when it is one this side knows.
    public var errorKind: ErrorKind? { ErrorKind(rawValue: kind) }

    public static func parseError(_ reason: String) -> RPCError {
        RPCError(.parseError, message: "Parse error: \(reason)", data: ["reason": .string(reason)])
    }

    public static func invalidRequest(_ reason: String) -> RPCError {
        RPCError(.invalidRequest, message: "Invalid Request: \(reason)", data: ["reason": .string(reason)])
    }

    /// `known`: the methods there are, for the nearest to suggest (`Suggestions`).
    public static func methodNotFound(_ method: String, known: some Sequence<String> = [String]()) -> RPCError {
        let suggestions = Suggestions.nearest(to: method, among: known)
        return RPCError(
            .methodNotFound, message: "Method not found: \(method)\(Suggestions.phrase(suggestions))",
            data: Suggestions.listed(suggestions, in: ["method": .string(method)]))
    }

    /// `field` is a JSON Pointer into `params`, such as `/path`.
    public static func invalidParams(field: String, _ reason: String) -> RPCError {
        RPCError(
            .invalidParams, message: field.isEmpty ? "Invalid params: \(reason)" : "Invalid params: \(field): \(reason)",
            data: ["field": .string(field), "reason": .string(reason)])
    }

    public static func internalError(_ reason: String) -> RPCError {
        RPCError(.internalError, message: "Internal error: \(reason)", data: ["reason": .string(reason)])
    }

    public static func messageTooLarge(limit: Int) -> RPCError {
        RPCError(
            .messageTooLarge, message: "the line is longer than the limit of \(limit) bytes; the connection will be closed",
            data: ["limit": .int(limit)])
    }

    public static func forbiddenPeer(uid: UInt32) -> RPCError {
        RPCError(
            .forbidden, message: "connections from uid \(uid) are refused: milieud serves only its own user",
            data: ["reason": "peer"])
    }

    public static func compacted(oldest: Int, requested: Int) -> RPCError {
        RPCError(
            .compacted,
            message:
                "history before version \(oldest) is gone (asked for changes after \(requested)); read again with graph/get and watch anew",
            data: ["oldest": .int(oldest)])
    }

    public static func limitExceeded(_ limit: String, max: Int, message: String? = nil) -> RPCError {
        RPCError(
            .limitExceeded, message: message ?? "limit reached: at most \(max) \(limit)",
            data: ["limit": .string(limit), "max": .int(max)])
    }

    /// A result whose encoding (`size` bytes) would pass the connection's output hard limit:
    /// sent instead of it, so that asking for a big answer never gets the reader dropped (SPEC §1.5).
    public static func resultTooLarge(method: String, size: Int, limit: Int) -> RPCError {
        let hint =
            method == ViewTreeRequest.name
            ? "ask for the tree in pages: view/tree with a limit (a smaller one, if one was given) and then cursor, or less of it with depth or path"
            : "ask for less: a narrower path"
        return RPCError(
            .resultTooLarge, message: "the result of \(method) is \(size) bytes, over the output limit of \(limit) bytes; \(hint)",
            data: ["method": .string(method), "size": .int(size), "limit": .int(limit), "hint": .string(hint)])
    }
}
