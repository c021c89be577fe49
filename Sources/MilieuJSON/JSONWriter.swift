// Compact and pretty JSON output.
//
// - Strings: `"` and `\` are escaped, as are control characters (`\b \f \n \r \t`, others as
//   `\u00XX`). Nothing else is: not `/`, not non-ASCII (written as UTF-8).
// - Doubles are written in the shortest form that reads back as the same double (Swift's
//   `description`), always with a `.` or an exponent so they read back as doubles: `1.0`,
//   `-0.0`, `1e+16`, `5e-324`. Non-finite doubles, which JSON cannot express, are written `null`.
// - Object members keep their order.

extension JSON {
    /// Compact JSON text: no spaces, no newlines.
    public var jsonText: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64)
        JSONOutput.append(self, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the compact UTF-8 JSON text of this value to `buffer`.
    public func write(to buffer: inout [UInt8]) {
        JSONOutput.append(self, to: &buffer)
    }

    /// JSON text for people: one member or element per line, indented by two spaces,
    /// `"key": value` with a space after the colon, empty containers as `[]` and `{}`.
    public var prettyText: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(128)
        JSONOutput.appendPretty(self, level: 0, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// A growing buffer of compact JSON bytes, for building messages (such as JSON-RPC envelopes)
/// piece by piece without first assembling `JSON` values.
///
/// The writer does no structural checking: callers supply the punctuation with `writeRaw`.
///
///     var writer = JSONWriter()
///     writer.writeRaw(#"{"jsonrpc":"2.0","id":"#)
///     writer.writeInt(17)
///     writer.writeRaw(#","result":"#)
///     writer.write(result)
///     writer.writeRaw("}\n")
///     send(writer.takeBytes())
public struct JSONWriter: Sendable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8]

    /// An empty writer with room for `capacity` bytes before it must grow.
    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// The number of bytes written so far.
    public var count: Int { bytes.count }

    /// The bytes written so far, as a string.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Gives up the bytes written, without copying.
    public consuming func takeBytes() -> [UInt8] { bytes }

    /// Forgets what was written, keeping the storage for reuse by default.
    public mutating func removeAll(keepingCapacity: Bool = true) {
        bytes.removeAll(keepingCapacity: keepingCapacity)
    }

    /// Writes `value` as compact JSON.
    public mutating func write(_ value: JSON) {
        JSONOutput.append(value, to: &bytes)
    }

    /// Writes `string` as a quoted, escaped JSON string.
    public mutating func writeString(_ string: String) {
        JSONOutput.appendString(string, to: &bytes)
    }

    /// Writes `"key":`: a quoted, escaped object key and the colon after it.
    public mutating func writeKey(_ key: String) {
        JSONOutput.appendString(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }

    /// Writes an integer in decimal.
    public mutating func writeInt(_ value: Int) {
        JSONOutput.appendInt(value, to: &bytes)
    }

    /// Writes a double as it would appear in `JSON.double(value)`; non-finite values as `null`.
    public mutating func writeDouble(_ value: Double) {
        JSONOutput.appendDouble(value, to: &bytes)
    }

    /// Writes `true` or `false`.
    public mutating func writeBool(_ value: Bool) {
        JSONOutput.appendLiteral(value ? "true" : "false", to: &bytes)
    }

    /// Writes `null`.
    public mutating func writeNull() {
        JSONOutput.appendLiteral("null", to: &bytes)
    }

    /// Appends the UTF-8 of `text` as is, unescaped: punctuation, or JSON known to be valid.
    public mutating func writeRaw(_ text: String) {
        JSONOutput.appendUTF8(of: text, to: &bytes)
    }

    /// Appends one byte as is.
    public mutating func writeRaw(_ byte: UInt8) {
        bytes.append(byte)
    }

    /// Appends bytes as is.
    public mutating func writeRaw(_ rawBytes: [UInt8]) {
        bytes.append(contentsOf: rawBytes)
    }

    /// Appends bytes as is.
    public mutating func writeRaw(_ rawBytes: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: rawBytes)
    }

    /// Appends bytes as is.
    public mutating func writeRaw(_ rawBytes: some Sequence<UInt8>) {
        bytes.append(contentsOf: rawBytes)
    }
}

// MARK: - Encoding

