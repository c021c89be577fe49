import MilieuJSON

/// A request's `id`, kept so that it is echoed exactly as it was sent (SPEC §2.1).
public enum RequestID: Sendable, Hashable {
    case null
    case int(Int)
    case string(String)
    /// Any other number, as written (`9223372036854775808`, `1e400`, `1.50`, `-0`): as a double
    /// it would come back changed, or not at all.
    case number(String)

    /// Writes the id as it was sent.
    public func write(into sink: inout JSONSink) {
        switch self {
        case .null: sink.writeRaw("null")
        case .int(let value): sink.writeInt(value)
        case .string(let value): sink.writeString(value)
        case .number(let text):
            var digits = text
            digits.withUTF8 { sink.writeRaw($0) }
        }
    }
}

/// One JSON-RPC 2.0 request or notification as read from the wire.
public struct Request: Sendable {
    /// nil for a notification, which never gets a response.
    public let id: RequestID?
    public let method: String
    public let params: JSONObject
    /// Set when `params` was given in a form Milieu does not take (by position).
    public let paramsError: RPCError?

    public var isNotification: Bool { id == nil }
}

/// What one line holds: a request, a batch of them, or an error to answer with.
public enum IncomingMessage: Sendable {
    case single(RequestOrError)
    case batch([RequestOrError])
}

/// A batch element, or a single message: a request, or the error its envelope earns.
public enum RequestOrError: Sendable {
    case request(Request)
    /// The envelope is not a valid request; the error goes back with `id` (null if unknown).
    case invalid(id: RequestID, error: RPCError)
}

extension IncomingMessage {
    /// Parses one line. A line that is not JSON is a parse error (answered with id null);
    /// an empty batch is one invalid request.
    public static func parse(_ line: UnsafeRawBufferPointer, limits: JSONLimits = .default) -> Result<IncomingMessage, RPCError> {
        let json: JSON
        var idTexts: IndexingIterator<[String]>
        do {
            let parsed = try JSON.parsingMessage(line, limits: limits)
            json = parsed.message
            idTexts = parsed.idTexts.makeIterator()
        } catch {
            return .failure(.parseError(error.description))
        }
        switch json {
        case .array(let elements):
            guard !elements.isEmpty else { return .failure(.invalidRequest("an empty batch")) }
            return .success(.batch(elements.map { envelope($0, idTexts: &idTexts) }))
        default:
            return .success(.single(envelope(json, idTexts: &idTexts)))
        }
    }

    /// Checks the JSON-RPC 2.0 envelope of one message. A numeric id that is not an `.int` takes
    /// the next of `idTexts`, the reader's texts of such ids in message order.
    static func envelope(_ json: JSON, idTexts: inout IndexingIterator<[String]>) -> RequestOrError {
        guard case .object(let object) = json else {
            return .invalid(id: .null, error: .invalidRequest("a request is a JSON object, not \(json.kindName)"))
        }
        let id: RequestID?
        switch object["id"] {
        case nil: id = nil
        case .string(let value)?: id = .string(value)
        case .int(let value)?: id = .int(value)
        case .double?: id = .number(idTexts.next() ?? "null")
        case .null?: id = .null
        default: return .invalid(id: .null, error: .invalidRequest("id must be a string, a number or null"))
        }
        let replyID = id ?? .null
        for member in object {
            switch member.key {
            case "jsonrpc", "id", "method", "params": continue
            default: return .invalid(id: replyID, error: .invalidRequest("unknown member \"\(member.key)\""))
            }
        }
        guard object["jsonrpc"] == .string("2.0") else {
            return .invalid(id: replyID, error: .invalidRequest("\"jsonrpc\" must be \"2.0\""))
        }
        guard case .string(let method)? = object["method"] else {
            return .invalid(id: replyID, error: .invalidRequest("\"method\" must be a string"))
        }
        switch object["params"] {
        case nil: return .request(Request(id: id, method: method, params: [:], paramsError: nil))
        case .object(let params)?: return .request(Request(id: id, method: method, params: params, paramsError: nil))
        case .array?:
            return .request(
                Request(
                    id: id, method: method, params: [:], paramsError: .invalidParams(field: "", "params are passed by name, as an object")))
        default:
            return .invalid(id: replyID, error: .invalidRequest("\"params\" must be an object"))
        }
    }
}
