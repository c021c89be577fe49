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
        let bytes = Array(source.utf8)
        let open = UInt8(ascii: "{")
        let close = UInt8(ascii: "}")
        var parts: [Part] = []
        var text: [UInt8] = []
        var index = 0
        func flush() {
            if !text.isEmpty { parts.append(.text(String(decoding: text, as: UTF8.self))) }
            text.removeAll(keepingCapacity: true)
        }
        while index < bytes.count {
            let byte = bytes[index]
            let doubled = index + 1 < bytes.count && bytes[index + 1] == byte
            if (byte == open || byte == close) && doubled {
                text.append(byte)
                index += 2
            } else if byte == open {
                guard let end = bytes[(index + 1)...].firstIndex(of: close) else {
                    throw .invalidDeclaration(field: "body", reason: "\"\(source)\" has a \"{\" without its \"}\"")
                }
                let path = String(decoding: bytes[(index + 1)..<end], as: UTF8.self)
                let members = path.split(separator: ".", omittingEmptySubsequences: false)
                guard let first = members.first, isIdentifier(first), !members.contains(where: \.isEmpty) else {
                    throw .invalidDeclaration(field: "body", reason: "\"{\(path)}\" in \"\(source)\" is not a key path")
                }
                flush()
                parts.append(.read(members.map(String.init)))
                index = end + 1
            } else if byte == close {
                throw .invalidDeclaration(field: "body", reason: "\"\(source)\" has a \"}\" without its \"{\"; write }}")
            } else {
                text.append(byte)
                index += 1
            }
        }
        flush()
        if parts.isEmpty { parts.append(.text("")) }
        self.parts = parts
        self.source = source
    }

    /// The variables this template reads, for checking a declaration before it is mounted.
    var variables: [String] {
        parts.compactMap { if case .read(let members) = $0 { members[0] } else { nil } }
    }
}
