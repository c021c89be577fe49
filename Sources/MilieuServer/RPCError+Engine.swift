import MilieuEngine
import MilieuProtocol

extension RPCError {
    /// An engine error on the wire: its kind's code, its message, the names of its culprit.
    init(_ error: EngineError) {
        self.init(ErrorKind(error.kind), message: error.message, data: error.data)
    }
}

extension ErrorKind {
    /// The wire kind of an engine error. Exhaustive: a new engine kind needs its code here.
    init(_ kind: EngineError.Kind) {
        switch kind {
        case .environmentObjectMissing: self = .environmentObjectMissing
        case .unknownPath: self = .unknownPath
        case .unknownType: self = .unknownType
        case .unknownAction: self = .unknownAction
        case .typeMismatch: self = .typeMismatch
        case .readOnly: self = .readOnly
        case .versionConflict: self = .versionConflict
        case .duplicateView: self = .duplicateView
        case .invalidDeclaration: self = .invalidDeclaration
        case .inUse: self = .inUse
        case .forbidden: self = .forbidden
        case .invalidValue: self = .invalidValue
        case .limitExceeded: self = .limitExceeded
        case .invalidParams: self = .invalidParams
        }
    }
}
