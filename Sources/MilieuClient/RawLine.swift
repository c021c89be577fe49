import MilieuProtocol

/// A line typed as JSON-RPC (`MilieuClient.sendLine`), read as the daemon reads it, by the
/// daemon's own reader (SPEC §1.3, §2): whether the daemon answers it, and the integer id its
/// answer carries, by which the answer could be taken for one of the client's own.
public struct RawLine: Sendable {
    /// False only for JSON whitespace alone, a notification, or a batch of nothing else: the
    /// daemon answers every other line, even one that is not JSON, or a notification with a
    /// member it does not know.
    public let expectsResponse: Bool
    /// The integer id the answer carries, when it is one message (a batch's answer is a list).
    public let id: Int?

    /// `line`: one line, without its `\n`, no longer than the daemon takes.
    public init(_ line: String) {
        self = Array(line.utf8).withUnsafeBytes { RawLine($0) }
    }

    init(_ line: UnsafeRawBufferPointer) {
        guard !LineFramer.isBlank(line) else {
            (expectsResponse, id) = (false, nil)
            return
        }
        switch IncomingMessage.parse(line) {
        case .failure:
            (expectsResponse, id) = (true, nil)
        case .success(.single(.request(let request))):
            (expectsResponse, id) = (!request.isNotification, request.id.flatMap(Self.integer))
        case .success(.single(.invalid(let id, _))):
            (expectsResponse, self.id) = (true, Self.integer(id))
        case .success(.batch(let elements)):
            let answered = elements.contains { element in
                guard case .request(let request) = element else { return true }
                return !request.isNotification
            }
            (expectsResponse, id) = (answered, nil)
        }
    }

    private static func integer(_ id: RequestID) -> Int? {
        if case .int(let value) = id { value } else { nil }
    }
}
