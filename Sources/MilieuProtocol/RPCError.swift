import MilieuJSON

/// The one error type on the wire: `code`, `message` and `data` (with `data.kind` always set).
///
/// Every error thrown while handling a request becomes one of these in one place, at the boundary.
public struct RPCError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: Int
    public let message: String
    public let data: JSONObject

    public init(code: Int, message: String, kind: String, data: JSONObject = [:]) {
        self.code = code
        self.message = message
        var data = data
        data["kind"] = .string(kind)
        self.data = data
    }

    public var description: String { "\(code) \(data["kind"]?.stringValue ?? ""): \(message)" }
    public var kind: String { data["kind"]?.stringValue ?? "" }

    public static func parseError(_ reason: String) -> RPCError {
        RPCError(code: ErrorCode.parseError, message: "Parse error: \(reason)", kind: "ParseError", data: ["reason": .string(reason)])
    }

    public static func invalidRequest(_ reason: String) -> RPCError {
        RPCError(code: ErrorCode.invalidRequest, message: "Invalid Request: \(reason)", kind: "InvalidRequest", data: ["reason": .string(reason)])
    }

    public static func methodNotFound(_ method: String) -> RPCError {
        RPCError(
            code: ErrorCode.methodNotFound, message: "Method not found: \(method)", kind: "MethodNotFound",
            data: ["method": .string(method)])
    }

    /// `field` is a JSON Pointer into `params`, such as `/path`.
    public static func invalidParams(field: String, _ reason: String) -> RPCError {
        RPCError(
            code: ErrorCode.invalidParams, message: "Invalid params: \(field): \(reason)", kind: "InvalidParams",
            data: ["field": .string(field), "reason": .string(reason)])
    }

    public static func internalError(_ reason: String) -> RPCError {
        RPCError(code: ErrorCode.internalError, message: "Internal error: \(reason)", kind: "InternalError", data: ["reason": .string(reason)])
    }

    public static func messageTooLarge(limit: Int) -> RPCError {
        RPCError(
            code: ErrorCode.code(forKind: "MessageTooLarge"),
            message: "the line is longer than the limit of \(limit) bytes; the connection will be closed", kind: "MessageTooLarge",
            data: ["limit": .int(limit)])
    }

    public static func forbiddenPeer(uid: UInt32) -> RPCError {
        RPCError(
            code: ErrorCode.code(forKind: "Forbidden"),
            message: "connections from uid \(uid) are refused: milieud serves only its own user", kind: "Forbidden",
            data: ["reason": "peer"])
    }

    public static func compacted(oldest: Int, requested: Int) -> RPCError {
        RPCError(
            code: ErrorCode.code(forKind: "Compacted"),
            message: "history before version \(oldest) is gone (asked for changes after \(requested)); read again with graph/get and watch anew",
            kind: "Compacted", data: ["oldest": .int(oldest)])
    }

    public static func limitExceeded(_ limit: String, max: Int) -> RPCError {
        RPCError(
            code: ErrorCode.code(forKind: "LimitExceeded"), message: "limit reached: at most \(max) \(limit)", kind: "LimitExceeded",
            data: ["limit": .string(limit), "max": .int(max)])
    }
}

/// JSON-RPC 2.0's codes and Milieu's own, in -32099...-32000 (SPEC §3.2).
public enum ErrorCode {
    public static let parseError = -32700
    public static let invalidRequest = -32600
    public static let methodNotFound = -32601
    public static let invalidParams = -32602
    public static let internalError = -32603

    /// Milieu's error kinds in code order, from -32000 down.
    public static let milieuKinds = [
        "EnvironmentObjectMissing", "UnknownPath", "UnknownType", "UnknownAction", "TypeMismatch", "ReadOnly",
        "VersionConflict", "DuplicateView", "InvalidDeclaration", "InUse", "MessageTooLarge", "Forbidden", "InvalidValue",
        "Compacted", "LimitExceeded",
    ]

    public static func code(forKind kind: String) -> Int {
        if kind == "InvalidParams" { return invalidParams }
        guard let index = milieuKinds.firstIndex(of: kind) else { return internalError }
        return -32000 - index
    }
}
