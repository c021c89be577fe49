#if canImport(Glibc)
import Glibc
#endif

/// Bytes written once and sent to many connections as they are: each connection's output
/// keeps a reference, and the kernel takes them from here (`sendmsg` with an iovec each), so
/// that a fan-out costs a watcher a pointer and a length instead of a copy. Immutable; its
/// storage is allocated by hand so that its address stays put while a system call reads it.
public final class SharedBytes: @unchecked Sendable {
    /// Never written after `init`, and freed only in `deinit`.
    let storage: UnsafeMutableRawBufferPointer

    public init(_ bytes: [UInt8]) {
        storage = .allocate(byteCount: bytes.count, alignment: 1)
        bytes.withUnsafeBytes { storage.copyMemory(from: $0) }
    }

    public var count: Int { storage.count }

    /// The bytes, valid while this object lives.
    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(storage) }

    deinit { storage.deallocate() }
}

/// A connection's unsent output, in order: its own bytes, copied into one buffer, with
/// `SharedBytes` spliced in between them by reference. Without splices (most output) it is the
/// buffer alone, written with one iovec; with them, each run is an iovec, up to `maxVectors` a call.
///
/// Not copyable: it owns its buffer, allocated by hand so that an append is a capacity check
/// and a copy. `Array.append(contentsOf:)` cost a send some 90 instructions before the copy
/// (callgrind), once for a request's answer and once for each watcher a fan-out reaches.
struct OutputQueue: ~Copyable {
    /// Shared bytes that go before the own byte at `offset`, `start` of them written already.
    private struct Splice {
        let offset: Int
        let bytes: SharedBytes
        var start = 0
    }

    /// The own bytes' storage: `ownedCount` of its bytes are queued, the rest is room.
    private var owned = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    private var ownedCount = 0
    /// Own bytes before this index have been written.
    private var ownedStart = 0
    private var splices: [Splice] = []
    /// Splices before this one have been written.
    private var spliceHead = 0
    /// Bytes not yet written.
    private(set) var count = 0

    /// Iovecs per system call: 1 KiB of stack, and far more than one turn's output usually needs.
    static let maxVectors = 64
    /// Own storage larger than this is released once drained rather than kept.
    private static let retainedCapacity = 1 << 20

    init() {}

    deinit { owned.deallocate() }

    var isEmpty: Bool { count == 0 }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        let end = ownedCount + bytes.count
        if end > owned.count { grow(toHold: end) }
        (owned.baseAddress! + ownedCount).copyMemory(from: source, byteCount: bytes.count)
        ownedCount = end
        count += bytes.count
    }

    /// Moves the own bytes to storage of at least `needed` bytes, twice the old at least. The
    /// first storage is what the first output needs, as an `Array`'s was: 512 bytes at least
    /// cost a thousand connections answered once some 0.4 MiB (`--rows memory`).
    private mutating func grow(toHold needed: Int) {
        let larger = UnsafeMutableRawBufferPointer.allocate(byteCount: max(needed, 2 * owned.count), alignment: 1)
        if ownedCount > 0 { larger.baseAddress!.copyMemory(from: owned.baseAddress!, byteCount: ownedCount) }
        owned.deallocate()
        owned = larger
    }

    mutating func append(_ shared: SharedBytes) {
        guard shared.count > 0 else { return }
        splices.append(Splice(offset: ownedCount, bytes: shared))
        count += shared.count
    }

    /// Calls `write` with the iovecs of the front of the queue, and takes out the bytes it
    /// reports written.
    mutating func write(_ write: (UnsafeMutableBufferPointer<iovec>) throws -> IOResult<Int>) rethrows -> IOResult<Int> {
        let result: IOResult<Int>
        if spliceHead == splices.count {
            // Own bytes alone, as most output is: one iovec, without walking the splices (a
            // slice of their array, retained) or a temporary allocation; some 100 instructions
            // a write less (callgrind).
            var vector = iovec(iov_base: owned.baseAddress.map { $0 + ownedStart }, iov_len: ownedCount - ownedStart)
            result = try withUnsafeMutablePointer(to: &vector) { try write(UnsafeMutableBufferPointer(start: $0, count: 1)) }
        } else {
            result = try writeSpliced(write)
        }
        if case .processed(let written) = result { consume(written) }
        return result
    }

    /// `write` for a queue with splices: each run an iovec, up to `maxVectors`.
    private func writeSpliced(_ write: (UnsafeMutableBufferPointer<iovec>) throws -> IOResult<Int>) rethrows -> IOResult<Int> {
        let vectors = min(2 * (splices.count - spliceHead) + 1, Self.maxVectors)
        let base = owned.baseAddress
        let ownedCount = ownedCount
        return try withUnsafeTemporaryAllocation(of: iovec.self, capacity: vectors) { iovecs in
            var used = 0
            var position = ownedStart
            func add(_ base: UnsafeMutableRawPointer?, _ length: Int) {
                guard length > 0, used < vectors else { return }
                iovecs[used] = iovec(iov_base: base, iov_len: length)
                used += 1
            }
            for splice in splices[spliceHead...] {
                guard used < vectors else { break }
                add(base.map { $0 + position }, splice.offset - position)
                add(splice.bytes.storage.baseAddress! + splice.start, splice.bytes.count - splice.start)
                position = splice.offset
            }
            add(base.map { $0 + position }, ownedCount - position)
            return try write(UnsafeMutableBufferPointer(rebasing: iovecs[..<used]))
        }
    }

    /// Takes out the first `written` bytes: own ones up to the next splice, then the splice, and so on.
    private mutating func consume(_ written: Int) {
        count -= written
        if count == 0 {
            removeAll()
            return
        }
        var left = written
        while left > 0 {
            let ownEnd = spliceHead < splices.count ? splices[spliceHead].offset : ownedCount
            let own = min(left, ownEnd - ownedStart)
            ownedStart += own
            left -= own
            guard left > 0 else { break }
            let remaining = splices[spliceHead].bytes.count - splices[spliceHead].start
            if left < remaining {
                splices[spliceHead].start += left
                break
            }
            left -= remaining
            spliceHead += 1
        }
    }

    /// Drops what was written once the kernel stops taking more, so that a reader that keeps up
    /// slowly does not keep everything ever sent to it: the splices, and the own bytes once they
    /// are most of the storage.
    mutating func compact() {
        if spliceHead > 0 {
            splices.removeSubrange(0..<spliceHead)
            spliceHead = 0
        }
        guard ownedStart >= 64 * 1024, ownedStart * 2 >= ownedCount else { return }
        let base = owned.baseAddress!
        base.copyMemory(from: base + ownedStart, byteCount: ownedCount - ownedStart)  // memmove
        ownedCount -= ownedStart
        for index in splices.indices {
            splices[index] = Splice(offset: splices[index].offset - ownedStart, bytes: splices[index].bytes, start: splices[index].start)
        }
        ownedStart = 0
    }

    mutating func removeAll() {
        if owned.count > Self.retainedCapacity {
            owned.deallocate()
            owned = UnsafeMutableRawBufferPointer(start: nil, count: 0)
        }
        ownedCount = 0
        ownedStart = 0
        if !splices.isEmpty { splices.removeAll(keepingCapacity: true) }
        spliceHead = 0
        count = 0
    }
}
