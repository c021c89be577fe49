/// One writer and many subscribers of what it writes. The writer keeps `inFlight` writes
/// outstanding, a write being done once every subscriber has received its message; each
/// delivery's latency runs from the write's send to the read of that subscriber's message.
/// Messages arrive in write order on every subscriber, so the n-th is the n-th write's.
struct FanOutLoad {
    var inFlight: Int
    var warmup: Double
    var duration: Double

    /// `writer` sends `writes` (a ring) and gets one reply line each; every subscriber
    /// gets one message (of its `linesPerReply` lines) per write.
    func run(
        writer: LoadConnection, subscribers: [LoadConnection], writes: [[UInt8]], serverCPU: () -> Double
    ) throws -> LoadResult {
        let poller = try Poller()
        let writerIndex = subscribers.count
        for (index, subscriber) in subscribers.enumerated() {
            try poller.add(subscriber.fd, index: index, events: Poller.readable)
        }
        try poller.add(writer.fd, index: writerIndex, events: Poller.readable)
        var sentAt = [UInt64](repeating: 0, count: inFlight)
        var deliveredOf = [Int](repeating: 0, count: inFlight)
        var received = [Int](repeating: 0, count: subscribers.count)
        var sent = 0
        var completed = 0
        var writerReplies = 0
        var histogram = LatencyHistogram()
        var deliveries = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 16)
        defer { buffer.deallocate() }

        let start = MonotonicClock.now()
        let windowStart = start + UInt64(warmup * 1e9)
        let windowEnd = windowStart + UInt64(duration * 1e9)
        var window = CPUWindow()
        var sending = true

        func sendWrites() throws {
            guard sending, sent - completed < inFlight else { return }
            while sent - completed < inFlight {
                writer.queue(writes[sent % writes.count])
                sentAt[sent % inFlight] = MonotonicClock.now()
                sent += 1
            }
            guard try writer.flush() else { throw BenchError.timedOut("the server does not read the writer's requests") }
        }

        try sendWrites()
        while sending || completed < sent || writerReplies < sent {
            try poller.wait(milliseconds: 50) { index, events in
                guard events & (Poller.readable | Poller.failed) != 0 else { return }
                if index == writerIndex {
                    writerReplies += try writer.readReplies(into: buffer)
                    return
                }
                let messages = try subscribers[index].readReplies(into: buffer)
                guard messages > 0 else { return }
                let now = MonotonicClock.now()
                let counted = now >= windowStart && sending
                for _ in 0..<messages {
                    let write = received[index]
                    guard write < sent else {
                        throw BenchError.unexpectedReply("subscriber \(index) got message \(write + 1) after \(sent) writes")
                    }
                    received[index] += 1
                    let slot = write % inFlight
                    if counted { histogram.record(now &- sentAt[slot]) }
                    deliveredOf[slot] += 1
                    if deliveredOf[slot] == subscribers.count {
                        deliveredOf[slot] = 0
                        completed += 1
                    }
                }
                if counted { deliveries += messages }
            }
            let now = MonotonicClock.now()
            if !window.started && now >= windowStart { window.begin(serverCPU: serverCPU()) }
            if sending && now >= windowEnd {
                sending = false
                window.end(serverCPU: serverCPU())
            }
            try sendWrites()
            if !sending && now > windowEnd + 10_000_000_000 {
                throw BenchError.timedOut("\(sent - completed) writes not delivered to every subscriber 10 s after the load stopped")
            }
        }
        return LoadResult(
            operations: deliveries, totalReplies: writerReplies, seconds: window.seconds,
            p50: histogram.percentile(0.5), p99: histogram.percentile(0.99),
            clientCPU: window.clientCPU, serverCPU: window.serverCPU)
    }
}
