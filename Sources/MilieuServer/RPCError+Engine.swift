import MilieuEngine
import MilieuProtocol

extension RPCError {
    /// An engine error on the wire: its kind's code, its message, the names of its culprit.
    init(_ error: EngineError) {
        self.init(code: ErrorCode.code(forKind: error.kind.name), message: error.message, kind: error.kind.name, data: error.data)
    }
}
