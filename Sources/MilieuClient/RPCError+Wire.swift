import MilieuJSON
import MilieuProtocol

extension RPCError {
    /// The error member of a response, as the daemon sent it; nil if it is not shaped like one.
    public init?(wire: JSON) {
        guard case .int(let code)? = wire["code"], case .string(let message)? = wire["message"] else { return nil }
        let data = wire["data"]?.objectValue ?? [:]
        self.init(code: code, message: message, kind: data["kind"]?.stringValue ?? "", data: data)
    }
}
