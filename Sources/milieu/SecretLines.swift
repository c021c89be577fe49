import MilieuJSON
import MilieuProtocol

/// What the daemon says a typed path reaches, for `SecretLines`; nil where it cannot tell (no
/// daemon, or a path that reaches nothing).
protocol SecretOracle {
    /// Whether `path` reaches a secure value: a secure property, a member of one, or a binding or
    /// reference to one (`graph/get` answers `Forbidden`, reason `secure`).
    func reachesSecret(_ path: String) -> Bool?
    /// The action `path` names (its secure parameters included, `schema/types`).
    func action(at path: String) -> ActionDescription?
    /// Every type the daemon knows, for a guess when a path cannot be asked about.
    var knownTypes: [TypeDescription] { get }
    /// Whether the control labelled `label` in the view at `view` is a secure field (`view/controls`).
    func isSecureControl(view: String, label: String) -> Bool?
}

/// Which typed lines carry a secret: those are kept out of the history file, as redis-cli keeps
/// out `AUTH`, so that a secret typed at the prompt is not left on disk (rule 13). A line carries
/// one when it writes a secure value (`set` of a path the daemon says reaches one — through a
/// binding, say), passes an argument to an action's secure parameter (SPEC §9.3.3), or types into
/// a secure field (`input`), typed as a command or as a raw `graph/set`, `graph/call`,
/// `graph/transaction` or `view/input`, alone or in a batch.
///
/// The daemon is asked, never the path's spelling; only when it cannot tell (not connected, a
/// path it does not know) is a last member that names a secure property, or an action with
/// secure parameters, of any known type taken for one.
struct SecretLines {
    let oracle: any SecretOracle

    /// The secure properties every daemon has, for when none can be asked.
    static let builtInSecureNames: Set<String> = ["password", "token"]

    /// Whether `line` carries a secret, and so stays out of the history.
    func carriesASecret(_ line: String) -> Bool {
        switch try? Command.parse(line) {
        case .set(let path, _)?: return writesSecret(path)
        case .call(let path, let arguments)?: return passesSecret(path, argumentCount: arguments.count)
        case .input(let path, let label, _)?: return typesSecret(path, label)
        case .raw(let text)?:
            guard let message = try? JSON(parsing: text) else { return false }
            return (message.arrayValue ?? [message]).contains { carriesASecret(request: $0) }
        case nil:
            // A command that does not parse still holds what was typed: judge it by its path.
            let words = line.split(whereSeparator: \.isWhitespace).map(String.init)
            guard words.count >= 3 else { return false }
            switch words[0] {
            case "set": return writesSecret(words[1])
            case "call": return passesSecret(words[1], argumentCount: words.count - 2)
            // The label may be mistyped: without one to ask about, keep the line out.
            case "input": return true
            default: return false
            }
        default: return false
        }
    }

    private func carriesASecret(request: JSON) -> Bool {
        let params = request["params"]
        switch request["method"]?.stringValue {
        case GraphSetRequest.name: return params?["path"]?.stringValue.map(writesSecret) ?? false
        case GraphCallRequest.name:
            guard let path = params?["path"]?.stringValue else { return false }
            return passesSecret(path, argumentCount: params?["args"]?.arrayValue?.count ?? 0)
        case GraphTransactionRequest.name: return (params?["ops"]?.arrayValue ?? []).contains { carriesASecret(request: $0) }
        case ViewInputRequest.name:
            guard let path = params?["path"]?.stringValue, let label = params?["label"]?.stringValue else { return true }
            return typesSecret(path, label)
        default: return false
        }
    }

    private func writesSecret(_ path: String) -> Bool {
        if let known = oracle.reachesSecret(path) { return known }
        let secureNames = Self.builtInSecureNames.union(oracle.knownTypes.flatMap { $0.properties.filter(\.secure).map(\.name) })
        return PathSyntax.splitLastMember(path).map { secureNames.contains($0.member) } ?? secureNames.contains(path)
    }

    /// Input into a control the daemon does not call a secure field is no secret; when it cannot
    /// tell (no daemon, no such control), the line stays out of the history.
    private func typesSecret(_ view: String, _ label: String) -> Bool {
        oracle.isSecureControl(view: view, label: label) ?? true
    }

    private func passesSecret(_ path: String, argumentCount: Int) -> Bool {
        guard argumentCount > 0 else { return false }
        if let action = oracle.action(at: path) { return action.secureIndices.contains { $0 < argumentCount } }
        guard let name = PathSyntax.splitLastMember(path)?.member else { return false }
        return oracle.knownTypes.contains { type in type.actions.contains { $0.name == name && !$0.secureParams.isEmpty } }
    }
}
