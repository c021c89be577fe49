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
        // Integers, booleans and null are spelled directly: view ids and rendered bodies are full of them.
        switch self {
        case .int(let value): return String(value)
        case .bool(let value): return value ? "true" : "false"
        case .null: return "null"
        default: break
        }
        return JSONOutput.withSink { sink in
            sink.write(self)
            return String(decoding: sink.buffer, as: UTF8.self)
        }
    }

    /// Appends the compact UTF-8 JSON text of this value to `buffer`.
    public func write(to buffer: inout [UInt8]) {
        JSONOutput.append(to: &buffer) { $0.write(self) }
    }

    /// JSON text for people: one member or element per line, indented by two spaces,
    /// `"key": value` with a space after the colon, empty containers as `[]` and `{}`.
    public var prettyText: String {
        JSONOutput.withSink { sink in
            sink.writePretty(self, level: 0)
            return String(decoding: sink.buffer, as: UTF8.self)
        }
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
///     send(writer.bytes)
///
/// Its bytes live in one heap block with their count and capacity, as an array's do, and are
/// written through a pointer: a write costs a uniqueness and a room check and the copy, where
/// `Array.append(contentsOf:)` cost some 90 instructions a call and a byte's `append` a call of
/// its own (callgrind: about 30 writes make a persistent `graph/set`'s response, log record and
/// history). A copy shares the block until either is written to, as an array's would. The
/// writes are inlinable, as an array's are: called across modules, their few instructions
/// would cost a call and a closure context each.
public struct JSONWriter: @unchecked Sendable {
    @usableFromInline struct Header {
        @usableFromInline var count: Int
        @usableFromInline var capacity: Int

        @usableFromInline init(count: Int, capacity: Int) {
            self.count = count
            self.capacity = capacity
        }
    }

    @usableFromInline typealias Storage = ManagedBuffer<Header, UInt8>

    /// Shared by every writer made without room: it has none, so the first write replaces it.
    /// Never written to.
    nonisolated(unsafe) private static let empty = Storage.create(minimumCapacity: 0) { _ in Header(count: 0, capacity: 0) }

    @usableFromInline var storage: Storage

    /// An empty writer with room for `capacity` bytes before it must grow; none allocates nothing.
    public init(capacity: Int = 256) {
        storage = capacity > 0 ? Self.allocate(capacity, copying: nil) : Self.empty
    }

    private static func allocate(_ capacity: Int, copying old: Storage?) -> Storage {
        let count = old?.header.count ?? 0
        let storage = Storage.create(minimumCapacity: capacity) { _ in Header(count: count, capacity: capacity) }
        if let old, count > 0 {
            old.withUnsafeMutablePointerToElements { from in
                storage.withUnsafeMutablePointerToElements { $0.initialize(from: from, count: count) }
            }
        }
        return storage
    }

    /// Makes the storage this writer's own, with room for `extra` more bytes.
    @inlinable @inline(__always)
    mutating func reserve(_ extra: Int) {
        let header = storage.header
        if _slowPath(header.capacity &- header.count < extra || !isKnownUniquelyReferenced(&storage)) { grow(extra) }
    }

    @usableFromInline @inline(never)
    mutating func grow(_ extra: Int) {
        let header = storage.header
        let needed = header.count + extra
        let capacity = header.capacity >= needed ? header.capacity : Swift.max(header.capacity &* 2, needed, 32)
        storage = Self.allocate(capacity, copying: storage)
    }

    /// Appends `length` bytes from `source`.
    @inlinable @inline(__always)
    mutating func append(_ source: UnsafeRawPointer, _ length: Int) {
        reserve(length)
        storage.withUnsafeMutablePointers { header, elements in
            UnsafeMutableRawPointer(elements + header.pointee.count).copyMemory(from: source, byteCount: length)
            header.pointee.count &+= length
        }
    }

    @inlinable @inline(__always)
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        append(source, bytes.count)
    }

    /// Appends what `body` writes into a sink (most of whose room is on the stack) in one copy.
    @inline(__always)
    private mutating func appendFromSink(_ body: (inout ByteSink) -> Void) {
        JSONOutput.withSink { sink in
            body(&sink)
            append(UnsafeRawBufferPointer(sink.buffer))
        }
    }

    /// Bytes `range` of what was written, to read and overwrite in place: a header whose lengths
    /// and checksums are known only once what follows it is written, filled in with one
    /// uniqueness check (one a field cost some 25 instructions each).
    public mutating func withMutableBytes<R>(in range: Range<Int>, _ body: (UnsafeMutableRawBufferPointer) -> R) -> R {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "bytes outside what was written")
        reserve(0)
        return storage.withUnsafeMutablePointerToElements {
            body(UnsafeMutableRawBufferPointer(start: $0 + range.lowerBound, count: range.count))
        }
    }

    /// The bytes written so far, to read in place (a checksum over a range of them).
    @inlinable
    public func withBytes<R, E: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
        try storage.withUnsafeMutablePointers { (header, elements) throws(E) in
            try body(UnsafeBufferPointer(start: elements, count: header.pointee.count))
        }
    }

    /// Bytes `range` of what was written, to read in place (to send them).
    @inlinable
    public func withBytes<R, E: Error>(in range: Range<Int>, _ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try withBytes { (all) throws(E) in try body(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: all[range]))) }
    }

    /// The bytes written so far, copied.
    public var bytes: [UInt8] { withBytes { Array($0) } }

    /// The number of bytes written so far.
    @inlinable public var count: Int { storage.header.count }

    /// How many bytes fit before the writer must grow.
    @inlinable public var capacity: Int { storage.header.capacity }

    /// The bytes written so far, as a string.
    public var text: String { withBytes { String(decoding: $0, as: UTF8.self) } }

    /// Forgets what was written, keeping the storage for reuse by default.
    public mutating func removeAll(keepingCapacity: Bool = true) {
        guard keepingCapacity, isKnownUniquelyReferenced(&storage) else {
            storage = keepingCapacity && capacity > 0 ? Self.allocate(capacity, copying: nil) : Self.empty
            return
        }
        storage.header.count = 0
    }

    /// Forgets what was written from byte `count` on.
    public mutating func truncate(to count: Int) {
        precondition(count >= 0 && count <= self.count, "truncating past what was written")
        reserve(0)
        storage.header.count = count
    }

    /// Writes `value` as compact JSON: a string or an integer (what most values written are) in
    /// place, anything else through a sink.
    public mutating func write(_ value: JSON) {
        switch value {
        case .string(let text): writeString(text)
        case .int(let number): writeInt(number)
        default: appendFromSink { $0.write(value) }
        }
    }

    /// Writes `string` as a quoted, escaped JSON string.
    public mutating func writeString(_ string: String) {
        let written = string.utf8.withContiguousStorageIfAvailable { writePlainString($0) }
        if written != true { appendFromSink { $0.writeString(string) } }
    }

    /// Writes `utf8` quoted where it lands if none of its bytes needs escaping, as in nearly every
    /// name, path and value; false, having written nothing, if one does. Through a sink, a short
    /// string cost about 200 instructions (callgrind); in place, a third of that.
    private mutating func writePlainString(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        let length = utf8.count
        reserve(length &+ JSONOutput.plainStringRoom)
        return storage.withUnsafeMutablePointers { header, elements in
            let start = elements + header.pointee.count
            guard JSONOutput.copyIfPlain(utf8, to: start + 1) else { return false }
            start[0] = UInt8(ascii: "\"")
            start[length &+ 1] = UInt8(ascii: "\"")
            header.pointee.count &+= length &+ 2
            return true
        }
    }

    /// Writes `"key":`: a quoted, escaped object key and the colon after it.
    public mutating func writeKey(_ key: String) {
        appendFromSink { sink in
            sink.writeString(key)
            sink.append(UInt8(ascii: ":"))
        }
    }

    /// Writes an integer in decimal.
    @inlinable
    public mutating func writeInt(_ value: Int) {
        reserve(20)  // "-9223372036854775808"
        storage.withUnsafeMutablePointers { header, elements in
            header.pointee.count &+= DecimalText.write(value, to: elements + header.pointee.count)
        }
    }

    /// Writes a double as it would appear in `JSON.double(value)`; non-finite values as `null`.
    public mutating func writeDouble(_ value: Double) {
        appendFromSink { $0.writeDouble(value) }
    }

    /// Writes `true` or `false`.
    public mutating func writeBool(_ value: Bool) {
        writeRaw(value ? "true" : "false")
    }

    /// Writes `null`.
    public mutating func writeNull() {
        writeRaw("null")
    }

    /// Appends a literal as is, unescaped: punctuation, or JSON known to be valid. A literal's
    /// bytes and length are constants where it is written, so this is a copy of known size;
    /// taking a `String` cost some 66 instructions a call (callgrind), most of them asking the
    /// string where its bytes are. Text that is not a literal goes through
    /// `writeRaw(_: some Sequence<UInt8>)` with its `utf8`.
    @inlinable @inline(__always)
    public mutating func writeRaw(_ literal: StaticString) {
        // Not `utf8Start`, which traps on a `StaticString` made from a `Unicode.Scalar`.
        literal.withUTF8Buffer { append(UnsafeRawBufferPointer($0)) }
    }

    /// Appends one byte as is.
    @inlinable
    public mutating func writeRaw(_ byte: UInt8) {
        reserve(1)
        storage.withUnsafeMutablePointers { header, elements in
            elements[header.pointee.count] = byte
            header.pointee.count &+= 1
        }
    }

    /// Appends bytes as is.
    @inlinable
    public mutating func writeRaw(_ rawBytes: [UInt8]) {
        rawBytes.withUnsafeBytes { append($0) }
    }

    /// Appends bytes as is.
    @inlinable
    public mutating func writeRaw(_ rawBytes: UnsafeRawBufferPointer) {
        append(rawBytes)
    }

    /// Appends what `other` wrote.
    @inlinable
    public mutating func writeRaw(_ other: JSONWriter) {
        other.withBytes { append(UnsafeRawBufferPointer($0)) }
    }

    /// Appends bytes as is.
    public mutating func writeRaw(_ rawBytes: some Sequence<UInt8>) {
        let done: Void? = rawBytes.withContiguousStorageIfAvailable { append(UnsafeRawBufferPointer($0)) }
        guard done == nil else { return }
        for byte in rawBytes { writeRaw(byte) }
    }

    /// Appends `count` zero bytes: room for a header that `patch` fills in once what follows is written.
    public mutating func writeZeros(_ count: Int) {
        guard count > 0 else { return }
        reserve(count)
        storage.withUnsafeMutablePointers { header, elements in
            (elements + header.pointee.count).initialize(repeating: 0, count: count)
            header.pointee.count &+= count
        }
    }
}

