import MilieuJSON

/// How a type declaration differs from the one registered under its name, as a short list a
/// person can read: `+ properties.attempts` (only in the new one), `- computed.isValid` (only in
/// the registered one), `style: observable → observableObject` (changed). Shown when a differing
/// declaration is refused (`schema/register` without `replace`), never the old type kept silently.
enum DeclarationDifference {
    /// At most this many entries are listed; the rest are counted.
    static let limit = 6

    /// The entries, paths in declaration order, `…and N more` last when there are more.
    static func describe(registered: JSON, new: JSON) -> [String] {
        var entries: [String] = []
        collect(registered, new, path: "", into: &entries)
        guard entries.count > limit else { return entries }
        return Array(entries.prefix(limit)) + ["…and \(entries.count - limit) more"]
    }

    private static func collect(_ old: JSON, _ new: JSON, path: String, into entries: inout [String]) {
        guard old != new else { return }
        guard case .object(let before) = old, case .object(let after) = new else {
            entries.append("\(path): \(old.jsonText) → \(new.jsonText)")
            return
        }
        for (key, value) in after {
            let inner = path.isEmpty ? key : "\(path).\(key)"
            if let previous = before[key] { collect(previous, value, path: inner, into: &entries) } else { entries.append("+ \(inner)") }
        }
        for (key, _) in before where after[key] == nil { entries.append("- \(path.isEmpty ? key : "\(path).\(key)")") }
    }
}
