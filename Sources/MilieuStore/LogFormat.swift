import CMilieuShims
import MilieuJSON

/// The bytes of `milieu-<first version>.log`, the change log's segment files (SPEC §12.3):
/// a 32-byte header — magic `MILIEULG`, format (u32), 4 zero bytes, the log id (u64) and the
/// first version the file holds (u64) — then records, little-endian. Formats 2 and 3:
/// `[length u32][header crc32c u32][version u64][payload crc32c u32][payload]`, the header CRC
/// covering the length, the version and the payload CRC, so that a damaged length is known
/// for damage and never trusted to find the next record. Format 1, still read:
/// `[length u32][crc32c u32][version u64][payload]`, the CRC covering the version and the
/// payload only. The payload is `[u32 n][n bytes of the writes as JSON][the server's history bytes]`.
/// Format 3, written now, frames records as format 2 does; its history may name one of the
/// record's writes by its position in the list (`LogRecord.allWrites`), where format 2's
/// repeated the value. An older milieud takes a file of format 3 for damage (and its
/// `--recover` drops it); this one refuses a file of a newer format, `--recover` or not.
enum LogFormat {
    static let magic = Array("MILIEULG".utf8)
    /// The format this build writes.
    static let format: UInt32 = 3
    static let headerSize = 32
    /// A record larger than this is damage, not a record: no turn writes 1 GiB.
    static let maxPayload = 1 << 30

    /// The size of a record's header in `format`; the length is its first u32 and the version
    /// the u64 at byte 8 in both.
    static func recordHeaderSize(_ format: UInt32) -> Int { format == 1 ? 16 : 20 }

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

    /// Appends one framed record to `writer`, in this build's format: what `writes` writes (the
    /// list of writes, each entry `StoredWrite.encode`'s), then what `history` writes, straight
    /// into the record (no buffer of their own to copy), the header's lengths and checksums filled
    /// in after; all through one sink, so that the writer's storage is checked for uniqueness once
    /// a record, not once a piece.
    static func appendRecord(
        version: Int, to writer: inout JSONWriter, writes: (inout JSONSink) -> Void, history: (inout JSONSink) -> Void
    ) {
        writer.withSink { sink in
            let start = sink.count
            let size = recordHeaderSize(format)
            sink.writeZeros(size + 4)
            writes(&sink)
            let writesLength = sink.count - start - size - 4
            history(&sink)
            let length = sink.count - start - size
            sink.withMutableBytes(in: start..<sink.count) { record in
                func store<T: FixedWidthInteger>(_ value: T, at offset: Int) {
                    record.storeBytes(of: value.littleEndian, toByteOffset: offset, as: T.self)
                }
                let base = record.baseAddress!
                store(UInt32(length), at: 0)
                store(UInt64(version), at: 8)
                store(UInt32(writesLength), at: size)
                store(milieu_crc32c(0, base + size, length), at: 16)
                store(milieu_crc32c(milieu_crc32c(0, base, 4), base + 8, 12), at: 4)
            }
        }
    }

    /// What lies at a record's place in a segment of `format`.
    enum RecordCheck {
        /// A whole record, its checksums right.
        case whole(version: Int, payload: Range<Int>)
        /// The file ends inside the record: its header, or the payload its length gives.
        case cut
        /// Its header is wrong (formats 2 and 3: it fails its CRC; format 1: a length no record has):
        /// its length cannot be trusted to find where it ends.
        case badHeader
        /// Its header is right but its payload fails its CRC.
        case badPayload
    }

    static func check(_ bytes: [UInt8], at offset: Int, format: UInt32) -> RecordCheck {
        let size = recordHeaderSize(format)
        let remaining = bytes.count - offset
        guard remaining >= size else { return .cut }
        let length = Int(load(UInt32.self, bytes, at: offset))
        if format == 1 {
            guard length <= maxPayload else { return .badHeader }
            guard length <= remaining - size else { return .cut }
            let stored = load(UInt32.self, bytes, at: offset + 4)
            guard crc(bytes, from: offset + 8, count: length + 8) == stored else { return .badPayload }
        } else {
            guard headerCRC(bytes, at: offset) == load(UInt32.self, bytes, at: offset + 4), length <= maxPayload else {
                return .badHeader
            }
            guard length <= remaining - size else { return .cut }
            guard crc(bytes, from: offset + size, count: length) == load(UInt32.self, bytes, at: offset + 16) else {
                return .badPayload
            }
        }
        return .whole(version: Int(load(UInt64.self, bytes, at: offset + 8)), payload: (offset + size)..<(offset + size + length))
    }

    /// The header CRC of formats 2 and 3: over the length, the version and the payload CRC.
    private static func headerCRC(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        bytes.withUnsafeBytes { raw in
            milieu_crc32c(milieu_crc32c(0, raw.baseAddress! + offset, 4), raw.baseAddress! + offset + 8, 12)
        }
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
