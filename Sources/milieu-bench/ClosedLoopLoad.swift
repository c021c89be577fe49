import Glibc

/// Requests and replies: `connections` clients each keep `depth` requests in flight,
/// sending the next as soon as a reply arrives, for `warmup` then `duration` seconds;
/// counts and latencies come from the `duration` window only.
struct ClosedLoopLoad {
    var connections: Int
    var depth: Int
    var warmup: Double
    var duration: Double

    /// `requests(i)`: the ring of pre-encoded requests client `i` sends over and over.
    /// `serverCPU`: the server's CPU seconds so far, sampled at the window's ends.
    func run(
        socket path: String, linesPerReply: Int = 1, requests: (Int) -> [[UInt8]], serverCPU: () -> Double
    ) throws -> LoadResult {
        let poller = try Poller()
        var clients: [LoadConnection] = []
        var rings: [[[UInt8]]] = []
        for index in 0..<connections {
            let client = try LoadConnection(path: path, linesPerReply: linesPerReply)
            try poller.add(client.fd, index: index, events: Poller.readable)
            clients.append(client)
            rings.append(requests(index))
        }
        var nextRequest = [Int](repeating: 0, count: connections)
        var inFlight = (0..<connections).map { _ in SendTimes(capacity: depth) }
        var toStamp = [Int](repeating: 0, count: connections)
        var dirty: [Int] = []
        var histogram = LatencyHistogram()
        var totalReplies = 0
        var windowReplies = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 16)
        defer { buffer.deallocate() }

        func queue(_ index: Int, _ count: Int) {
            let ring = rings[index]
            for _ in 0..<count {
                clients[index].queue(ring[nextRequest[index] % ring.count])
                nextRequest[index] &+= 1
            }
            if toStamp[index] == 0 { dirty.append(index) }
            toStamp[index] += count
        }
        func flushDirty() throws {
            let now = MonotonicClock.now()
            for index in dirty {
                for _ in 0..<toStamp[index] { inFlight[index].push(now) }
                toStamp[index] = 0
                if try !clients[index].flush() {
                    try poller.modify(clients[index].fd, index: index, events: Poller.readable | Poller.writable)
                }
            }
            dirty.removeAll(keepingCapacity: true)
        }

        let start = MonotonicClock.now()
        let windowStart = start + UInt64(warmup * 1e9)
        let windowEnd = windowStart + UInt64(duration * 1e9)
        var window = CPUWindow()
        var sending = true
        for index in 0..<connections { queue(index, depth) }
        try flushDirty()
        while sending || inFlight.contains(where: { !$0.isEmpty }) {
            try poller.wait(milliseconds: 50) { index, events in
                let client = clients[index]
                if events & Poller.writable != 0, try client.flush() {
                    try poller.modify(client.fd, index: index, events: Poller.readable)
                }
                guard events & (Poller.readable | Poller.failed) != 0 else { return }
                let replies = try client.readReplies(into: buffer)
                guard replies > 0 else { return }
                let now = MonotonicClock.now()
                let counted = now >= windowStart && sending
                for _ in 0..<replies {
                    let sent = inFlight[index].pop()
                    if counted { histogram.record(now &- sent) }
                }
                totalReplies += replies
                if counted { windowReplies += replies }
                if sending { queue(index, replies) }
            }
            let now = MonotonicClock.now()
            if !window.started && now >= windowStart { window.begin(serverCPU: serverCPU()) }
            if sending && now >= windowEnd {
                sending = false
                window.end(serverCPU: serverCPU())
            }
            try flushDirty()
            if !sending && now > windowEnd + 10_000_000_000 {
                throw BenchError.timedOut("replies still missing 10 s after the load stopped")
            }
        }
        return LoadResult(
            operations: windowReplies, totalReplies: totalReplies, seconds: window.seconds,
            p50: histogram.percentile(0.5), p99: histogram.percentile(0.99),
            clientCPU: window.clientCPU, serverCPU: window.serverCPU)
    }
}

/// Send times of one connection's requests awaiting replies, oldest first.
struct SendTimes {
    private var times: [UInt64]
    private var head = 0
    private var count = 0

    init(capacity: Int) {
        times = [UInt64](repeating: 0, count: capacity)
    }

    var isEmpty: Bool { count == 0 }

    mutating func push(_ time: UInt64) {
        precondition(count < times.count, "more requests in flight than the depth")
        times[(head + count) % times.count] = time
        count += 1
    }

    mutating func pop() -> UInt64 {
        precondition(count > 0, "a reply to no request")
        defer {
            head = (head + 1) % times.count
            count -= 1
        }
        return times[head]
    }
}

/// What one side of a measurement did in its window.
struct LoadResult {
    /// Replies (or deliveries) inside the window.
    var operations: Int
    /// Replies over the whole run, warm-up and drain included (for checking the server).
    var totalReplies: Int
    var seconds: Double
    /// Latencies in nanoseconds.
    var p50: Double
    var p99: Double
    /// CPU time over wall time in the window: 1.0 is one core fully busy.
    var clientCPU: Double
    var serverCPU: Double

    var perSecond: Double { seconds > 0 ? Double(operations) / seconds : 0 }
}

/// The measured window: its wall time and the CPU both sides spent in it.
struct CPUWindow {
    private var wallStart: UInt64 = 0
    private var clientStart = 0.0
    private var serverStart = 0.0
    private(set) var started = false
    private(set) var seconds = 0.0
    private(set) var clientCPU = 0.0
    private(set) var serverCPU = 0.0

    mutating func begin(serverCPU server: Double) {
        started = true
        wallStart = MonotonicClock.now()
        clientStart = Self.ownCPUSeconds()
        serverStart = server
    }

    mutating func end(serverCPU server: Double) {
        if !started { begin(serverCPU: server) }
        seconds = Double(MonotonicClock.now() - wallStart) / 1e9
        guard seconds > 0 else { return }
        clientCPU = (Self.ownCPUSeconds() - clientStart) / seconds
        serverCPU = (server - serverStart) / seconds
    }

    /// User plus system time of this process.
    static func ownCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
