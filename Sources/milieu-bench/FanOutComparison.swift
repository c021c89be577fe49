import MilieuJSON

/// Row 4: one writer and 100 watchers of a property. Milieu: each watcher holds
/// `watch {"paths":["theme.accentColor"]}` and the writer sends `graph/set` of it.
/// Redis without persistence: 100 subscribers of a channel and `PUBLISH` to it. Redis
/// with persistence: `PUBLISH` writes nothing to the append-only file, so the writer
/// sends `SET` and the subscribers get keyspace notifications (`notify-keyspace-events
/// K$`) — a write that survives kill -9 and is announced, as Milieu's is.
struct FanOutComparison {
    var title: String
    var watchers: Int
    /// 1: the writer waits for every watcher before the next write; 16: as many in flight.
    var inFlight: Int

    static let serverCPUs = "1"
    static let property = WriteComparison.property

    func measure(_ guarantees: Guarantees, _ contenders: Contenders, _ settings: BenchSettings) throws -> ResultRow {
        let load = FanOutLoad(inFlight: inFlight, warmup: settings.warmup, duration: settings.duration)
        var milieu: [LoadResult] = []
        var redis: [LoadResult] = []
        for _ in 0..<settings.rounds {
            milieu.append(try measureMilieu(load, guarantees, contenders))
            redis.append(try measureRedis(load, guarantees, contenders))
        }
        return ResultRow(
            section: .fanOut, title: title, guarantees: guarantees, pending: contenders.pending(guarantees),
            facts: ["watchers": .int(watchers), "writesInFlight": .int(inFlight)],
            milieu: Metrics(medianOf: milieu, throughput: .deliveriesPerSecond),
            redis: Metrics(medianOf: redis, throughput: .deliveriesPerSecond),
            redisNote: guarantees == .persistent ? "SET with keyspace notifications" : "PUBLISH")
    }

    private var writeValues: [String] { (0..<2).map { WriteValues.value(client: 0, variant: $0) } }

    private func measureMilieu(_ load: FanOutLoad, _ guarantees: Guarantees, _ contenders: Contenders) throws -> LoadResult {
        let server = try contenders.startMilieu(guarantees, cpus: Self.serverCPUs)
        defer { server.stop() }
        var subscribers: [LoadConnection] = []
        for _ in 0..<watchers {
            let subscriber = try LoadConnection(path: server.socketPath)
            _ = try MilieuWire.result(of: subscriber.exchange(MilieuWire.watch(id: 1, paths: [Self.property]), lines: 1)[0])
            subscribers.append(subscriber)
        }
        let writer = try LoadConnection(path: server.socketPath)
        let writes = writeValues.enumerated().map { MilieuWire.set(id: $0.offset + 1, path: Self.property, value: .string($0.element)) }
        // One write by hand first: every watcher must be told, in a graph/didChange.
        _ = try MilieuWire.version(of: writer.exchange(writes[1], lines: 1)[0])
        for subscriber in subscribers {
            let line = try subscriber.exchange([], lines: 1)[0]
            guard try JSON(parsing: line)["method"] == "graph/didChange" else {
                throw BenchError.unexpectedReply("a watcher was sent \(String(decoding: line.prefix(300), as: UTF8.self))")
            }
        }
        return try load.run(writer: writer, subscribers: subscribers, writes: writes, serverCPU: server.cpuSeconds)
    }

    private func measureRedis(_ load: FanOutLoad, _ guarantees: Guarantees, _ contenders: Contenders) throws -> LoadResult {
        let keyspace = guarantees == .persistent
        let server = try contenders.startRedis(
            guarantees, cpus: Self.serverCPUs, extra: keyspace ? ["--notify-keyspace-events", "K$"] : [])
        defer { server.stop() }
        let channel = keyspace ? "__keyspace@0__:\(Self.property)" : Self.property
        var subscribers: [LoadConnection] = []
        for _ in 0..<watchers {
            // A pub/sub message is 7 lines: *3, $7, message, $n, channel, $n, payload.
            let subscriber = try LoadConnection(path: server.socketPath, linesPerReply: 7)
            let reply = try subscriber.exchange(RESPWire.command("SUBSCRIBE", channel), lines: 6)
            try RESPWire.expect(reply[5], ":1", after: "SUBSCRIBE")
            subscribers.append(subscriber)
        }
        let writer = try LoadConnection(path: server.socketPath)
        let writes = writeValues.map { keyspace ? RESPWire.command("SET", Self.property, $0) : RESPWire.command("PUBLISH", channel, $0) }
        try RESPWire.expect(writer.exchange(writes[1], lines: 1)[0], keyspace ? "+OK" : ":\(watchers)", after: "the first write")
        for subscriber in subscribers {
            let message = try subscriber.exchange([], lines: 7)
            try RESPWire.expect(message[2], "message", after: "a write (to a subscriber)")
        }
        return try load.run(writer: writer, subscribers: subscribers, writes: writes, serverCPU: server.cpuSeconds)
    }
}
