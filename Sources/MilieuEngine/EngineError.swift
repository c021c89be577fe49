import MilieuJSON
import MilieuProtocol

/// An error the engine reports: a stable kind, a message a person can act on, and
/// the fields that name the culprit (they become `error.data` on the wire).
///
/// Any operation that throws one leaves the graph exactly as it was.
public struct EngineError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The error's kind: the protocol's own vocabulary (`ErrorKind`, SPEC §3.2), which also gives
    /// its wire name and code, so the engine keeps no copy of it.
    public typealias Kind = ErrorKind

    public let kind: Kind
    public let message: String
    /// The culprit's names; `kind` is added by the wire layer.
    public var data: JSONObject

    public init(kind: Kind, message: String, data: JSONObject = [:]) {
        self.kind = kind
        self.message = message
        self.data = data
    }

    public var description: String { "\(kind): \(message)" }
}

extension EngineError {
    /// Rules 8 and 17: the message reads as SwiftUI's does, for an `ObservableObject` read with
    /// `@EnvironmentObject` or an `@Observable` object read with `@Environment(T.self)`. The hint
    /// also names `existing`, an object of the type that is in the graph and the view to provide
    /// it on (`Graph.providableObject`), when there is one; `providesToContent` says the view's
    /// own `provide` has one, which reaches its content but not the view itself (rule 7).
    static func environmentObjectMissing(
        type: String, view: String, variable: String, searched: [String], observable: Bool = false,
        existing: (keyPath: String, provider: String)? = nil, providesToContent: Bool = false
    )
        -> EngineError
    {
        let ancestors = searched.dropFirst().joined(separator: ", ")
        let member = observable ? "observables" : "environmentObjects"
        let modifier = observable ? ".environment(x)" : ".environmentObject(x)"
        var hint = ""
        if providesToContent {
            hint =
                "\(view)'s own \"provide\" gives a \(type) to its content, not to \(view) itself: a view reads its "
                + "environment from where it is placed, as in SwiftUI. "
        }
        hint +=
            "Provide a \(type) from above \(view): in an ancestor's \"provide\": {\"\(member)\": [...]} (\(modifier) in "
            + "its body; searched: \(ancestors)), in \(view)'s \"modifiers\": {\"\(member)\": [...]} (\(modifier) where "
            + "its parent uses it), or with view/provide {\"path\": <ancestor>, \"\(member)\": [<key path of a \(type)>]}."
        if let existing {
            hint +=
                " A \(type) exists at \(existing.keyPath); provide it with view/provide "
                + "{\"path\": \"\(existing.provider)\", \"\(member)\": [\"\(existing.keyPath)\"]}."
        }
        return EngineError(
            kind: .environmentObjectMissing,
            message: "No \(observable ? "Observable object" : "ObservableObject") of type \(type) found. "
                + "A View.environmentObject(_:) for \(type) may be missing as an ancestor of this view.",
            data: [
                "type": .string(type), "view": .string(view), "variable": .string(variable),
                "searched": .array(searched.map(JSON.string)), "hint": .string(hint),
            ])
    }

