import MilieuJSON
import MilieuProtocol

/// Which typed lines write a secure value (`Login.password`, `Session.token`, any declared
/// `secure` property): those are kept out of the history file, as redis-cli keeps out `AUTH`,
/// so that a secret typed at the prompt is not left on disk (rule 13).
struct SecretLines {
    /// The names of the secure properties of every type the daemon knows, and the built-in ones
    /// when it cannot be asked.
    let secureNames: Set<String>

    static let builtIn: Set<String> = ["password", "token"]

    init(types: [TypeDescription]?) {
        let declared = (types ?? []).flatMap { $0.properties.filter(\.secure).map(\.name) }
        secureNames = Self.builtIn.union(declared)
    }

    /// Whether `line` writes a property whose name is secure: `set` of such a key path, or a
    /// raw `graph/set` or `graph/transaction` that names one.
    func writesASecret(_ line: String) -> Bool {
        switch try? Command.parse(line) {
        case .set(let path, _)?: return isSecure(path)
        case .raw(let text)?:
            guard let message = try? JSON(parsing: text) else { return false }
            let requests = message.arrayValue ?? [message]
            return requests.contains { request in
                let params = request["params"]
                switch request["method"]?.stringValue {
                case GraphSetRequest.name: return params?["path"]?.stringValue.map(isSecure) ?? false
                case GraphTransactionRequest.name:
                    return (params?["ops"]?.arrayValue ?? []).contains { op in
                        op["method"]?.stringValue == GraphSetRequest.name && (op["params"]?["path"]?.stringValue.map(isSecure) ?? false)
                    }
                default: return false
                }
            }
        default: return false
        }
    }

    /// Whether the last member of key path `path` names a secure property.
    private func isSecure(_ path: String) -> Bool {
        let members = EmbeddedJSONScanner.topLevelIndices(of: ".", in: path)
        let last = members.last.map { String(path[path.index(after: $0)...]) } ?? path
        return secureNames.contains(last)
    }
}
