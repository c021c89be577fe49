import MilieuJSON

#if canImport(Glibc)
import Glibc
#endif

/// A request of one of the methods clients send most, read straight from its line without the
/// general JSON tree (`IncomingMessage`): a `graph/set` or a `graph/get` in the plain shape every
/// client writes. The tree, the envelope check and the params' decoding cost about 6k
/// instructions of a pipelined `graph/set`'s 26k (callgrind, docs/benchmarks.md); this costs the
/// bytes it scans and the values it keeps.
///
/// It only takes what the general path would decode to the very same request, and gives up
/// (nil) on anything else, which then goes the general way and gets its answer or its error
/// there: a batch, a notification, a key written with an escape or outside ASCII (JSON keys are
/// compared as Swift strings, so only the general path can tell two such keys apart), a repeated
/// or unknown member, a numeric id that is not an `Int` (echoed as written), and any invalid JSON.
/// Each member's value goes through the same strict parser (`JSON.parseValue(in:at:depth:)`), so
/// strings, numbers and UTF-8 are checked exactly as in the whole-document parse.
/// `HotRequestTests` holds it to the general path on every shape it takes and many it refuses.
public enum HotRequest: Sendable {
    case set(id: RequestID, GraphSetRequest)
    case get(id: RequestID, GraphGetRequest)

    /// The request's id: a hot request is never a notification.
    public var id: RequestID {
        switch self {
        case .set(let id, _), .get(let id, _): id
        }
    }

    /// The method's wire name.
    public var method: String {
        switch self {
        case .set: GraphSetRequest.name
        case .get: GraphGetRequest.name
        }
    }

    /// Reads `line` if it is a hot request in the plain shape; nil sends it the general way.
    /// A path among `recentPaths` is read as the string held there.
    public static func read(
        _ line: UnsafeRawBufferPointer, limits: JSONLimits = .default, recentPaths: inout RecentPaths
    ) -> HotRequest? {
        guard let start = line.baseAddress, !line.isEmpty else { return nil }
        let base = start.assumingMemoryBound(to: UInt8.self)
        // Lent by pointer for the scan, which the scanner does not outlive: moving the paths into
        // the scanner and back cost a copy of the scanner and two destructions of it.
        return withUnsafeMutablePointer(to: &recentPaths) { paths in
            var scanner = Scanner(base: base, count: line.count, limits: limits, recentPaths: paths)
            return scanner.request()
        }
    }

    /// Reads `line` alone, with no paths read before it.
    public static func read(_ line: UnsafeRawBufferPointer, limits: JSONLimits = .default) -> HotRequest? {
        var recentPaths = RecentPaths()
        return read(line, limits: limits, recentPaths: &recentPaths)
    }
}

/// The last few distinct paths hot requests named, so that a path sent again is read as the
/// string already made of it: a path of more than 15 bytes (`theme.accentColor`) is not held
/// inline, and making one anew, validated and allocated, cost some 450 instructions of a 13k
/// `graph/set` (callgrind); finding it here costs a length check and a `memcmp` for each held
/// path of its length. At most `capacity` paths of at most `maxLength` bytes, the oldest
/// replaced first.
public struct RecentPaths: Sendable {
    static let capacity = 8
    static let maxLength = 256
    private var paths: [String] = []
    private var oldest = 0

    public init() {}

    /// The string of `bytes`, plain ASCII: the one held if it is, a new one otherwise,
    /// held from now on if it is longer than a string kept inline and not too long.
    mutating func string(_ bytes: UnsafeRawBufferPointer) -> String {
        guard bytes.count > 15 else { return String(decoding: bytes, as: UTF8.self) }
        for path in paths where path.hasUTF8(bytes) { return path }
        let path = String(decoding: bytes, as: UTF8.self)
        guard bytes.count <= Self.maxLength else { return path }
        if paths.count < Self.capacity {
            paths.append(path)
        } else {
            paths[oldest] = path
            oldest = (oldest + 1) % Self.capacity
        }
        return path
    }
}

/// The members a hot request may have, envelope and params, each a bit: a repeated one sends the
/// line the general way, which reports it.
private struct Members: OptionSet {
    let rawValue: UInt8
    static let jsonrpc = Members(rawValue: 1 << 0)
    static let id = Members(rawValue: 1 << 1)
    static let method = Members(rawValue: 1 << 2)
    static let params = Members(rawValue: 1 << 3)
    static let path = Members(rawValue: 1 << 4)
    static let value = Members(rawValue: 1 << 5)
    static let ifVersion = Members(rawValue: 1 << 6)
}

private struct Scanner {
    /// The line's first byte and its length, read without an optional's check at every byte.
    let base: UnsafePointer<UInt8>
    let count: Int
    let limits: JSONLimits
    var position = 0
    var seen: Members = []
    var id: RequestID?
    var method: HotMethod?
    var path: String?
    var value: JSON?
    var ifVersion: Int?
    /// The caller's, for the scan only: a pointer, so that the scanner is not copied to lend it.
    let recentPaths: UnsafeMutablePointer<RecentPaths>