// MARK: - Encoding

enum JSONOutput {
    /// Runs `body` with a sink whose first kilobyte lives on the stack.
    @inline(__always)
    static func withSink<R>(_ body: (inout ByteSink) -> R) -> R {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1024) { stack in
            var sink = ByteSink(stack: stack)
            return body(&sink)
        }
    }

    /// The room `copyIfPlain` needs beyond the text: its quotes and eight bytes of padding.
    static let plainStringRoom = 10

    /// Copies `utf8` to `destination` and says whether none of its bytes must be escaped in a JSON
    /// string (`"`, `\\`, below 0x20). `destination` must have room for 8 bytes past the text:
    /// the copy is checked a word at a time, and the zero padding after it (counted as control
    /// characters) means no word reads past initialized memory and only flags at or after the end.
    @inline(__always)
    static func copyIfPlain(_ utf8: UnsafeBufferPointer<UInt8>, to destination: UnsafeMutablePointer<UInt8>) -> Bool {
        #if _endian(little)
        let length = utf8.count
        guard let source = utf8.baseAddress else { return true }
        destination.initialize(from: source, count: length)
        UnsafeMutableRawPointer(destination + length).storeBytes(of: 0 as UInt64, as: UInt64.self)
        var offset = 0
        while true {
            let flagged = ByteSink.escapeFlags(UnsafeRawPointer(destination + offset).loadUnaligned(as: UInt64.self))
            if flagged != 0 { return offset &+ flagged.trailingZeroBitCount &>> 3 >= length }
            offset &+= 8
        }
        #else
        return utf8.isEmpty
        #endif
    }

    /// Appends what `body` writes to `out` in one copy.
    @inline(__always)
    static func append(to out: inout [UInt8], _ body: (inout ByteSink) -> Void) {
        withSink { sink in
            body(&sink)
            out.append(contentsOf: sink.buffer)
        }
    }
}

