/// Every error kind the wire carries in `error.data.kind`, with its code (SPEC §3.2):
/// JSON-RPC 2.0's own, and Milieu's in -32099...-32000. `error.schema.json` states the same
/// pairs; a test holds the two together.
public enum ErrorKind: String, Sendable, CaseIterable, CustomStringConvertible {
    case parseError = "ParseError"
    case invalidRequest = "InvalidRequest"
    case methodNotFound = "MethodNotFound"
    case invalidParams = "InvalidParams"
    case internalError = "InternalError"
    case environmentObjectMissing = "EnvironmentObjectMissing"
    case unknownPath = "UnknownPath"
    case unknownType = "UnknownType"
    case unknownAction = "UnknownAction"
    case typeMismatch = "TypeMismatch"
    case readOnly = "ReadOnly"
    case versionConflict = "VersionConflict"
    case duplicateView = "DuplicateView"
    case invalidDeclaration = "InvalidDeclaration"
    case inUse = "InUse"
    case messageTooLarge = "MessageTooLarge"
    case forbidden = "Forbidden"
    case invalidValue = "InvalidValue"
    case compacted = "Compacted"
    case limitExceeded = "LimitExceeded"
    case resultTooLarge = "ResultTooLarge"

    public var description: String { rawValue }

    /// The `error.code` of this kind.
    public var code: Int {
        switch self {
        case .parseError: -32700
        case .invalidRequest: -32600
        case .methodNotFound: -32601
        case .invalidParams: -32602
        case .internalError: -32603
        case .environmentObjectMissing: -32000
        case .unknownPath: -32001
        case .unknownType: -32002
        case .unknownAction: -32003
        case .typeMismatch: -32004
        case .readOnly: -32005
        case .versionConflict: -32006
        case .duplicateView: -32007
        case .invalidDeclaration: -32008
        case .inUse: -32009
        case .messageTooLarge: -32010
        case .forbidden: -32011
        case .invalidValue: -32012
        case .compacted: -32013
        case .limitExceeded: -32014
        case .resultTooLarge: -32015
        }
    }
}
