/// redis-benchmark, Redis's own load generator, run for SET and read from its CSV output.
struct RedisBenchmarkTool {
    let binary: String

    /// `redis-benchmark -t set -c clients [-P pipeline] -n requests -d valueBytes --csv`
    /// against the socket, pinned like the load generator. redis-benchmark has no duration
    /// option, so `requests` should take about as long as the generator's window.
    func set(
        socket: String, clients: Int, pipeline: Int, requests: Int, valueBytes: Int, cpus: String?
    ) throws -> LoadResult {
        var command = [binary, "-s", socket, "-t", "set", "-c", "\(clients)", "-n", "\(requests)", "-d", "\(valueBytes)", "--csv"]
        if pipeline > 1 { command += ["-P", "\(pipeline)"] }
        if let cpus, let taskset = Pinning.taskset { command = [taskset, "-c", cpus] + command }
        let output = try Tool.run(command[0], Array(command.dropFirst()), timeout: 120)
        guard output.status == 0 else {
            throw BenchError.process("redis-benchmark failed with status \(output.status): \(output.text.suffix(400))")
        }
        // "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
        for line in output.text.split(whereSeparator: \.isNewline) where line.hasPrefix("\"SET\"") {
            let fields = line.split(separator: ",").map { Double($0.filter { $0 != "\"" }) }
            guard fields.count >= 7, let rps = fields[1], let p50 = fields[4], let p99 = fields[6] else { break }
            return LoadResult(
                operations: requests, totalReplies: requests, seconds: Double(requests) / rps,
                p50: p50 * 1e6, p99: p99 * 1e6, clientCPU: 0, serverCPU: 0)
        }
        throw BenchError.unexpectedReply("redis-benchmark printed no SET line: \(output.text.suffix(400))")
    }
}
