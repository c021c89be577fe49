import MilieuJSON

/// A parsed key path (semantics.md vocabulary): a root — a view path (`/App` for
/// relative paths) or an object id such as `Login#3` — and the members after it.
///
/// For a view root the first member is one of the view's variables.
struct KeyPath: Sendable, Equatable {
    enum Root: Sendable, Equatable {
        case view(String)
        case object(String)
    }

    var root: Root
    var members: [String]

    static let appPath = "/App"

    init(root: Root, members: [String]) {
        self.root = root
        self.members = members
    }

    /// The longest key path, in UTF-8 bytes, and the most members after its root (SPEC §13):
    /// what reading or watching one costs stays small however a client spells it.
    static let maxBytes = 8192
    static let maxMembers = 128

    /// Refuses a path past the limits, before anything is built from it.
    static func checkLimits(bytes: Int, members: Int) throws(EngineError) {
        guard bytes <= maxBytes else { throw .limitExceeded(limit: "keyPathBytes", max: maxBytes) }
        guard members <= maxMembers else { throw .limitExceeded(limit: "keyPathMembers", max: maxMembers) }
    }

    /// Parses `"/App/Container/LoginView1.loginVM.email"`, `"login.email"`, `"Login#3.email"`.
    init(parsing text: String) throws(EngineError) {
        try Self.checkLimits(bytes: text.utf8.count, members: 0)
        if text.hasPrefix("/") {
            let (view, rest) = try ViewPath.split(text)
            root = .view(view)
            members = rest.isEmpty ? [] : rest.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        } else {
            let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard let first = parts.first, !first.isEmpty else { throw .unknownPath(text, "a key path is empty") }
            if first.contains("#") {
                root = .object(first)
                members = Array(parts.dropFirst())
            } else {
                root = .view(Self.appPath)
                members = parts
            }
        }
        try Self.checkLimits(bytes: 0, members: members.count)
        for member in members where member.isEmpty {
            throw .unknownPath(text, "a key path has an empty member")
        }
    }

    var description: String {
        let head: String
        switch root {
        case .view(let path): head = path
        case .object(let name): head = name
        }
        if members.isEmpty { return head }
        return head + "." + members.joined(separator: ".")
    }
}

/// View paths: `/App/StartView/ContentView[11]`, segments separated by `/`, each a
/// name with an optional explicit id written as compact JSON in brackets.
enum ViewPath {
    /// Splits a key path into its canonical view path and the text after it (without the dot).
    /// Every view path a request names comes through here, so its length is bounded here (SPEC §13).
    static func split(_ text: String) throws(EngineError) -> (view: String, rest: Substring) {
        try KeyPath.checkLimits(bytes: text.utf8.count, members: 0)
        if let plain = splitWithoutIDs(text) { return plain }
        var canonical = ""
        var index = text.startIndex
        while index < text.endIndex, text[index] == "/" {
            index = text.index(after: index)
            let nameStart = index
            while index < text.endIndex, !"/.[".contains(text[index]) { index = text.index(after: index) }
            let name = text[nameStart..<index]
            guard isIdentifier(name) else { throw .unknownPath(text, "\"\(name)\" is not a view name") }
            canonical += "/" + name
            if index < text.endIndex, text[index] == "[" {
                let idEnd = try closingBracket(text, from: index)
                let idText = String(text[text.index(after: index)..<idEnd])
                guard let id = try? JSON(parsing: idText) else {
                    throw .unknownPath(text, "the view id \(idText) is not JSON")
                }
                canonical += segmentSuffix(id)
                index = text.index(after: idEnd)
            }
        }
        if index < text.endIndex {
            guard text[index] == "." else { throw .unknownPath(text, "unexpected \"\(text[index])\" in a view path") }
            index = text.index(after: index)
        }
        return (canonical, text[index...])
    }

    /// The common case, a path with no explicit ids, is already canonical: split it without copying
    /// character by character. Nil when the path has ids or is malformed (the full parser reports why).
    private static func splitWithoutIDs(_ text: String) -> (view: String, rest: Substring)? {
        var viewLength = 0
        var segmentStart = true
        let valid: Bool? = text.utf8.withContiguousStorageIfAvailable { bytes in
            guard bytes.first == UInt8(ascii: "/") else { return false }
            for (offset, byte) in bytes.enumerated() {
                switch byte {
                case UInt8(ascii: "/"):
                    guard offset == 0 || !segmentStart else { return false }
                    segmentStart = true
                case UInt8(ascii: "."):
                    viewLength = offset
                    return !segmentStart
                case UInt8(ascii: "["): return false
                case UInt8(ascii: "0")...UInt8(ascii: "9"):
                    guard !segmentStart else { return false }
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "_"):
                    segmentStart = false
                default: return false
                }
            }
            viewLength = bytes.count
            return !segmentStart
        }
        guard valid == true else { return nil }
        let end = text.utf8.index(text.utf8.startIndex, offsetBy: viewLength)
        let rest = end == text.utf8.endIndex ? text[end...] : text[text.utf8.index(after: end)...]
        return (String(text[..<end]), rest)
    }

    /// `[<id>]` for a view with an explicit id.
    static func segmentSuffix(_ id: JSON) -> String { "[" + id.jsonText + "]" }

    static func child(of parent: String, name: String, id: JSON?) -> String {
        // Written straight into the new string's storage: one allocation, whole pieces copied.
        // An integer id, the usual kind, is written digit by digit instead of made into a string first.
        var integer: Int?
        var idText = ""
        switch id {
        case nil: break
        case .int(let value)?: integer = value
        case let other?: idText = other.jsonText
        }
        let idCount = id == nil ? 0 : 2 + (integer.map(DecimalText.count) ?? idText.utf8.count)
        let count = parent.utf8.count + 1 + name.utf8.count + idCount
        return String(unsafeUninitializedCapacity: count) { buffer in
            var end = 0
            func copy(_ text: String) {
                let copied = text.utf8.withContiguousStorageIfAvailable { bytes in
                    UnsafeMutableBufferPointer(rebasing: buffer[end...]).initialize(fromContentsOf: bytes)
                }
                if let copied {
                    end += copied
                } else {
                    for byte in text.utf8 {
                        buffer[end] = byte
                        end += 1
                    }
                }
            }
            copy(parent)
            buffer[end] = UInt8(ascii: "/")
            end += 1
            copy(name)
            guard id != nil else { return end }
            buffer[end] = UInt8(ascii: "[")
            end += 1
            if let integer, let start = buffer.baseAddress {
                end += DecimalText.write(integer, to: start + end)
            } else {
                copy(idText)
            }
            buffer[end] = UInt8(ascii: "]")
            return end + 1
        }
    }

    /// The index of the `]` that closes the `[` at `start`, skipping brackets inside JSON strings.
    private static func closingBracket(_ text: String, from start: String.Index) throws(EngineError) -> String.Index {
        guard let closing = EmbeddedJSONScanner.closingBracket(in: text, from: start) else {
            throw .unknownPath(text, "a view id is missing its closing \"]\"")
        }
        return closing
    }
}
