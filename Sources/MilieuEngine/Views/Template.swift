/// A key path read from a view's variable, with the reason strings a change to each step
/// would give worked out once, not at every evaluation. Shared by reference: declarations and
/// templates hold one pointer, not its four fields.
final class ReadPath: Sendable, Equatable {
    let members: [String]
    /// The members joined with dots (`loginVM.email`).
    let text: String
    /// Where each member ends in `text`, in UTF-8 bytes: step i's reason is the text up to `ends[i]`.
    private let ends: [Int]
    /// Each step's reason made once, so that evaluating a body allocates none; left out (and
    /// each made when asked) for a path whose prefixes would together pass `maxPrefixBytes`,
    /// so that what a path keeps stays linear in its length.
    private let prefixes: [String]?
    private static let maxPrefixBytes = 16_384
    /// `_<var>`: the reason for a @State or @Binding read.
    let variableReason: String
    /// `env.<key>`: the reason for an environment value read.
    let environmentReason: String

    /// Refuses a path past the key path limits (SPEC §13).
    init(_ members: [String]) throws(EngineError) {
        let text = members.joined(separator: ".")
        try KeyPath.checkLimits(bytes: text.utf8.count, members: members.count)
        self.members = members
        self.text = text
        var ends: [Int] = []
        var end = -1
        for member in members {
            end += 1 + member.utf8.count
            ends.append(end)
        }
        self.ends = ends
        let prefixBytes = ends.reduce(0, +)
        prefixes = prefixBytes <= Self.maxPrefixBytes ? ends.map { String(decoding: text.utf8.prefix($0), as: UTF8.self) } : nil
        variableReason = UpdateReason.variable(members[0])
        environmentReason = UpdateReason.environment(members[0])
    }

    /// `members[0...step]` joined with dots: the reason for a property read at that step.
    func reason(at step: Int) -> String {
        prefixes?[step] ?? String(decoding: text.utf8.prefix(ends[step]), as: UTF8.self)
    }

    static func == (a: ReadPath, b: ReadPath) -> Bool { a.members == b.members }
}

/// Parsed templates by source text: many views share the same body lines.
final class TemplateCache {
    private var parsed: [String: Template] = [:]

    func template(_ source: String) throws(EngineError) -> Template {
        if let hit = parsed[source] { return hit }
        let template = try Template(parsing: source)
        if parsed.count >= 10_000 { parsed.removeAll(keepingCapacity: true) }
        parsed[source] = template
        return template
    }
}

/// A body line such as `"Signed in as {session.user}"`: literal text and key paths
/// relative to the view, read when the body is evaluated. `{{` and `}}` are literal braces.
/// Parsed once per distinct line (`TemplateCache`) and shared by reference.
final class Template: Sendable {
    enum Part: Sendable {
        case text(String)
        /// A variable of the view and the members read through it.
        case read(ReadPath)
    }

    let parts: [Part]
    let source: String
    /// The variables this template reads, for checking a declaration before it is mounted.
    let variables: [String]
    /// The reads that go through a variable to one of its members (`{vm.email}`), to check
    /// against the variable's object type when a view is built.
    let memberReads: [(variable: String, member: String)]

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
                parts.append(.read(try ReadPath(members.map(String.init))))
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
        variables = parts.compactMap { if case .read(let path) = $0 { path.members[0] } else { nil } }
        memberReads = parts.compactMap { part in
            guard case .read(let path) = part, path.members.count > 1 else { return nil }
            return (path.members[0], path.members[1])
        }
    }
}
