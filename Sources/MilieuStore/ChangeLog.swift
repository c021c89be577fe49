import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// When the log's writes are synced to the disk (SPEC §12.3), as Redis's `appendfsync`.
public enum FsyncPolicy: String, Sendable, CaseIterable {
    /// Before the turn's responses go out: an acknowledged change survives power loss.
    case always
    /// Once a second, on a thread of its own: a power loss may lose the last second or so.
    case everysec
    /// Never by the daemon; the kernel writes when it will.
    case no
}

/// The append side of the change log: the active segment file, written once per turn with one
/// `write()`, and the older segments, dropped once folded and out of the retention.
///
/// Not thread-safe: used from the event loop's thread only (its syncer has its own descriptor).
final class ChangeLog {
    let directory: String
    let logID: UInt64
    let policy: FsyncPolicy
    let segmentBytes: Int
    private(set) var segments: [Segment]
    private var descriptor: Int32 = -1
    private let syncer: Syncer?
    /// Syncs a turn's records under `always` (`StoreOptions.syncLog`).
    private let sync: @Sendable (Int32) -> Int32

    init(
        directory: String, logID: UInt64, policy: FsyncPolicy, segmentBytes: Int, segments: [Segment],
        sync: @escaping @Sendable (Int32) -> Int32
    ) {
        self.directory = directory
        self.logID = logID
        self.policy = policy
        self.segmentBytes = segmentBytes
        self.segments = segments
        self.sync = sync
        syncer = policy == .everysec ? Syncer(directory: directory) : nil
    }

    deinit { close() }

    /// Appends to the newest segment when it holds nothing yet and starts at `nextVersion`,
    /// else starts a new segment there.
    func open(nextVersion: Int) throws(StoreError) {
        if let last = segments.last, last.lastVersion == nil, last.firstVersion == nextVersion, last.format == LogFormat.format {
            descriptor = try Self.openFile(last.path, flags: O_WRONLY | O_APPEND)
            syncer?.follow(descriptor)
        } else {
            if let last = segments.last, last.lastVersion == nil, last.firstVersion == nextVersion {
                // An empty file of an older format where the new one must start: it holds nothing.
                unlink(last.path)
                segments.removeLast()
            }
            try startSegment(firstVersion: nextVersion)
        }
        syncer?.start()
    }

    /// The first version of the newest segment.
    var head: Int { segments.last?.firstVersion ?? 0 }

