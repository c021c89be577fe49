import Glibc

/// Identifies a timer scheduled on an `EventLoop`, for cancelling it.
public struct TimerID: Hashable, Sendable {
    let rawValue: UInt64
}

/// Timers ordered by deadline, then by scheduling order; cancelled entries are
/// dropped lazily and compacted when they outnumber live ones.
struct TimerQueue {
    private struct Entry {
        let deadline: UInt64
        let id: UInt64

        func precedes(_ other: Entry) -> Bool {
            deadline != other.deadline ? deadline < other.deadline : id < other.id
        }
    }

    private var heap: [Entry] = []
    /// Each live timer's body. Every live timer has one entry in `heap`, so the entries beyond
    /// `bodies.count` are cancelled ones.
    private var bodies: [UInt64: () -> Void] = [:]
    private(set) var nextID: UInt64 = 1

    /// Nanoseconds on the monotonic clock.
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Converts a delay in seconds to nanoseconds, treating nonsense as "now".
    static func nanoseconds(_ seconds: Double) -> UInt64 {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return UInt64(min(seconds, 1e9) * 1e9)
    }

    var isEmpty: Bool { bodies.isEmpty }

    mutating func schedule(deadline: UInt64, _ body: @escaping () -> Void) -> TimerID {
        let id = nextID
        nextID += 1
        bodies[id] = body
        push(Entry(deadline: deadline, id: id))
        return TimerID(rawValue: id)
    }

    mutating func cancel(_ timer: TimerID) -> Bool {
        guard bodies.removeValue(forKey: timer.rawValue) != nil else { return false }
        if heap.count > 64 && heap.count > 2 * bodies.count {
            heap.removeAll { bodies[$0.id] == nil }
            heap.sort { $0.precedes($1) }  // a sorted array is a valid heap
        }
        return true
    }

    /// The earliest live deadline. While no cancelled entry is left, the earliest entry is live
    /// without asking `bodies`: the loop asks this every turn, and that lookup cost some 130
    /// instructions a turn (callgrind).
    mutating func nextDeadline() -> UInt64? {
        while let top = heap.first {
            if heap.count == bodies.count || bodies[top.id] != nil { return top.deadline }
            pop()
        }
        return nil
    }

    /// Removes and returns the body of the earliest timer that is due at `now` and was
    /// scheduled before `limit`, so timers scheduled while firing wait for the next turn.
    mutating func popDue(now: UInt64, scheduledBefore limit: UInt64) -> (() -> Void)? {
        while let top = heap.first, top.deadline <= now, top.id < limit {
            pop()
            if let body = bodies.removeValue(forKey: top.id) { return body }
        }
        return nil
    }

    mutating func removeAll() {
        heap.removeAll()
        bodies.removeAll()
    }

    private mutating func push(_ entry: Entry) {
        heap.append(entry)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func pop() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count && heap[left].precedes(heap[smallest]) { smallest = left }
            if right < heap.count && heap[right].precedes(heap[smallest]) { smallest = right }
            if smallest == parent { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