    /// `suggestions`: the known names nearest the wrong one (`Suggestions`), said as "did you mean"
    /// and listed in `data.suggestions`.
    static func unknownPath(_ path: String, _ reason: String, suggestions: [String] = []) -> EngineError {
        EngineError(
            kind: .unknownPath, message: "unknown path \(path.isEmpty ? "\"\"" : path): \(reason)" + Suggestions.phrase(suggestions),
            data: Suggestions.listed(suggestions, in: ["path": .string(path)]))
    }

    /// A view has no control with the label a request names (`view/tap`, `view/input`): `UnknownPath` of the view.
    static func unknownControl(view: String, _ message: String) -> EngineError {
        EngineError(kind: .unknownPath, message: message, data: ["path": .string(view)])
    }

    static func unknownType(_ type: String, known: some Sequence<String> = [String]()) -> EngineError {
        let suggestions = Suggestions.nearest(to: type, among: known)
        return EngineError(
            kind: .unknownType, message: "unknown type \(type)\(Suggestions.phrase(suggestions)); schema/types lists the registered types",
            data: Suggestions.listed(suggestions, in: ["type": .string(type)]))
    }

    static func unknownAction(path: String, action: String, type: String, known: [String], note: String? = nil) -> EngineError {
        let list = known.isEmpty ? "it has none" : "it has " + known.joined(separator: ", ")
        return EngineError(
            kind: .unknownAction, message: "\(type) has no action \(action) (\(path)); \(list)" + (note.map { ". " + $0 } ?? ""),
            data: Suggestions.listed(
                Suggestions.nearest(to: action, among: known),
                in: ["path": .string(path), "action": .string(action), "type": .string(type)]))
    }

    /// `actual` is the JSON type met (SPEC §5.4); `detail`, when given, says more in the message.
    static func typeMismatch(path: String, expected: String, actual: String, detail: String? = nil) -> EngineError {
        EngineError(
            kind: .typeMismatch, message: "\(path) expects \(expected), got \(detail ?? actual)",
            data: ["path": .string(path), "expected": .string(expected), "actual": .string(actual)])
    }

    /// Why a path cannot be written, as a stable word in `data.reason`.
    enum ReadOnlyReason: String {
        case computed, input, environment, object
    }

    static func readOnly(_ path: String, _ reason: ReadOnlyReason, _ explanation: String) -> EngineError {
        EngineError(
            kind: .readOnly, message: "\(path) cannot be written: \(explanation)",
            data: ["path": .string(path), "reason": .string(reason.rawValue)])
    }

    static func versionConflict(path: String, expected: Int, actual: Int) -> EngineError {
        EngineError(
            kind: .versionConflict,
            message: "\(path) is at version \(actual), not \(expected); read it again and retry",
            data: ["path": .string(path), "expected": .int(expected), "actual": .int(actual)])
    }

    static func duplicateView(_ path: String) -> EngineError {
        EngineError(
            kind: .duplicateView, message: "a view is already mounted at \(path); give it another name or an id",
            data: ["path": .string(path)])
    }

    static func invalidDeclaration(field: String, reason: String, view: String? = nil) -> EngineError {
        var data: JSONObject = ["field": .string(field), "reason": .string(reason)]
        if let view { data["view"] = .string(view) }
        let place = view.map { " of \($0)" } ?? ""
        return EngineError(kind: .invalidDeclaration, message: "invalid \(field)\(place): \(reason)", data: data)
    }

    static func inUse(provided: String, view: String, dependents: [String]) -> EngineError {
        EngineError(
            kind: .inUse,
            message: "\(provided) provided by \(view) is still required by "
                + dependents.joined(separator: ", ") + "; unmount them or provide it from another ancestor first",
            data: [
                "provided": .string(provided), "view": .string(view),
                "dependents": .array(dependents.map(JSON.string)),
            ])
    }

    /// Why something is refused, as a stable word in `data.reason`.
    enum ForbiddenReason: String {
        case secure, root, body, disabled, constant
    }

    static func forbidden(path: String, _ reason: ForbiddenReason, _ explanation: String) -> EngineError {
        EngineError(
            kind: .forbidden, message: "\(path): \(explanation)", data: ["path": .string(path), "reason": .string(reason.rawValue)])
    }

    /// `value` is nil for a secure property, whose value is never shown (rule 13): `redacted` says so.
    static func invalidValue(path: String, violation: Constraints.Violation, value: JSON?) -> EngineError {
        var data: JSONObject = ["path": .string(path), "constraint": .string(violation.constraint)]
        if let value { data["value"] = value } else { data["redacted"] = true }
        return EngineError(kind: .invalidValue, message: "\(path) must satisfy \(violation.description)", data: data)
    }

    static func invalidParams(pointer: String, _ reason: String) -> EngineError {
        EngineError(
            kind: .invalidParams, message: pointer.isEmpty ? "Invalid params: \(reason)" : "Invalid params: \(pointer): \(reason)",
            data: ["field": .string(pointer), "reason": .string(reason)])
    }

    /// A string not matched against its pattern: the match could cost more than
    /// `WholeMatch.maxWork` (SPEC §5.3). `subject` says which string (`Login#3.email`, or a
    /// `matches` in a declaration); `bytes` is its length, nil where the string may be secret.
    static func patternWork(_ subject: String, bytes: Int?, _ exceeded: WholeMatch.WorkExceeded) -> EngineError {
        let length = bytes.map { "its \($0) UTF-8 bytes" } ?? "its UTF-8 bytes"
        return EngineError(
            kind: .limitExceeded,
            message: "limit reached: \(subject) was not matched: \(length) × its pattern's \(exceeded.instructions) "
                + "compiled instructions exceed \(WholeMatch.maxWork), the most work one match may take; "
                + "use a shorter string or a simpler pattern",
            data: ["limit": "patternWork", "max": .int(WholeMatch.maxWork)])
    }

    static func limitExceeded(limit: String, max: Int) -> EngineError {
        EngineError(
            kind: .limitExceeded, message: "limit reached: at most \(max) \(limit)",
            data: ["limit": .string(limit), "max": .int(max)])
    }
}