/// A growable byte buffer written through a raw pointer, so that encoding costs no per-byte
/// bounds or uniqueness checks. It starts in caller-provided (stack) memory and moves to the
/// heap if it outgrows it.
struct ByteSink: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var count = 0
    private var capacity: Int
    private var ownsStorage: Bool

    init(stack: UnsafeMutableBufferPointer<UInt8>) {
        if let address = stack.baseAddress, stack.count > 0 {
            base = address
            capacity = stack.count
            ownsStorage = false
        } else {
            capacity = 256
            base = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
            ownsStorage = true
        }
    }

    deinit {
        if ownsStorage { base.deallocate() }
    }

    /// The bytes written so far; valid until the sink is next written to or destroyed.
    var buffer: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

    /// Makes room for `extra` more bytes.
    @inline(__always)
    mutating func reserve(_ extra: Int) {
        if capacity &- count < extra { grow(extra) }
    }

    @inline(never)
    private mutating func grow(_ extra: Int) {
        let newCapacity = Swift.max(capacity &* 2, count + extra)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.initialize(from: base, count: count)
        if ownsStorage { base.deallocate() }
        base = newBase
        capacity = newCapacity
        ownsStorage = true
    }

    /// Appends a byte the caller has reserved room for.
    @inline(__always)
    private mutating func put(_ byte: UInt8) {
        base[count] = byte
        count &+= 1
    }

    /// Appends `length` bytes the caller has reserved room for.
    @inline(__always)
    private mutating func put(_ source: UnsafePointer<UInt8>, _ length: Int) {
        (base + count).initialize(from: source, count: length)
        count &+= length
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        reserve(1)
        put(byte)
    }

    @inline(__always)
    mutating func append(_ literal: StaticString) {
        let length = literal.utf8CodeUnitCount
        reserve(length)
        put(literal.utf8Start, length)
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        reserve(bytes.count)
        put(source, bytes.count)
    }

    // MARK: Values

    mutating func write(_ value: JSON) {
        switch value {
        case .null:
            append("null")
        case .bool(let b):
            append(b ? "true" : "false")
        case .int(let i):
            writeInt(i)
        case .double(let d):
            writeDouble(d)
        case .string(let s):
            writeString(s)
        case .array(let elements):
            append(UInt8(ascii: "["))
            var first = true
            for element in elements {
                if !first { append(UInt8(ascii: ",")) }
                first = false
                write(element)
            }
            append(UInt8(ascii: "]"))
        case .object(let object):
            append(UInt8(ascii: "{"))
            var first = true
            for member in object.members {
                if !first { append(UInt8(ascii: ",")) }
                first = false
                writeString(member.key)
                append(UInt8(ascii: ":"))
                write(member.value)
            }
            append(UInt8(ascii: "}"))
        }
    }

    mutating func writePretty(_ value: JSON, level: Int) {
        switch value {
        case .array(let elements) where !elements.isEmpty:
            append(UInt8(ascii: "["))
            var first = true
            for element in elements {
                if !first { append(UInt8(ascii: ",")) }
                first = false
                writeNewline(indent: level + 1)
                writePretty(element, level: level + 1)
            }
            writeNewline(indent: level)
            append(UInt8(ascii: "]"))
        case .object(let object) where !object.isEmpty:
            append(UInt8(ascii: "{"))
            var first = true
            for member in object.members {
                if !first { append(UInt8(ascii: ",")) }
                first = false
                writeNewline(indent: level + 1)
                writeString(member.key)
                append(": ")
                writePretty(member.value, level: level + 1)
            }
            writeNewline(indent: level)
            append(UInt8(ascii: "}"))
        default:
            write(value)
        }
    }

    private mutating func writeNewline(indent level: Int) {
        reserve(1 + 2 * level)
        put(0x0A)
        for _ in 0..<2 * level { put(UInt8(ascii: " ")) }
    }

    mutating func writeInt(_ value: Int) {
        reserve(20)  // "-9223372036854775808"
        count &+= DecimalText.write(value, to: base + count)
    }

    mutating func writeDouble(_ value: Double) {
        guard value.isFinite else {
            append("null")
            return
        }
        // Integral values of moderate size: the digits and ".0", exactly as `description` writes them.
        if value.magnitude < 1e15, value == value.rounded(.towardZero) {
            if value == 0 {
                append(value.sign == .minus ? "-0.0" : "0.0")
            } else {
                writeInt(Int(value))
                append(".0")
            }
            return
        }
        // Swift's description is the shortest text that reads back as the same double, and for
        // finite values always has a "." or an exponent.
        var text = value.description
        text.withUTF8 { append($0) }
        if !text.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") }) {
            append(".0")
        }
    }

    mutating func writeString(_ string: String) {
        let done: Void? = string.utf8.withContiguousStorageIfAvailable { writeEscaped($0) }
        if done == nil {
            var copy = string
            copy.withUTF8 { writeEscaped($0) }
        }
    }

    /// Writes valid UTF-8 quoted, escaping `"`, `\` and control characters, copying the runs
    /// between escapes in bulk.
    private mutating func writeEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        let length = utf8.count
        reserve(length &+ JSONOutput.plainStringRoom)
        put(UInt8(ascii: "\""))
        guard let source = utf8.baseAddress else {
            put(UInt8(ascii: "\""))
            return
        }
        if JSONOutput.copyIfPlain(utf8, to: base + count) {
            count &+= length
            put(UInt8(ascii: "\""))
            return
        }
        var runStart = 0
        var index = 0
        while true {
            index = Self.nextByteToEscape(source, from: index, count: length)
            if index == length { break }
            put(source + runStart, index &- runStart)
            // Room for the longest escape, the rest of the string and the closing quote.
            reserve(6 &+ length &- index)
            let b = source[index]
            put(UInt8(ascii: "\\"))
            switch b {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): put(b)
            case 0x08: put(UInt8(ascii: "b"))
            case 0x09: put(UInt8(ascii: "t"))
            case 0x0A: put(UInt8(ascii: "n"))
            case 0x0C: put(UInt8(ascii: "f"))
            case 0x0D: put(UInt8(ascii: "r"))
            default:
                let hexDigits: StaticString = "0123456789abcdef"
                put(UInt8(ascii: "u"))
                put(UInt8(ascii: "0"))
                put(UInt8(ascii: "0"))
                put(hexDigits.utf8Start[Int(b &>> 4)])
                put(hexDigits.utf8Start[Int(b & 0xF)])
            }
            index &+= 1
            runStart = index
        }
        put(source + runStart, length &- runStart)
        put(UInt8(ascii: "\""))
    }

    /// The high bit set in each byte of `word` that must be escaped (`"`, `\\`, or below 0x20),
    /// exact for the lowest such byte (borrows only spread towards later bytes).
    @inline(__always)
    static func escapeFlags(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let quotes = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
        let backslashes = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
        return
            (((quotes &- ones) & ~quotes)
            | ((backslashes &- ones) & ~backslashes)
            | ((word &- ones &* 0x20) & ~word)) & 0x8080_8080_8080_8080
    }

    /// The index of the first byte at or after `start` that must be escaped (`"`, `\`, or below
    /// 0x20), or `count` if there is none. Scans eight bytes at a time.
    @inline(__always)
    private static func nextByteToEscape(_ source: UnsafePointer<UInt8>, from start: Int, count: Int) -> Int {
        var index = start
        #if _endian(little)
        while index &+ 8 <= count {
            let flagged = escapeFlags(UnsafeRawPointer(source + index).loadUnaligned(as: UInt64.self))
            if flagged != 0 { return index &+ flagged.trailingZeroBitCount &>> 3 }
            index &+= 8
        }
        #endif
        while index < count {
            let b = source[index]
            if b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") { return index }
            index &+= 1
        }
        return count
    }
}
