import MilieuEngine
import MilieuProtocol

extension RPCError {
    /// An engine error on the wire: its kind's code, its message, the names of its culprit.
    init(_ error: EngineError) {
        self.init(error.kind, message: error.message, data: error.data)
    }
}
