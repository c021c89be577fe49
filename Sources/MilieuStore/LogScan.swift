#if canImport(Glibc)
import Glibc
#endif

/// One segment file of the change log.
struct Segment {
    let path: String
    let firstVersion: Int
    /// The last version it holds; nil while it holds none.
    var lastVersion: Int?
    var size: Int
    /// Its log format (`LogFormat`): records are only appended to a file of this build's.
    var format = LogFormat.format
}

/// One record read back from the log.
public struct LogRecord: Sendable {
    public let version: Int
    /// The writes to fold; empty for versions at or before `checkpointed`, which the snapshot's
    /// main file holds.
    public let writes: [StoredWrite]
    /// For those versions, the record's list of writes as the log holds it, read only when asked
    /// (`allWrites`); nil when `writes` holds them.
    let writeList: [UInt8]?
    /// The server's bytes for this version, as it gave them to `stage`.
    public let history: [UInt8]
    /// The record's size in the file.
    public let size: Int

    /// Every write of the record, in the order `Store.stage` was given them, those the start does
    /// not fold too: what the history names by position (log format 3). Nil when they do not read.
    public func allWrites() -> [StoredWrite]? { writeList.map { StoredWrite.decode($0[...]) } ?? writes }
}

/// Damage in the log: where it starts, what is wrong, and what lies after it.
struct LogDamage {
    let path: String
    let offset: Int
    let reason: String
    /// The last version before the damage that reads well.
    let lastGood: Int?
    /// Bytes from the damage to the end of the log, all files after it included.
    var bytesAfter: Int
    /// The whole records among those bytes (what `--recover` drops with them), and their newest version.
    var wholeRecordsAfter: (count: Int, last: Int?) = (0, nil)
}

/// What start-up read of the change log: its files, its records, and a torn tail or the first damage.
struct LogScan {
    var segments: [Segment] = []
    var records: [LogRecord] = []
    /// The last file's last bytes, which hold no whole record (a write cut short by a crash).
    var torn: (path: String, offset: Int, bytes: Int)?
    var damage: LogDamage?

