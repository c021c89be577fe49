import MilieuJSON

/// A measured quantity, with its unit and which way is better.
enum Metric: String, CaseIterable {
    case opsPerSecond
    case deliveriesPerSecond
    case p50Micros
    case p99Micros
    case mountSeconds
    case residentMiB
    /// The server's CPU time per operation (per delivery for fan-out), in µs.
    case serverMicrosPerOp
    /// The server's CPU time over wall time in the window (1.0 = one core busy).
    case serverCPU
    /// The load generator's, likewise: near 1.0 would mean it may be the bottleneck.
    case clientCPU

    var label: String {
        switch self {
        case .opsPerSecond: "ops/s"
        case .deliveriesPerSecond: "deliveries/s"
        case .p50Micros: "p50 µs"
        case .p99Micros: "p99 µs"
        case .mountSeconds: "mount s"
        case .residentMiB: "RSS MiB"
        case .serverMicrosPerOp: "CPU µs/op"
        case .serverCPU: "server CPU"
        case .clientCPU: "client CPU"
        }
    }
}

/// Values of metrics, in `Metric` order.
struct Metrics {
    private(set) var values: [Metric: Double] = [:]
    /// The throughput of each round, when the values are medians over rounds.
    private(set) var throughputByRound: [Double] = []

    subscript(metric: Metric) -> Double? {
        get { values[metric] }
        set { values[metric] = newValue }
    }

    /// Throughput, latency percentiles (converted from nanoseconds) and CPU shares of a load.
    init(_ result: LoadResult, throughput: Metric = .opsPerSecond) {
        values[throughput] = result.perSecond
        values[.p50Micros] = result.p50 / 1000
        values[.p99Micros] = result.p99 / 1000
        if result.serverCPU > 0 {
            values[.serverCPU] = result.serverCPU
            if result.perSecond > 0 { values[.serverMicrosPerOp] = result.serverCPU / result.perSecond * 1e6 }
        }
        if result.clientCPU > 0 { values[.clientCPU] = result.clientCPU }
    }

    /// Each metric's median over rounds of the same load (each metric on its own).
    init(medianOf results: [LoadResult], throughput: Metric = .opsPerSecond) {
        let rounds = results.map { Metrics($0, throughput: throughput) }
        for metric in Metric.allCases {
            let samples = rounds.compactMap { $0[metric] }.sorted()
            guard !samples.isEmpty else { continue }
            let middle = samples.count / 2
            values[metric] = samples.count % 2 == 1 ? samples[middle] : (samples[middle - 1] + samples[middle]) / 2
        }
        if rounds.count > 1 { throughputByRound = rounds.compactMap { $0[throughput] } }
    }

    init(_ pairs: [Metric: Double]) {
        values = pairs
    }

    /// Whether the rounds' throughputs differ by more than 25%: other work disturbed them.
    var isNoisy: Bool {
        guard let low = throughputByRound.min(), let high = throughputByRound.max(), low > 0 else { return false }
        return high / low > 1.25
    }

    var json: JSON {
        var members = Metric.allCases.compactMap { metric in values[metric].map { (metric.rawValue, JSON.double($0)) } }
        if !throughputByRound.isEmpty { members.append(("throughputByRound", .array(throughputByRound.map { .double($0) }))) }
        return .object(JSONObject(members))
    }
}

/// One line of the comparison: what was measured, under which guarantees, on each side.
struct ResultRow {
    enum Section: String, CaseIterable {
        case roundTrip, concurrency, pipelining, fanOut, invalidation, memory
    }

    var section: Section
    /// What this row is within its section: "1 client", "observable, 10000 views".
    var title: String
    var guarantees: Guarantees?
    /// Set when the Milieu side lacks the guarantee it is labelled with.
    var pending: String?
    /// Facts of the row beyond its title, for the results file (style, views, …).
    var facts: JSONObject = [:]
    var milieu: Metrics
    /// Redis driven by milieu-bench's own generator (or measured without one: memory).
    var redis: Metrics?
    /// Redis driven by redis-benchmark.
    var redisBenchmark: Metrics?
    /// What the Redis side does, when it is not the obvious counterpart.
    var redisNote: String?

    /// Milieu ÷ Redis for every metric both sides have.
    static func ratios(_ milieu: Metrics, _ redis: Metrics?) -> Metrics {
        guard let redis else { return Metrics([:]) }
        var ratios: [Metric: Double] = [:]
        for metric in Metric.allCases where metric != .clientCPU && metric != .serverCPU {
            if let mine = milieu[metric], let theirs = redis[metric], theirs > 0 { ratios[metric] = mine / theirs }
        }
        return Metrics(ratios)
    }

    var json: JSON {
        var object: JSONObject = ["row": .string(section.rawValue), "title": .string(title)]
        if let guarantees { object["guarantees"] = .string(guarantees.rawValue) }
        if let pending { object["pending"] = .string(pending) }
        for (key, value) in facts { object[key] = value }
        object["milieu"] = milieu.json
        if let redis {
            object["redis"] = redis.json
            object["ratio"] = Self.ratios(milieu, redis).json
        }
        if let redisBenchmark {
            object["redisBenchmark"] = redisBenchmark.json
            object["ratioToRedisBenchmark"] = Self.ratios(milieu, redisBenchmark).json
        }
        if let redisNote { object["redisSide"] = .string(redisNote) }
        return .object(object)
    }
}