    init(base: UnsafePointer<UInt8>, count: Int, limits: JSONLimits, recentPaths: UnsafeMutablePointer<RecentPaths>) {
        self.base = base
        self.count = count
        self.limits = limits
        self.recentPaths = recentPaths
    }

    mutating func request() -> HotRequest? {
        if let request = inClientsOrder() { return request }
        position = 0
        guard object(depth: 1, member: { scanner, key in scanner.envelopeMember(key) }) else { return nil }
        skipWhitespace()
        // What the request keeps is taken out, not copied: the scanner's copies were released after.
        guard position == count, seen.isSuperset(of: [.jsonrpc, .id, .method, .params]), let id = id.take(), let path = path.take() else {
            return nil
        }
        switch method {
        case .set?:
            guard let value = value.take() else { return nil }
            return .set(id: id, GraphSetRequest(path: path, value: value, ifVersion: ifVersion))
        case .get?:
            guard seen.isDisjoint(with: [.value, .ifVersion]) else { return nil }
            return .get(id: id, GraphGetRequest(path: path))
        case nil:
            return nil
        }
    }

    /// The two methods read here, known by their bytes.
    enum HotMethod { case set, get }

    /// The request in the order and spacing the clients in this repository write it,
    /// `{"jsonrpc":"2.0","id":…,"method":"graph/set","params":{"path":"…","value":…}}`, with
    /// `,"ifVersion":…` after the value if any (a `graph/get` has the path alone), its fixed
    /// parts compared as bytes: no key to find, compare and mark, which cost about half of the
    /// scan (some 1,000 instructions). The id, the value and the version are read as the scanner
    /// reads them; anything else, in any member, leaves the line to the scanner, from its start.
    private mutating func inClientsOrder() -> HotRequest? {
        guard limits.maxDepth >= 2, take(#"{"jsonrpc":"2.0","id":"#), let member = memberValue(depth: 1), let id = Self.id(member)
        else { return nil }
        let isSet: Bool
        if take(#","method":"graph/set","params":{"path":""#) {
            isSet = true
        } else if take(#","method":"graph/get","params":{"path":""#) {
            isSet = false
        } else {
            return nil
        }
        guard let end = plainRunEnd(from: position) else { return nil }
        let text = UnsafeRawBufferPointer(start: base + position, count: end - position)
        position = end + 1
        var written: JSON?
        var version: Int?
        if isSet {
            guard take(#","value":"#), let member = memberValue(depth: 2) else { return nil }
            written = member
            if take(#","ifVersion":"#) {
                switch memberValue(depth: 2) {
                case .int(let number)?: version = number
                case .null?: break
                default: return nil
                }
            }
        }
        guard take("}}") else { return nil }
        skipWhitespace()
        guard position == count else { return nil }
        let path = recentPaths.pointee.string(text)
        guard let written = written.take() else { return .get(id: id, GraphGetRequest(path: path)) }
        return .set(id: id, GraphSetRequest(path: path, value: written, ifVersion: version))
    }

    /// The id a member's value makes: an integer, a string or null (another number is echoed as
    /// written, which only the general path does).
    private static func id(_ member: JSON) -> RequestID? {
        switch member {
        case .int(let number): .int(number)
        case .string(let text): .string(text)
        case .null: .null
        default: nil
        }
    }

    /// One member of the envelope, its key read; false gives up.
    private mutating func envelopeMember(_ key: UnsafeRawBufferPointer) -> Bool {
        if Self.is(key, "params") {
            guard mark(.params) else { return false }
            return object(depth: 2) { scanner, key in scanner.paramsMember(key) }
        }
        // `"2.0"` and the method compared where they are, quotes and all, with no string built.
        if Self.is(key, "jsonrpc") { return take(#""2.0""#) && mark(.jsonrpc) }
        if Self.is(key, "method") {
            if take(#""graph/set""#) {
                method = .set
            } else if take(#""graph/get""#) {
                method = .get
            } else {
                return false
            }
            return mark(.method)
        }
        guard Self.is(key, "id"), let member = memberValue(depth: 1), let id = Self.id(member) else { return false }
        self.id = id
        return mark(.id)
    }

    /// One member of the params, its key read; false gives up.
    private mutating func paramsMember(_ key: UnsafeRawBufferPointer) -> Bool {
        if Self.is(key, "path"), let text = plainText() {
            path = recentPaths.pointee.string(text)
            return mark(.path)
        }
        guard let member = memberValue(depth: 2) else { return false }
        if Self.is(key, "value") {
            value = member
            return mark(.value)
        }
        switch member {
        case .string(let text) where Self.is(key, "path"):
            path = text
            return mark(.path)
        case .int(let number) where Self.is(key, "ifVersion"):
            ifVersion = number
            return mark(.ifVersion)
        case .null where Self.is(key, "ifVersion"):
            return mark(.ifVersion)
        default: return false
        }
    }

    /// Whether `key` is `name`, byte for byte: a generic `elementsEqual` cost some 200
    /// instructions a comparison, a tenth of the whole read.
    private static func `is`(_ key: UnsafeRawBufferPointer, _ name: StaticString) -> Bool {
        key.count == name.utf8CodeUnitCount && (key.isEmpty || memcmp(key.baseAddress!, name.utf8Start, key.count) == 0)
    }

    /// Whether the bytes here are `literal`; past them if so.
    private mutating func take(_ literal: StaticString) -> Bool {
        let length = literal.utf8CodeUnitCount
        guard count - position >= length, memcmp(base + position, literal.utf8Start, length) == 0 else { return false }
        position += length
        return true
    }

    private mutating func mark(_ member: Members) -> Bool { seen.insert(member).inserted }

    /// `{ "key": value, ... }` at `depth`, each member handed to `member` once its key and colon are
    /// read; false on anything else.
    private mutating func object(depth: Int, member: (inout Scanner, UnsafeRawBufferPointer) -> Bool) -> Bool {
        skipWhitespace()
        guard depth <= limits.maxDepth, take(UInt8(ascii: "{")) else { return false }
        skipWhitespace()
        if take(UInt8(ascii: "}")) { return true }
        while true {
            guard let key = plainKey() else { return false }
            skipWhitespace()
            guard take(UInt8(ascii: ":")) else { return false }
            skipWhitespace()
            guard member(&self, key) else { return false }
            skipWhitespace()
            if take(UInt8(ascii: "}")) { return true }
            guard take(UInt8(ascii: ",")) else { return false }
            skipWhitespace()
        }
    }

    /// A key of plain ASCII (`PlainASCII`), without its quotes.
    private mutating func plainKey() -> UnsafeRawBufferPointer? {
        guard take(UInt8(ascii: "\"")), let end = plainRunEnd(from: position) else { return nil }
        defer { position = end + 1 }
        return UnsafeRawBufferPointer(start: base + position, count: end - position)
    }

    /// Where the string whose text starts at `start` ends, at its closing quote, if every byte
    /// before that is plain ASCII (`PlainASCII`, eight bytes at a time: byte by byte, keys and
    /// paths cost some 11 instructions a byte); nil otherwise.
    @inline(__always)
    private func plainRunEnd(from start: Int) -> Int? {
        let end = PlainASCII.end(of: base, from: start, to: count)
        return end < count && base[end] == UInt8(ascii: "\"") ? end : nil
    }

    /// The value at `position`: a string of plain ASCII and an integer of up to
    /// 18 digits are read here, being what ids, methods and paths are; anything else by the strict
    /// parser, which also builds a value only once it is known to be valid.
    private mutating func memberValue(depth: Int) -> JSON? {
        if let plain = plainString() ?? plainInteger() { return plain }
        let line = UnsafeRawBufferPointer(start: base, count: count)
        guard let (value, end) = JSON.parseValue(in: line, at: position, depth: depth, limits: limits) else { return nil }
        position = end
        return value
    }

    /// The text of a string of plain ASCII, without its quotes; nil, at the same position, for
    /// anything else.
    private mutating func plainText() -> UnsafeRawBufferPointer? {
        guard position < count, base[position] == UInt8(ascii: "\""), let end = plainRunEnd(from: position + 1) else { return nil }
        defer { position = end + 1 }
        return UnsafeRawBufferPointer(start: base + position + 1, count: end - position - 1)
    }

    /// A string of plain ASCII; nil, at the same position, for anything else.
    private mutating func plainString() -> JSON? {
        guard let text = plainText() else { return nil }
        // A short string is built in place, as the parser builds them: ASCII skips most of the validation.
        guard text.count <= 15 else { return .string(String(decoding: text, as: UTF8.self)) }
        let short = String(unsafeUninitializedCapacity: text.count) { buffer in
            UnsafeMutableRawBufferPointer(buffer).copyMemory(from: text)
            return text.count
        }
        return .string(short)
    }

    /// An integer of 1 to 18 digits, without a leading zero, a fraction or an exponent, which always
    /// fits an `Int`; nil, at the same position, for any other number (`-0` is a double).
    private mutating func plainInteger() -> JSON? {
        var end = position
        let negative = end < count && base[end] == UInt8(ascii: "-")
        if negative { end += 1 }
        let digitsStart = end
        var magnitude = 0
        while end < count, base[end] &- UInt8(ascii: "0") < 10, end - digitsStart < 18 {
            magnitude = magnitude * 10 + Int(base[end] &- UInt8(ascii: "0"))
            end += 1
        }
        let digits = end - digitsStart
        guard digits > 0, digits == 1 || base[digitsStart] != UInt8(ascii: "0"), !(negative && magnitude == 0) else { return nil }
        if end < count {
            switch base[end] {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): return nil
            default: break
            }
        }
        position = end
        return .int(negative ? -magnitude : magnitude)
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard position < count, base[position] == byte else { return false }
        position += 1
        return true
    }

    private mutating func skipWhitespace() {
        while position < count {
            switch base[position] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): position += 1
            default: return
            }
        }
    }
}