    /// The segment files in `directory`, by first version.
    static func segmentNames(in directory: String) throws(StoreError) -> [(name: String, firstVersion: Int)] {
        guard let handle = opendir(directory) else {
            throw StoreError(path: directory, "cannot list the data directory: \(String(cString: strerror(errno)))")
        }
        defer { closedir(handle) }
        var found: [(String, Int)] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if let first = LogFormat.firstVersion(fileName: name) { found.append((name, first)) }
        }
        return found.sorted { $0.1 < $1.1 }
    }

    /// Reads every segment in `directory`. `logID` is the id the snapshot expects (nil: any);
    /// versions through `folded` are in the snapshot already, so a gap among them is no loss.
    /// The writes of records after `writesAfter` are read (those the start may fold).
    static func read(directory: String, logID: UInt64?, folded: Int, writesAfter: Int) throws(StoreError) -> LogScan {
        var scan = LogScan()
        let names = try segmentNames(in: directory)
        try refuseNewerFormats(names.map { directory + "/" + $0.name }, directory: directory)
        var previous: Int?
        for (index, entry) in names.enumerated() {
            let path = directory + "/" + entry.name
            let bytes = try readAll(path)
            let isLast = index == names.count - 1
            var segment = Segment(path: path, firstVersion: entry.firstVersion, lastVersion: nil, size: bytes.count)
            func damage(_ offset: Int, _ reason: String) -> LogDamage {
                LogDamage(path: path, offset: offset, reason: reason, lastGood: previous, bytesAfter: bytes.count - offset)
            }
            var found: LogDamage?
            if bytes.count < LogFormat.headerSize {
                if isLast {
                    scan.torn = (path, 0, bytes.count)
                    segment.size = 0
                } else {
                    found = damage(0, "its header is cut short (\(bytes.count) bytes)")
                }
            } else if Array(bytes[0..<8]) != LogFormat.magic {
                found = damage(0, "it is not a milieu log (no MILIEULG header)")
            } else if LogFormat.load(UInt32.self, bytes, at: 8) == 0 {
                found = damage(0, "its header names log format 0, which no milieud writes")
            } else if let logID, LogFormat.load(UInt64.self, bytes, at: 16) != logID {
                let id = String(LogFormat.load(UInt64.self, bytes, at: 16), radix: 16)
                found = damage(0, "it belongs to another log (id \(id), milieu.db expects \(String(logID, radix: 16)))")
            } else if LogFormat.load(UInt64.self, bytes, at: 24) != UInt64(entry.firstVersion) {
                found = damage(0, "its header names first version \(LogFormat.load(UInt64.self, bytes, at: 24)), not its file name's")
            } else {
                let format = LogFormat.load(UInt32.self, bytes, at: 8)
                // Checked before the scan (`refuseNewerFormats`); again, for a file changed since.
                try refuseNewer(format: format, of: path, directory: directory)
                segment.format = format
                var offset = LogFormat.headerSize
                records: while offset < bytes.count, found == nil {
                    let version: Int
                    let payload: Range<Int>
                    switch LogFormat.check(bytes, at: offset, format: format) {
                    case .whole(let v, let range): (version, payload) = (v, range)
                    case let problem:
                        // What a crash mid-write leaves is the last file's last record cut or
                        // unreadable: no whole record after it. Whole records after bad bytes
                        // mean the bad bytes are damage, whatever they look like.
                        var followers = Self.wholeRecords(
                            bytes, after: offset, format: format, following: previous ?? entry.firstVersion - 1)
                        if isLast && followers.count == 0 {
                            scan.torn = (path, offset, bytes.count - offset)
                            break records
                        }
                        for later in names.dropFirst(index + 1) {
                            let more = Self.wholeRecords(inFile: directory + "/" + later.name)
                            followers = (followers.count + more.count, [followers.last, more.last].compactMap { $0 }.max())
                        }
                        let what =
                            switch problem {
                            case .cut: "a record at byte \(offset) is cut short"
                            case .badHeader where format == 1: "a record at byte \(offset) has a length no record has"
                            case .badHeader: "the record at byte \(offset) fails its header checksum"
                            default: "the record at byte \(offset) fails its checksum"
                            }
                        var damage = damage(offset, what)
                        damage.wholeRecordsAfter = followers
                        found = damage
                        break records
                    }
                    let end = payload.upperBound
                    if segment.lastVersion == nil && version != entry.firstVersion {
                        found = damage(offset, "its first record is version \(version), not \(entry.firstVersion)")
                    } else if let previous, version <= previous {
                        found = damage(offset, "version \(version) follows version \(previous)")
                    } else if version - 1 > max(previous ?? folded, folded) {
                        let from = max(previous ?? folded, folded) + 1
                        found = damage(offset, "versions \(from)–\(version - 1) are missing before version \(version)")
                    }
                    guard found == nil else { break }
                    // The list's length first: a payload too short to hold it, or a length past the
                    // payload's end, is a record that does not read.
                    let writesLength = payload.count >= 4 ? Int(LogFormat.load(UInt32.self, bytes, at: payload.lowerBound)) : Int.max
                    let list = payload.lowerBound + 4
                    // The snapshot holds the writes of checkpointed versions already: only later ones
                    // are read now, and the others' bytes kept for the history that may name them.
                    guard writesLength <= payload.count - 4,
                        let writes = version <= writesAfter ? [] : StoredWrite.decode(bytes[list..<(list + writesLength)])
                    else {
                        found = damage(offset, "the record of version \(version) does not read")
                        break
                    }
                    let writesEnd = list + writesLength
                    // Copied, so that no file's bytes outlive its scan.
                    scan.records.append(
                        LogRecord(
                            version: version, writes: writes, writeList: version <= writesAfter ? Array(bytes[list..<writesEnd]) : nil,
                            history: Array(bytes[writesEnd..<end]), size: end - offset))
                    previous = version
                    segment.lastVersion = version
                    offset = end
                }
                if let torn = scan.torn, torn.path == path { segment.size = torn.offset }
            }
            if var found {
                for later in names.dropFirst(index + 1) {
                    found.bytesAfter += (try? readAll(directory + "/" + later.name).count) ?? 0
                }
                scan.damage = found
                scan.segments.append(segment)
                return scan
            }
            scan.segments.append(segment)
        }
        return scan
    }

    /// Throws for the first of `paths` a newer milieud wrote (a log format past this build's),
    /// before any file is read for damage: such a file is not damage, and `--recover`, which
    /// drops damage and every file after it, would drop what the newer milieud wrote.
    static func refuseNewerFormats(_ paths: [String], directory: String) throws(StoreError) {
        for path in paths {
            // A file that cannot be read stops the start, as `readAll` would: skipped here, it
            // might lie after damage, never be read, and go with `--recover`.
            let fd = try openToRead(path)
            var header = [UInt8](repeating: 0, count: 12)
            let count = header.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 12, 0) }
            let code = errno
            close(fd)
            guard count >= 0 else { throw StoreError(path: path, "cannot read the log: \(String(cString: strerror(code)))") }
            guard count == 12, Array(header[0..<8]) == LogFormat.magic else { continue }
            try refuseNewer(format: LogFormat.load(UInt32.self, header, at: 8), of: path, directory: directory)
        }
    }

    /// Opens segment `path` to read it: never through a symbolic link, and only a regular file. A
    /// FIFO named like a segment blocked the start in its `open` for good; opened without
    /// blocking, it and any other file that is not a regular one stop the start with the reason.
    static func openToRead(_ path: String) throws(StoreError) -> Int32 {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { throw StoreError(path: path, "cannot open the log: \(String(cString: strerror(errno)))") }
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw StoreError(path: path, "cannot read the log: it is not a regular file; move it out of the data directory")
        }
        return fd
    }

    /// Throws when `format` is a newer milieud's.
    static func refuseNewer(format: UInt32, of path: String, directory: String) throws(StoreError) {
        guard format > LogFormat.format else { return }
        throw StoreError(
            path: path,
            "it was written by a newer milieud (log format \(format); this one reads formats 1–\(LogFormat.format)). Nothing was changed, and --recover does not change that: start the milieud that wrote it, or move \(directory) away to start afresh"
        )
    }

    /// The whole records after the bad bytes at `offset`: how many, and the newest version among
    /// them. Once a header is damaged its length cannot say where the next record starts, so
    /// every later byte is tried. A false match needs a 32-bit header CRC to come out right
    /// (formats 2 and 3), or a version that can follow `previous` — no further on than one per header's
    /// worth of bytes — and then a CRC over the length it gives (format 1).
    static func wholeRecords(
        _ bytes: [UInt8], after offset: Int, format: UInt32, following previous: Int
    ) -> (count: Int, last: Int?) {
        let size = LogFormat.recordHeaderSize(format)
        let newest = UInt64(max(previous, 0) + (bytes.count - offset) / size + 1)
        var found = (count: 0, last: Int?.none)
        var position = offset + 1
        while position + size <= bytes.count {
            if format == 1 {
                let version = LogFormat.load(UInt64.self, bytes, at: position + 8)
                guard version > UInt64(max(previous, 0)), version <= newest else {
                    position += 1
                    continue
                }
            }
            guard case .whole(let version, let payload) = LogFormat.check(bytes, at: position, format: format) else {
                position += 1
                continue
            }
            found = (found.count + 1, max(found.last ?? version, version))
            position = payload.upperBound
            // Records that follow one another need no search.
            while case .whole(let next, let range) = LogFormat.check(bytes, at: position, format: format) {
                found = (found.count + 1, max(found.last ?? next, next))
                position = range.upperBound
            }
            position += 1
        }
        return found
    }

    /// The whole records of a later segment file, for what damage before it would drop.
    static func wholeRecords(inFile path: String) -> (count: Int, last: Int?) {
        guard let bytes = try? readAll(path), bytes.count >= LogFormat.headerSize, Array(bytes[0..<8]) == LogFormat.magic else {
            return (0, nil)
        }
        let format = LogFormat.load(UInt32.self, bytes, at: 8)
        guard format >= 1, format <= LogFormat.format else { return (0, nil) }
        let first = Int(truncatingIfNeeded: LogFormat.load(UInt64.self, bytes, at: 24))
        return wholeRecords(bytes, after: LogFormat.headerSize - 1, format: format, following: first - 1)
    }

    static func readAll(_ path: String) throws(StoreError) -> [UInt8] {
        let fd = try openToRead(path)
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw StoreError(path: path, "cannot read the log: \(String(cString: strerror(errno)))") }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }
}
