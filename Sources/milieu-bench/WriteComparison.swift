import Foundation
import MilieuJSON

/// Rows 1–3: writes of one string property (`graph/set theme.accentColor`) against Redis
/// `SET`, from `clients` connections with `depth` requests in flight each. Redis is
/// driven twice: by milieu-bench's own generator (the same client as Milieu's) and by
/// redis-benchmark.
struct WriteComparison {
    var section: ResultRow.Section
    var title: String
    var clients: Int
    var depth: Int
    /// Where the servers run: "0", beside the generator, for one client; "1" otherwise.
    var serverCPUs: String
    /// Where `perf record -g` writes its profiles of milieud's side in the first round, if
    /// profiling: this path's stem, then "-persistent.perf.data" or "-ephemeral.perf.data".
    var profile: String?

    static let property = "theme.accentColor"

    func measure(_ guarantees: Guarantees, _ contenders: Contenders, _ settings: BenchSettings) throws -> ResultRow {
        let load = ClosedLoopLoad(connections: clients, depth: depth, warmup: settings.warmup, duration: settings.duration)
        var milieu: [LoadResult] = []
        var redis: [LoadResult] = []
        for round in 0..<settings.rounds {
            milieu.append(try measureMilieu(load, guarantees, contenders, profile: round == 0 ? profile : nil))
            redis.append(try measureRedis(load, guarantees, contenders))
        }
        let redisMetrics = Metrics(medianOf: redis)
        // redis-benchmark counts requests, not time: ask for about as many as a window held.
        let requests = min(5_000_000, max(10_000, Int((redisMetrics[.opsPerSecond] ?? 0) * settings.duration)))
        let tool = try measureRedisBenchmark(guarantees, contenders, requests: requests)
        return ResultRow(
            section: section, title: title, guarantees: guarantees, pending: contenders.pending(guarantees),
            facts: ["clients": .int(clients), "inFlightPerClient": .int(depth), "serverCPUs": .string(serverCPUs)],
            milieu: Metrics(medianOf: milieu), redis: redisMetrics, redisBenchmark: Metrics(tool))
    }

    private func measureMilieu(
        _ load: ClosedLoopLoad, _ guarantees: Guarantees, _ contenders: Contenders, profile: String?
    )
        throws -> LoadResult
    {
        let server = try contenders.startMilieu(guarantees, cpus: serverCPUs)
        defer { server.stop() }
        let control = try LoadConnection(path: server.socketPath)
        let before = try MilieuWire.version(of: control.exchange(MilieuWire.set(id: 1, path: Self.property, value: "start"), lines: 1)[0])
        let profiler = try profile.map { try Profiler(pid: server.pid, output: "\($0)-\(guarantees.rawValue).perf.data") }
        let result = try load.run(
            socket: server.socketPath,
            requests: { client in
                (0..<2).map {
                    MilieuWire.set(id: $0 + 1, path: Self.property, value: .string(WriteValues.value(client: client, variant: $0)))
                }
            }, serverCPU: server.cpuSeconds)
        try profiler?.stop()
        let after = try MilieuWire.version(of: control.exchange(MilieuWire.set(id: 2, path: Self.property, value: "end"), lines: 1)[0])
        // Every write changes the value, so each one acknowledged took exactly one version.
        guard after - before - 1 == result.totalReplies else {
            throw BenchError.unexpectedReply(
                "milieud acknowledged \(result.totalReplies) writes but its version moved by \(after - before - 1): some writes failed")
        }
        return result
    }

    private func measureRedis(_ load: ClosedLoopLoad, _ guarantees: Guarantees, _ contenders: Contenders) throws -> LoadResult {
        let server = try contenders.startRedis(guarantees, cpus: serverCPUs)
        defer { server.stop() }
        let control = try LoadConnection(path: server.socketPath)
        try RESPWire.expect(control.exchange(RESPWire.command("SET", Self.property, "start"), lines: 1)[0], "+OK", after: "SET")
        return try load.run(
            socket: server.socketPath,
            requests: { client in
                (0..<2).map { RESPWire.command("SET", Self.property, WriteValues.value(client: client, variant: $0)) }
            }, serverCPU: server.cpuSeconds)
    }

    private func measureRedisBenchmark(_ guarantees: Guarantees, _ contenders: Contenders, requests: Int) throws -> LoadResult {
        let server = try contenders.startRedis(guarantees, cpus: serverCPUs)
        defer { server.stop() }
        let cpuBefore = server.cpuSeconds()
        var result = try contenders.redisBenchmark.set(
            socket: server.socketPath, clients: clients, pipeline: depth, requests: requests,
            valueBytes: WriteValues.value(client: 0, variant: 0).utf8.count, cpus: BenchSettings.generatorCPU)
        result.serverCPU = (server.cpuSeconds() - cpuBefore) / result.seconds
        return result
    }
}