    /// Writes `buffer` (whole records, versions `first...last`) with one `write()`, then syncs
    /// as the policy says. On failure nothing of it stays in the file.
    func append(_ buffer: UnsafeRawBufferPointer, first: Int, last: Int) throws(StoreError) {
        if let active = segments.last, active.size + buffer.count > segmentBytes, active.lastVersion != nil {
            try startSegment(firstVersion: first)
        }
        let path = segments[segments.count - 1].path
        let start = segments[segments.count - 1].size
        var written = 0
        while written < buffer.count {
            let count = write(descriptor, buffer.baseAddress! + written, buffer.count - written)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                let code = count < 0 ? errno : ENOSPC
                // A partial record must not stay: the next start would take it for a torn tail
                // and cut the records after it.
                if written > 0 { _ = ftruncate(descriptor, off_t(start)) }
                throw StoreError(path: path, String(cString: strerror(code)), code: code)
            }
            written += count
        }
        switch policy {
        case .always:
            guard sync(descriptor) == 0 else {
                let code = errno
                // Written but not known to be on the disk, so not acknowledged: taken back out, as
                // a write cut short is, for the backlog writes it again, and the log holds it once.
                _ = ftruncate(descriptor, off_t(start))
                throw StoreError(path: path, "fdatasync: \(String(cString: strerror(code)))", code: code)
            }
        case .everysec: syncer?.markDirty()
        case .no: break
        }
        segments[segments.count - 1].size += buffer.count
        segments[segments.count - 1].lastVersion = last
    }

    /// Deletes the oldest segments, never the active one, while all their records are at or
    /// before `folded` (the `checkpointed` version the snapshot's main file says: a start folds
    /// again what is after it) and older than the retention: the newest `versions` versions
    /// and the newest `bytes` bytes stay.
    func prune(folded: Int, versions: Int, bytes: Int) {
        guard segments.count > 1 else { return }
        var after = segments.reduce(0) { $0 + $1.size }
        var dropped = 0
        for segment in segments.dropLast() {
            let last = segment.lastVersion ?? segment.firstVersion - 1
            after -= segment.size
            guard last <= folded, newest - last >= versions || after >= bytes else { break }
            unlink(segment.path)
            dropped += 1
        }
        segments.removeFirst(dropped)
    }

    /// The last version appended, or the one before the log's first.
    private var newest: Int { segments.last.map { $0.lastVersion ?? $0.firstVersion - 1 } ?? 0 }

    func close() {
        syncer?.stop()
        if descriptor >= 0 {
            if policy != .no { _ = fdatasync(descriptor) }
            Glibc.close(descriptor)
            descriptor = -1
        }
    }

    private func startSegment(firstVersion: Int) throws(StoreError) {
        let path = directory + "/" + LogFormat.fileName(firstVersion: firstVersion)
        let fd = try Self.openFile(path, flags: O_WRONLY | O_CREAT | O_EXCL | O_APPEND)
        let header = LogFormat.header(logID: logID, firstVersion: firstVersion)
        let count = header.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard count == header.count else {
            let code = count < 0 ? errno : ENOSPC
            Glibc.close(fd)
            unlink(path)
            throw StoreError(path: path, String(cString: strerror(code)), code: code)
        }
        if policy == .always {
            _ = fdatasync(fd)
            Self.syncDirectory(directory)
        }
        if descriptor >= 0 {
            if policy == .always { _ = fdatasync(descriptor) }
            Glibc.close(descriptor)
        }
        descriptor = fd
        syncer?.follow(fd)
        segments.append(Segment(path: path, firstVersion: firstVersion, lastVersion: nil, size: header.count))
    }

    static func openFile(_ path: String, flags: Int32) throws(StoreError) -> Int32 {
        let fd = Glibc.open(path, flags | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else {
            let code = errno
            throw StoreError(path: path, "cannot open the log: \(String(cString: strerror(code)))", code: code)
        }
        _ = fchmod(fd, 0o600)
        return fd
    }

    /// Makes a created or removed file's name durable.
    static func syncDirectory(_ directory: String) {
        let fd = Glibc.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        Glibc.close(fd)
    }
}

/// `everysec`'s thread: once a second, fdatasyncs the active segment if it was written, and
/// the directory if a segment was started, as Redis's background fsync does.
final class Syncer: Sendable {
    private struct Shared {
        /// A duplicate of the active segment's descriptor, the syncer's own.
        var descriptor: Int32 = -1
        /// Earlier segments' duplicates, synced once more and closed.
        var retired: [Int32] = []
        var directoryChanged = false
    }

    /// What the loop thread and the sync thread share.
    private final class Work: Sendable {
        let shared = Mutex(Shared())
        let dirty = Atomic<Bool>(false)
        let directory: String

        init(directory: String) { self.directory = directory }

        func run() {
            let (descriptor, retired, directoryChanged) = shared.withLock { state in
                defer {
                    state.retired.removeAll()
                    state.directoryChanged = false
                }
                return (state.descriptor, state.retired, state.directoryChanged)
            }
            for fd in retired {
                _ = fdatasync(fd)
                Glibc.close(fd)
            }
            if dirty.exchange(false, ordering: .acquiringAndReleasing), descriptor >= 0 { _ = fdatasync(descriptor) }
            if directoryChanged { ChangeLog.syncDirectory(directory) }
        }
    }

    private let work: Work
    private let thread: BackgroundThread

    init(directory: String) {
        let work = Work(directory: directory)
        self.work = work
        thread = BackgroundThread(interval: 1) { work.run() }
    }

    func start() { thread.start() }

    func markDirty() { work.dirty.store(true, ordering: .releasing) }

    /// From now on the active segment is `fd`.
    func follow(_ fd: Int32) {
        let copy = dup(fd)
        work.shared.withLock { state in
            if state.descriptor >= 0 { state.retired.append(state.descriptor) }
            state.descriptor = copy
            state.directoryChanged = true
        }
        markDirty()
    }

    /// Syncs what is left and ends the thread.
    func stop() {
        thread.stop()
        work.shared.withLock { state in
            if state.descriptor >= 0 { Glibc.close(state.descriptor) }
            state.descriptor = -1
        }
    }
}
