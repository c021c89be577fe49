import CMilieuShims
import MilieuJSON

/// The bytes of `milieu-<first version>.log`, the change log's segment files (SPEC §12.3):
/// a 32-byte header — magic `MILIEULG`, format (u32), 4 zero bytes, the log id (u64) and the
/// first version the file holds (u64) — then records `[length u32][crc32c u32][version u64]
/// [payload]`, little-endian. The CRC covers the version and the payload; the payload is
/// `[u32 n][n bytes of the writes as JSON][the server's history bytes]`.
enum LogFormat {
    static let magic = Array("MILIEULG".utf8)
    static let format: UInt32 = 1
    static let headerSize = 32
    static let recordHeaderSize = 16
    /// A record larger than this is damage, not a record: no turn writes 1 GiB.
    static let maxPayload = 1 << 30

    static func fileName(firstVersion: Int) -> String {
        let digits = String(firstVersion)
        return "milieu-" + String(repeating: "0", count: max(0, 20 - digits.count)) + digits + ".log"
    }

    /// The first version a segment's file name gives, or nil when it names no segment.
    static func firstVersion(fileName name: String) -> Int? {
        guard name.hasPrefix("milieu-"), name.hasSuffix(".log"), name.count == 31 else { return nil }
        return Int(name.dropFirst(7).dropLast(4))
    }

    static func header(logID: UInt64, firstVersion: Int) -> [UInt8] {
        var bytes = magic
        append(format, to: &bytes)
        append(UInt32(0), to: &bytes)
        append(logID, to: &bytes)
        append(UInt64(firstVersion), to: &bytes)
        return bytes
    }

    /// Appends one framed record to `buffer`.
    static func appendRecord(version: Int, writes: [StoredWrite], history: [UInt8], to buffer: inout [UInt8]) {
        var json = JSONWriter()
        StoredWrite.encode(writes, into: &json)
        let start = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: 8))
        append(UInt64(version), to: &buffer)
        append(UInt32(json.count), to: &buffer)
        buffer.append(contentsOf: json.bytes)
        buffer.append(contentsOf: history)
        let length = buffer.count - start - recordHeaderSize
        let crc = buffer.withUnsafeBytes { milieu_crc32c(0, $0.baseAddress! + start + 8, length + 8) }
        store(UInt32(length), in: &buffer, at: start)
        store(crc, in: &buffer, at: start + 4)
    }

    static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    static func store(_ value: UInt32, in bytes: inout [UInt8], at offset: Int) {
        withUnsafeBytes(of: value.littleEndian) { raw in for i in 0..<4 { bytes[offset + i] = raw[i] } }
    }

    static func load<T: FixedWidthInteger>(_: T.Type, _ bytes: [UInt8], at offset: Int) -> T {
        var value = T.zero
        withUnsafeMutableBytes(of: &value) { raw in for i in 0..<MemoryLayout<T>.size { raw[i] = bytes[offset + i] } }
        return T(littleEndian: value)
    }

    static func crc(_ bytes: [UInt8], from offset: Int, count: Int) -> UInt32 {
        bytes.withUnsafeBytes { milieu_crc32c(0, $0.baseAddress! + offset, count) }
    }
}
