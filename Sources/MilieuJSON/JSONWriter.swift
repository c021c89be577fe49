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

    fileprivate static func allocate(_ capacity: Int, copying old: Storage?) -> Storage {
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

    /// Runs `body` with a sink that writes into this writer's own storage, in place. The storage
    /// is made this writer's own once, here, so that the writes in `body` cost no uniqueness
    /// check each: a log record or an answer made of many pieces checks once, where each write
    /// of the writer's own checked again (about 36 checks, some 400 instructions, a persistent
    /// `graph/set`'s record and answer; callgrind). `body` must not reach this writer another
    /// way (through the object that holds it): the sink may move its bytes as it grows.
    public mutating func withSink<R>(_ body: (inout JSONSink) -> R) -> R {
        reserve(0)
        return withUnsafeMutablePointer(to: &storage) { owner in
            var sink = JSONSink(writer: owner)
            let result = body(&sink)
            sink.close()
            return result
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
        // Nothing to remove: a writer that never wrote shares the empty storage, which is not
        // its own, and was given it again (a `swift_once`, a retain and a release, every turn).
        if keepingCapacity && count == 0 { return }
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

    /// Writes `value` as compact JSON.
    public mutating func write(_ value: JSON) {
        withSink { $0.write(value) }
    }

    /// Writes `string` as a quoted, escaped JSON string.
    public mutating func writeString(_ string: String) {
        withSink { $0.writeString(string) }
    }

    /// Writes an integer in decimal.
    @inlinable
    public mutating func writeInt(_ value: Int) {
        reserve(20)  // "-9223372036854775808"
        storage.withUnsafeMutablePointers { header, elements in
            header.pointee.count &+= DecimalText.write(value, to: elements + header.pointee.count)
        }
    }

    /// Appends a literal as is, unescaped: punctuation, or JSON known to be valid. A literal's
    /// bytes and length are constants where it is written, so this is a copy of known size;
    /// taking a `String` cost some 66 instructions a call (callgrind), most of them asking the
    /// string where its bytes are. Other text goes through a sink (`withSink`).
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
}

// MARK: - Encoding

enum JSONOutput {
    /// Runs `body` with a sink whose first kilobyte lives on the stack.
    @inline(__always)
    static func withSink<R>(_ body: (inout JSONSink) -> R) -> R {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1024) { stack in
            var sink = JSONSink(stack: stack)
            return body(&sink)
        }
    }

    /// Copies `utf8` to `destination` and says whether none of its bytes must be escaped in a JSON
    /// string (`"`, `\\`, below 0x20), in one pass of eight-byte words: the last word overlaps the
    /// one before it rather than reading or writing past the text, and a text under eight bytes
    /// is read as two overlapping halves or, under four, byte by byte. `destination` must have
    /// room for `utf8.count` bytes, and is written even when the answer is false. Copying with
    /// `memcpy`, then scanning the copy, cost a log record's seven strings (most under sixteen
    /// bytes) some 980 instructions with the calls around them; this, about 800 (callgrind).
    @inline(__always)
    static func copyIfPlain(_ utf8: UnsafeBufferPointer<UInt8>, to destination: UnsafeMutablePointer<UInt8>) -> Bool {
        #if _endian(little)
        let length = utf8.count
        guard let source = utf8.baseAddress, length > 0 else { return true }
        let from = UnsafeRawPointer(source)
        let to = UnsafeMutableRawPointer(destination)
        if length >= 8 {
            let last = length &- 8
            var flags: UInt64 = 0
            var offset = 0
            while offset < last {
                let word = from.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                to.storeBytes(of: word, toByteOffset: offset, as: UInt64.self)
                flags |= JSONSink.escapeFlags(word)
                offset &+= 8
            }
            let word = from.loadUnaligned(fromByteOffset: last, as: UInt64.self)
            to.storeBytes(of: word, toByteOffset: last, as: UInt64.self)
            return flags | JSONSink.escapeFlags(word) == 0
        }
        if length >= 4 {
            let low = from.loadUnaligned(as: UInt32.self)
            let high = from.loadUnaligned(fromByteOffset: length &- 4, as: UInt32.self)
            to.storeBytes(of: low, as: UInt32.self)
            to.storeBytes(of: high, toByteOffset: length &- 4, as: UInt32.self)
            return JSONSink.escapeFlags(UInt64(low) | UInt64(high) &<< 32) == 0
        }
        // One to three bytes: the first, the middle and the last cover them all; the word's other
        // bytes are letters, which need no escape.
        let first = source[0]
        let middle = source[length &>> 1]
        let final = source[length &- 1]
        destination[0] = first
        destination[length &>> 1] = middle
        destination[length &- 1] = final
        let letters: UInt64 = 0x4141_4141_4100_0000
        return JSONSink.escapeFlags(letters | UInt64(first) | UInt64(middle) &<< 8 | UInt64(final) &<< 16) == 0
        #else
        return utf8.isEmpty
        #endif
    }

    /// Appends what `body` writes to `out` in one copy.
    @inline(__always)
    static func append(to out: inout [UInt8], _ body: (inout JSONSink) -> Void) {
        withSink { sink in
            body(&sink)
            out.append(contentsOf: sink.buffer)
        }
    }
}

/// What a sink last wrote for a pair of strings (`JSONSink.write(memo:_:_:_:)`): a log record
/// names the same view and property write after write, and writing them again from here costs
/// two comparisons and a copy, where escaping and quoting each string cost some 90 instructions
/// (callgrind). The strings are compared with `==`, which answers at once for the same string,
/// as the engine hands over a view's path and an object's durable names. `==` is Swift's
/// canonical equivalence, by which the engine also tells paths and names apart: a spelling
/// equivalent to the memo's (`é` composed or not) names the same view, and is written as the
/// memo spelled it.
public struct WrittenMemo {
    /// Longer writes are not kept: a memo holds a few names, not a client's long path.
    static let maxBytes = 256
    fileprivate var first = ""
    fileprivate var second = ""
    fileprivate var bytes: [UInt8] = []

    public init() {}
}

/// JSON text written through a raw pointer, so that encoding costs no per-byte bounds or
/// uniqueness checks: into a `JSONWriter`'s storage (`JSONWriter.withSink`), or into memory of
/// its own that starts on the stack and moves to the heap if it outgrows it (a value's
/// `jsonText`). Punctuation is the caller's, as with `JSONWriter`.
public struct JSONSink: ~Copyable {
    /// Where the bytes live.
    private enum Home {
        /// Memory the caller provided (the stack); not the sink's to free.
        case borrowed
        /// Memory the sink allocated after outgrowing what it was given; freed with the sink.
        case owned
        /// A writer's storage, made its own before the sink was: growing replaces it.
        case writer(UnsafeMutablePointer<JSONWriter.Storage>)
    }

    private var base: UnsafeMutablePointer<UInt8>
    /// The number of bytes written, a writer's included: where the next byte goes.
    public private(set) var count: Int
    private var capacity: Int
    private var home: Home

    init(stack: UnsafeMutableBufferPointer<UInt8>) {
        count = 0
        if let address = stack.baseAddress, stack.count > 0 {
            base = address
            capacity = stack.count
            home = .borrowed
        } else {
            capacity = 256
            base = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
            home = .owned
        }
    }

    /// Writes after what `owner` holds, in its storage, which is `owner`'s alone and stays alive
    /// while the sink does (`JSONWriter.withSink`): its elements' address is stable until the
    /// sink replaces it.
    init(writer owner: UnsafeMutablePointer<JSONWriter.Storage>) {
        let storage = owner.pointee
        base = storage.withUnsafeMutablePointerToElements { $0 }
        count = storage.header.count
        capacity = storage.header.capacity
        home = .writer(owner)
    }

    deinit {
        if case .owned = home { base.deallocate() }
    }

    /// Hands a writer's storage what was written; the sink writes no more.
    mutating func close() {
        if case .writer(let owner) = home { owner.pointee.header.count = count }
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
        let newCapacity = Swift.max(capacity &* 2, count + extra, 32)
        switch home {
        case .writer(let owner):
            owner.pointee.header.count = count
            owner.pointee = JSONWriter.allocate(newCapacity, copying: owner.pointee)
            base = owner.pointee.withUnsafeMutablePointerToElements { $0 }
        case .borrowed, .owned:
            let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
            newBase.initialize(from: base, count: count)
            if case .owned = home { base.deallocate() }
            base = newBase
            home = .owned
        }
        capacity = newCapacity
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

    /// Appends one byte as is.
    @inline(__always)
    public mutating func writeRaw(_ byte: UInt8) {
        reserve(1)
        put(byte)
    }

    /// Appends a literal as is, unescaped: punctuation, or JSON known to be valid.
    @inline(__always)
    public mutating func writeRaw(_ literal: StaticString) {
        // Not `utf8Start`, which traps on a `StaticString` made from a `Unicode.Scalar`. Put in
        // place, not through `writeRaw(_: UnsafeBufferPointer)`: where the length is a constant,
        // the copy is a few moves rather than a call of `memcpy`.
        literal.withUTF8Buffer { bytes in
            guard let source = bytes.baseAddress else { return }
            reserve(bytes.count)
            put(source, bytes.count)
        }
    }

    /// Appends bytes as is.
    public mutating func writeRaw(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        reserve(bytes.count)
        put(source, bytes.count)
    }

    /// Appends `zeros` zero bytes: room for a header filled in once what follows is written
    /// (`withMutableBytes`).
    public mutating func writeZeros(_ zeros: Int) {
        guard zeros > 0 else { return }
        reserve(zeros)
        (base + count).initialize(repeating: 0, count: zeros)
        count &+= zeros
    }

    /// Bytes `range` of what was written, to overwrite in place: a header whose lengths and
    /// checksums are known only once what follows it is written.
    public mutating func withMutableBytes<R>(in range: Range<Int>, _ body: (UnsafeMutableRawBufferPointer) -> R) -> R {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "bytes outside what was written")
        return body(UnsafeMutableRawBufferPointer(start: base + range.lowerBound, count: range.count))
    }

    // MARK: Values

    /// Writes `value` as compact JSON.
    public mutating func write(_ value: JSON) {
        switch value {
        case .null:
            writeRaw("null")
        case .bool(let b):
            writeRaw(b ? "true" : "false")
        case .int(let i):
            writeInt(i)
        case .double(let d):
            writeDouble(d)
        case .string(let s):
            writeString(s)
        case .array(let elements):
            writeRaw(UInt8(ascii: "["))
            var first = true
            for element in elements {
                if !first { writeRaw(UInt8(ascii: ",")) }
                first = false
                write(element)
            }
            writeRaw(UInt8(ascii: "]"))
        case .object(let object):
            writeRaw(UInt8(ascii: "{"))
            var first = true
            for member in object.members {
                if !first { writeRaw(UInt8(ascii: ",")) }
                first = false
                writeString(member.key)
                writeRaw(UInt8(ascii: ":"))
                write(member.value)
            }
            writeRaw(UInt8(ascii: "}"))
        }
    }

    mutating func writePretty(_ value: JSON, level: Int) {
        switch value {
        case .array(let elements) where !elements.isEmpty:
            writeRaw(UInt8(ascii: "["))
            var first = true
            for element in elements {
                if !first { writeRaw(UInt8(ascii: ",")) }
                first = false
                writeNewline(indent: level + 1)
                writePretty(element, level: level + 1)
            }
            writeNewline(indent: level)
            writeRaw(UInt8(ascii: "]"))
        case .object(let object) where !object.isEmpty:
            writeRaw(UInt8(ascii: "{"))
            var first = true
            for member in object.members {
                if !first { writeRaw(UInt8(ascii: ",")) }
                first = false
                writeNewline(indent: level + 1)
                writeString(member.key)
                writeRaw(": ")
                writePretty(member.value, level: level + 1)
            }
            writeNewline(indent: level)
            writeRaw(UInt8(ascii: "}"))
        default:
            write(value)
        }
    }

    private mutating func writeNewline(indent level: Int) {
        reserve(1 + 2 * level)
        put(0x0A)
        for _ in 0..<2 * level { put(UInt8(ascii: " ")) }
    }

    /// Writes an integer in decimal.
    public mutating func writeInt(_ value: Int) {
        reserve(20)  // "-9223372036854775808"
        count &+= DecimalText.write(value, to: base + count)
    }

    /// Writes a double as it would appear in `JSON.double(value)`; non-finite values as `null`.
    public mutating func writeDouble(_ value: Double) {
        guard value.isFinite else {
            writeRaw("null")
            return
        }
        // Integral values of moderate size: the digits and ".0", exactly as `description` writes them.
        if value.magnitude < 1e15, value == value.rounded(.towardZero) {
            if value == 0 {
                writeRaw(value.sign == .minus ? "-0.0" : "0.0")
            } else {
                writeInt(Int(value))
                writeRaw(".0")
            }
            return
        }
        // Swift's description has the shortest digits that read back as the same double; they
        // are laid out as ECMAScript's Number.prototype.toString lays them out (SPEC §1.4), which
        // `description` does only without an exponent (not `1e-05`, `1e+16`): only then are they
        // laid out again, where the layout makes two arrays.
        var text = value.description
        guard text.utf8.contains(UInt8(ascii: "e")) else {
            text.withUTF8 { writeRaw($0) }
            return
        }
        let laidOut = text.withUTF8 { ECMAScriptNumber.text(fromSwiftDescription: $0) }
        laidOut.withUnsafeBufferPointer { writeRaw($0) }
    }

    /// Writes what `encode` writes, which must depend on `first` and `second` alone: copied from
    /// `memo` if it holds what was written for the same two strings, else written and kept there
    /// (up to `WrittenMemo.maxBytes`).
    public mutating func write(memo: inout WrittenMemo, _ first: String, _ second: String, _ encode: (inout JSONSink) -> Void) {
        if !memo.bytes.isEmpty, memo.first == first, memo.second == second {
            memo.bytes.withUnsafeBufferPointer { writeRaw($0) }
            return
        }
        let start = count
        encode(&self)
        memo.bytes.removeAll(keepingCapacity: true)
        guard count - start <= WrittenMemo.maxBytes else { return }
        memo.first = first
        memo.second = second
        memo.bytes.append(contentsOf: UnsafeBufferPointer(start: base + start, count: count - start))
    }

    /// Writes `string` as a quoted, escaped JSON string: in place if none of its bytes needs
    /// escaping, as in nearly every name, path and value, and otherwise out of line.
    public mutating func writeString(_ string: String) {
        let written = string.utf8.withContiguousStorageIfAvailable { writePlain($0) }
        if written != true { writeEscaped(string) }
    }

    /// Writes `utf8` quoted where it lands if none of its bytes needs escaping; false, having
    /// written nothing, if one does. Through the escaping loop, a short string cost about 200
    /// instructions (callgrind); in place, a third of that.
    @inline(__always)
    private mutating func writePlain(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        let length = utf8.count
        reserve(length &+ 2)
        guard JSONOutput.copyIfPlain(utf8, to: base + (count &+ 1)) else { return false }
        base[count] = UInt8(ascii: "\"")
        base[count &+ length &+ 1] = UInt8(ascii: "\"")
        count &+= length &+ 2
        return true
    }

    @inline(never)
    private mutating func writeEscaped(_ string: String) {
        var copy = string
        copy.withUTF8 { writeEscaped($0) }
    }

    /// Writes valid UTF-8 quoted, escaping `"`, `\` and control characters, copying the runs
    /// between escapes in bulk.
    private mutating func writeEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        let length = utf8.count
        reserve(length &+ 2)
        put(UInt8(ascii: "\""))
        guard let source = utf8.baseAddress else {
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
