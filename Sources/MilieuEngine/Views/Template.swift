/// A body line such as `"Signed in as {session.user}"`: literal text and key paths
/// relative to the view, read when the body is evaluated. `{{` and `}}` are literal braces.
struct Template: Sendable {
    enum Part: Sendable {
        case text(String)
        /// A variable of the view and the members read through it.
        case read([String])
    }

    let parts: [Part]
    let source: String

    init(parsing source: String) throws(EngineError) {
        var parts: [Part] = []
        var text = ""
        var index = source.startIndex
        while index < source.endIndex {
            let c = source[index]
            let next = source.index(after: index)
            if c == "{", next < source.endIndex, source[next] == "{" {
                text.append("{")
                index = source.index(after: next)
            } else if c == "}", next < source.endIndex, source[next] == "}" {
                text.append("}")
                index = source.index(after: next)
            } else if c == "{" {
                guard let close = source[next...].firstIndex(of: "}") else {
                    throw .invalidDeclaration(field: "body", reason: "\"\(source)\" has a \"{\" without its \"}\"")
                }
                let members = source[next..<close].split(separator: ".", omittingEmptySubsequences: false)
                guard let first = members.first, isIdentifier(first), !members.contains(where: \.isEmpty) else {
                    throw .invalidDeclaration(
                        field: "body", reason: "\"{\(source[next..<close])}\" in \"\(source)\" is not a key path")
                }
                if !text.isEmpty { parts.append(.text(text)) }
                text = ""
                parts.append(.read(members.map(String.init)))
                index = source.index(after: close)
            } else if c == "}" {
                throw .invalidDeclaration(field: "body", reason: "\"\(source)\" has a \"}\" without its \"{\"; write }}")
            } else {
                text.append(c)
                index = next
            }
        }
        if !text.isEmpty || parts.isEmpty { parts.append(.text(text)) }
        self.parts = parts
        self.source = source
    }

    /// The variables this template reads, for checking a declaration before it is mounted.
    var variables: [String] {
        parts.compactMap { if case .read(let members) = $0 { members[0] } else { nil } }
    }
}