enum JSONOutput {
    static func append(_ value: JSON, to out: inout [UInt8]) {
        switch value {
        case .null:
            appendLiteral("null", to: &out)
        case .bool(let b):
            appendLiteral(b ? "true" : "false", to: &out)
        case .int(let i):
            appendInt(i, to: &out)
        case .double(let d):
            appendDouble(d, to: &out)
        case .string(let s):
            appendString(s, to: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            var first = true
            for element in elements {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                append(element, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            var first = true
            for member in object.members {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                appendString(member.key, to: &out)
                out.append(UInt8(ascii: ":"))
                append(member.value, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    static func appendPretty(_ value: JSON, level: Int, to out: inout [UInt8]) {
        switch value {
        case .array(let elements) where !elements.isEmpty:
            out.append(UInt8(ascii: "["))
            var first = true
            for element in elements {
                if !first { out.append(UInt8(ascii: ",")) }
                out.append(0x0A)
                first = false
                appendIndent(level + 1, to: &out)
                appendPretty(element, level: level + 1, to: &out)
            }
            out.append(0x0A)
            appendIndent(level, to: &out)
            out.append(UInt8(ascii: "]"))
        case .object(let object) where !object.isEmpty:
            out.append(UInt8(ascii: "{"))
            var first = true
            for member in object.members {
                if !first { out.append(UInt8(ascii: ",")) }
                out.append(0x0A)
                first = false
                appendIndent(level + 1, to: &out)
                appendString(member.key, to: &out)
                out.append(UInt8(ascii: ":"))
                out.append(UInt8(ascii: " "))
                appendPretty(member.value, level: level + 1, to: &out)
            }
            out.append(0x0A)
            appendIndent(level, to: &out)
            out.append(UInt8(ascii: "}"))
        default:
            append(value, to: &out)
        }
    }

    private static func appendIndent(_ level: Int, to out: inout [UInt8]) {
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * level))
    }

    @inline(__always)
    static func appendLiteral(_ literal: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    static func appendUTF8(of text: String, to out: inout [UInt8]) {
        let done: Void? = text.utf8.withContiguousStorageIfAvailable { out.append(contentsOf: $0) }
        if done == nil { out.append(contentsOf: text.utf8) }
    }

    static func appendInt(_ value: Int, to out: inout [UInt8]) {
        if value >= 0 && value < 10 {
            out.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value))
            return
        }
        var magnitude = value.magnitude
        // Up to 20 characters ("-9223372036854775808"), filled from the right.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = 20
            repeat {
                start &-= 1
                digits[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude != 0
            if value < 0 {
                start &-= 1
                digits[start] = UInt8(ascii: "-")
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start..<20]))
        }
    }

    static func appendDouble(_ value: Double, to out: inout [UInt8]) {
        guard value.isFinite else {
            appendLiteral("null", to: &out)
            return
        }
        // Integral values of moderate size: the digits and ".0", as `description` would write them.
        if value.magnitude < 1e15, value == value.rounded(.towardZero) {
            if value == 0 {
                appendLiteral(value.sign == .minus ? "-0.0" : "0.0", to: &out)
            } else {
                appendInt(Int(value), to: &out)
                appendLiteral(".0", to: &out)
            }
            return
        }
        // Swift's description is the shortest text that reads back as the same double.
        let text = value.description
        appendUTF8(of: text, to: &out)
        if !text.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") }) {
            appendLiteral(".0", to: &out)
        }
    }

    /// Escape for each byte below 0x20 after the backslash: a letter, or `u` for `\u00XX`.
    private static let controlEscapes: [UInt8] = (0..<32).map { code -> UInt8 in
        switch code {
        case 0x08: UInt8(ascii: "b")
        case 0x09: UInt8(ascii: "t")
        case 0x0A: UInt8(ascii: "n")
        case 0x0C: UInt8(ascii: "f")
        case 0x0D: UInt8(ascii: "r")
        default: UInt8(ascii: "u")
        }
    }

    static func appendString(_ string: String, to out: inout [UInt8]) {
        let done: Void? = string.utf8.withContiguousStorageIfAvailable { appendEscaped($0, to: &out) }
        if done == nil {
            var copy = string
            copy.withUTF8 { appendEscaped($0, to: &out) }
        }
    }

    /// Appends `utf8` (valid UTF-8) quoted and escaped, copying runs that need no escape in bulk.
    private static func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        guard let base = utf8.baseAddress else {
            out.append(UInt8(ascii: "\""))
            return
        }
        let count = utf8.count
        var runStart = 0
        var index = 0
        while index < count {
            let b = base[index]
            if b >= 0x20 && b != UInt8(ascii: "\"") && b != UInt8(ascii: "\\") {
                index &+= 1
                continue
            }
            if runStart < index {
                out.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: index &- runStart))
            }
            out.append(UInt8(ascii: "\\"))
            if b >= 0x20 {
                out.append(b)
            } else {
                let escape = controlEscapes[Int(b)]
                out.append(escape)
                if escape == UInt8(ascii: "u") {
                    let hexDigits: StaticString = "0123456789abcdef"
                    out.append(UInt8(ascii: "0"))
                    out.append(UInt8(ascii: "0"))
                    out.append(hexDigits.utf8Start[Int(b >> 4)])
                    out.append(hexDigits.utf8Start[Int(b & 0xF)])
                }
            }
            index &+= 1
            runStart = index
        }
        if runStart < count {
            out.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: count &- runStart))
        }
        out.append(UInt8(ascii: "\""))
    }
}
