import MilieuProtocol

/// "Did you mean" for the names a request gets wrong: the nearest mounted view path, variable,
/// property, type and environment key (`Suggestions`), listed in the error's `data.suggestions`.
extension Graph {
    /// The mounted views nearest `path`: its first name that no view has there, put right by
    /// the nearest of its siblings' names (`/app` → `/App`, `/App/ContainerVew/LoginView1` →
    /// `/App/ContainerView/LoginView1`).
    func nearestViews(to path: String) -> [String] {
        guard path.hasPrefix("/") else { return [] }
        let names = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        var prefix = ""
        for (index, name) in names.enumerated() {
            if views[prefix + "/" + name] != nil {
                prefix += "/" + name
                continue
            }
            let siblings: [String]
            if prefix.isEmpty {
                siblings = [String(root.path.dropFirst())]
            } else if let parent = views[prefix] {
                // No more names than `nearest` compares: a view with 100k children costs no more.
                siblings = Array(parent.children.lazy.map { String($0.path.dropFirst(prefix.count + 1)) }.prefix(Suggestions.maxCandidates))
            } else {
                return []
            }
            let rest = names[(index + 1)...].map { "/" + $0 }.joined()
            return Suggestions.nearest(to: name, among: siblings).map { fixed in
                let whole = prefix + "/" + fixed + rest
                return views[whole] != nil ? whole : prefix + "/" + fixed
            }
        }
        return []
    }

    /// `UnknownPath` for a view path where no view is mounted, with the nearest that are.
    func noView(at path: String, named display: String, _ reason: String) -> EngineError {
        .unknownPath(display, reason, suggestions: nearestViews(to: path))
    }
}
