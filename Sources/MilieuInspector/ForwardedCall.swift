import MilieuJSON
import MilieuProtocol

/// A JSON-RPC request the page sends to `POST /rpc`, checked before it is passed on to milieud:
/// one request (no batch) whose method is on the allow-list. Its params go on as the page wrote
/// them (`paramsText`), never re-encoded, so that the line milieud reads is no longer than the
/// request (`1e2` written back would be `100.0`). The page's id is kept here and put back on the
/// daemon's answer, which goes back otherwise untouched.
struct ForwardedCall {
    /// What the page may ask, from each method's effect: every read, and writes of values and
    /// actions. Never what mounts or unmounts views, registers types or resets (`writesGraph`),
    /// watches on the inspector's connection or stops the daemon (`session`).
    static let allowedMethods: Set<String> = Set(
        Methods.all.filter { $0.effect == .read || $0.effect == .writesValues }.map { $0.name })

    /// The page's id, `null` when it sent none.
    let id: JSON
    let method: String
    let params: JSONObject
    /// The params object's bytes as the page sent them, on one line (a line feed or carriage
    /// return between tokens, the only place JSON allows one, is a space); `{}` when it sent none.
    let paramsText: [UInt8]

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
        let written = Self.memberText("params", of: body) ?? Array("{}".utf8)[...]
        paramsText = written.map { $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") ? UInt8(ascii: " ") : $0 }
    }

    /// The bytes of the value of member `name` of the JSON object `body` (already read whole, so
    /// valid), exactly as written; nil when it has no such member.
    static func memberText(_ name: String, of body: [UInt8]) -> ArraySlice<UInt8>? {
        body.withUnsafeBytes { bytes -> Range<Int>? in
            func skipSpace(_ index: inout Int) {
                while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
            }
            var index = 0
            skipSpace(&index)
            guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { return nil }
            index += 1
            while true {
                skipSpace(&index)
                guard let (key, afterKey) = JSON.parseValue(in: bytes, at: index, depth: 1) else { return nil }
                index = afterKey
                skipSpace(&index)
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
                index += 1
                skipSpace(&index)
                let start = index
                guard let (_, end) = JSON.parseValue(in: bytes, at: start, depth: 1) else { return nil }
                if key == .string(name) { return start..<end }
                index = end
                skipSpace(&index)
                guard index < bytes.count, bytes[index] == UInt8(ascii: ",") else { return nil }
                index += 1
            }
        }.map { body[$0] }
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
