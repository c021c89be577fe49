import Foundation
import Glibc
import Testing

@testable import MilieuTransport

/// A connection's output queue, without a socket: own bytes and shared ones come out in the
/// order they were queued however the kernel cuts its writes, and shared bytes are handed to
/// the kernel where they are, never copied.
@Suite struct OutputQueueTests {
    /// Writes everything, the "kernel" taking at most `take()` bytes a call; returns what it took
    /// and the iovec bases it was given.
    private func drain(_ queue: inout OutputQueue, take: () -> Int) -> (bytes: [UInt8], bases: [UnsafeMutableRawPointer]) {
        var taken: [UInt8] = []
        var bases: [UnsafeMutableRawPointer] = []
        while !queue.isEmpty {
            let write = writeOnce(&queue, upTo: take())
            taken += write.bytes
            bases += write.bases
        }
        return (taken, bases)
    }

    /// One write that takes at most `limit` bytes: what it took, and where each run it was offered began.
    private func writeOnce(_ queue: inout OutputQueue, upTo limit: Int) -> (bytes: [UInt8], bases: [UnsafeMutableRawPointer]) {
        var taken: [UInt8] = []
        var bases: [UnsafeMutableRawPointer] = []
        _ = queue.write { iovecs in
            var budget = limit
            for vector in iovecs where budget > 0 {
                bases.append(vector.iov_base!)
                let length = min(budget, vector.iov_len)
                taken += UnsafeRawBufferPointer(start: vector.iov_base, count: length)
                budget -= length
            }
            return .processed(taken.count)
        }
        return (taken, bases)
    }

    @Test func ownAndSharedRunsComeOutInOrderHoweverTheWritesAreCut() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            var queue = OutputQueue()
            var expected: [UInt8] = []
            for index in 0..<Int.random(in: 1...150, using: &generator) {
                let bytes = (0..<Int.random(in: 0...40, using: &generator)).map { UInt8(truncatingIfNeeded: $0 &+ index) }
                expected += bytes
                if Bool.random(using: &generator) {
                    queue.append(SharedBytes(bytes))
                } else {
                    bytes.withUnsafeBytes { queue.append($0) }
                }
            }
            #expect(queue.count == expected.count)
            let out = drain(&queue) { Int.random(in: 1...97, using: &generator) }
            #expect(out.bytes == expected)
            #expect(queue.count == 0)
        }
    }

    @Test func sharedBytesAreHandedToTheKernelWhereTheyAre() {
        let tail = SharedBytes(Array(#","version":7,"changes":[]}}"#.utf8) + [10])
        var first = OutputQueue()
        var second = OutputQueue()
        for queue in [0, 1] {
            Array(#"{"watch":1"#.utf8).withUnsafeBytes { queue == 0 ? first.append($0) : second.append($0) }
        }
        first.append(tail)
        second.append(tail)
        let written = [drain(&first) { .max }, drain(&second) { .max }]
        #expect(written[0].bytes == written[1].bytes)
        for out in written { #expect(out.bases.contains(tail.storage.baseAddress!)) }
    }

    @Test func ownBytesQueuedOneAfterAnotherAreOneRun() {
        var queue = OutputQueue()
        for _ in 0..<100 { Array("line\n".utf8).withUnsafeBytes { queue.append($0) } }
        var vectors = 0
        _ = queue.write { iovecs in
            vectors = iovecs.count
            return .wouldBlock
        }
        #expect(vectors == 1)
        #expect(queue.count == 500)
    }

    /// Own bytes alone go by one iovec from where the last write stopped, and the buffer grows
    /// under them without losing what is queued.
    @Test func ownBytesAloneComeOutInOrderAsTheBufferGrows() {
        var queue = OutputQueue()
        var expected: [UInt8] = []
        var taken: [UInt8] = []
        for index in 0..<300 {
            let bytes = (0..<(index % 37)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index) }
            expected += bytes
            bytes.withUnsafeBytes { queue.append($0) }
            if index % 3 == 0, !queue.isEmpty {
                _ = queue.write { iovecs in
                    #expect(iovecs.count == 1)
                    let length = min(5, iovecs[0].iov_len)
                    taken += UnsafeRawBufferPointer(start: iovecs[0].iov_base, count: length)
                    return .processed(length)
                }
            }
        }
        #expect(queue.count == expected.count - taken.count)
        taken += drain(&queue) { 11 }.bytes
        #expect(taken == expected)
    }

    @Test func compactingWhenTheReaderFallsBehindKeepsWhatIsLeftInOrder() {
        var queue = OutputQueue()
        var expected: [UInt8] = []
        for index in 0..<200 {
            // Each chunk its own bytes, so that a byte left behind or moved wrong shows.
            let chunk = (0..<1024).map { UInt8(truncatingIfNeeded: $0 &+ 3 &* index) }
            expected += chunk
            if index % 2 == 0 { chunk.withUnsafeBytes { queue.append($0) } } else { queue.append(SharedBytes(chunk)) }
        }
        // The kernel takes 150 KiB, then no more: the queue keeps only what is left.
        var left = 150 * 1024
        while left > 0 {
            _ = queue.write { iovecs in
                let length = min(left, iovecs.reduce(0) { $0 + $1.iov_len })
                left -= length
                return .processed(length)
            }
        }
        queue.compact()
        #expect(queue.count == 50 * 1024)
        let more = Array("after\n".utf8)
        more.withUnsafeBytes { queue.append($0) }
        #expect(drain(&queue) { .max }.bytes == Array(expected[(150 * 1024)...]) + more)
    }

    /// Partial writes between appends, own bytes and shared ones mixed, as the buffer grows and
    /// is compacted: what comes out is what went in.
    @Test func writesBetweenAppendsKeepTheOrderAsTheBufferGrows() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            var queue = OutputQueue()
            var expected: [UInt8] = []
            var taken: [UInt8] = []
            for index in 0..<Int.random(in: 1...400, using: &generator) {
                let bytes = (0..<Int.random(in: 0...300, using: &generator)).map { UInt8(truncatingIfNeeded: $0 &+ index) }
                expected += bytes
                if Int.random(in: 0..<4, using: &generator) == 0 {
                    queue.append(SharedBytes(bytes))
                } else {
                    bytes.withUnsafeBytes { queue.append($0) }
                }
                if !queue.isEmpty, Bool.random(using: &generator) {
                    taken += writeOnce(&queue, upTo: Int.random(in: 1...200, using: &generator)).bytes
                    if Int.random(in: 0..<8, using: &generator) == 0 { queue.compact() }
                }
            }
            taken += drain(&queue) { .max }.bytes
            #expect(taken == expected)
        }
    }

    /// Storage over the kept size is let go once drained, and the queue goes on as new.
    @Test func aDrainedLargeBufferIsLetGoAndTheQueueGoesOn() {
        var queue = OutputQueue()
        let large = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 % 253) }
        large.withUnsafeBytes { queue.append($0) }
        #expect(drain(&queue) { 1 << 20 }.bytes == large)
        let small = Array("small\n".utf8)
        small.withUnsafeBytes { queue.append($0) }
        #expect(queue.count == small.count)
        #expect(drain(&queue) { .max }.bytes == small)
    }
}
