import MilieuEngine
import MilieuJSON

/// Row 5 (Milieu only): a write that one view among N reads should cost the same for
/// every N. Mounts N views — a container of N−2 rows, each showing its own `@State`,
/// and one reader whose body
/// shows a property of a state object of the style under test (`Counter` is
/// `@Observable`, `CounterObject` an `ObservableObject`), then times one client's
/// writes to that property, pinned beside the daemon, in `rounds` windows (medians).
struct InvalidationScaling {
    var viewCounts: [Int]

    static let serverCPUs = "0"
    static let probe = "/App/Reader.probe.count"

    func measure(_ contenders: Contenders, _ settings: BenchSettings) throws -> [ResultRow] {
        var rows: [ResultRow] = []
        for style in ObservationStyle.allCases {
            for views in viewCounts {
                rows.append(try measure(style: style, views: views, contenders, settings))
            }
        }
        for views in viewCounts { rows.append(try broadcast(views: views, contenders, settings)) }
        return rows
    }

    /// The other end: one write that every one of N views reads (`theme.colorScheme`, which each
    /// row shows) re-renders all N, and should cost in proportion to N (issue #26, item 5: naming
    /// the invalidations scanned a list, 3.5 s at 40k views). Times single writes, one at a time.
    private func broadcast(views: Int, _ contenders: Contenders, _ settings: BenchSettings) throws -> ResultRow {
        let server = try contenders.startMilieu(.persistent, cpus: Self.serverCPUs)
        defer { server.stop() }
        let owner = try LoadConnection(path: server.socketPath)
        let mountSeconds = try ViewMounting.mountThemeReaders(views: views, on: owner)
        var latencies = LatencyHistogram()
        let writes = max(4, settings.rounds * 4)
        for index in 0..<writes {
            let scheme: JSON = index % 2 == 0 ? "dark" : "light"
            let sent = MonotonicClock.now()
            _ = try MilieuWire.result(
                of: owner.exchange(MilieuWire.set(id: 10 + index, path: "theme.colorScheme", value: scheme), lines: 1, timeout: 120)[0])
            latencies.record(MonotonicClock.now() - sent)
        }
        var metrics = Metrics([.p50Micros: latencies.percentile(0.5) / 1000, .p99Micros: latencies.percentile(0.99) / 1000])
        metrics[.opsPerSecond] = 1e9 / latencies.percentile(0.5)
        metrics[.mountSeconds] = mountSeconds
        return ResultRow(
            section: .invalidation, title: "every view reads it, \(views) views", guarantees: .persistent,
            pending: contenders.pending(.persistent), facts: ["style": "broadcast", "views": .int(views)], milieu: metrics)
    }

    private func measure(
        style: ObservationStyle, views: Int, _ contenders: Contenders, _ settings: BenchSettings
    ) throws
        -> ResultRow
    {
        let server = try contenders.startMilieu(.persistent, cpus: Self.serverCPUs)
        defer { server.stop() }
        // The views belong to this connection: it stays open while the writes are timed.
        let owner = try LoadConnection(path: server.socketPath)
        let mountSeconds = try ViewMounting.mount(views: views, style: style, on: owner)
        let resident = try server.residentKiB()
        let load = ClosedLoopLoad(connections: 1, depth: 1, warmup: settings.warmup, duration: settings.duration)
        let results = try (0..<settings.rounds).map { _ in
            // Each round starts from a value its writes (1, 2, 1, …) all change.
            let reset = MilieuWire.set(id: 3, path: Self.probe, value: 100)
            let before = try MilieuWire.version(of: owner.exchange(reset, lines: 1)[0])
            let result = try load.run(
                socket: server.socketPath,
                requests: { _ in
                    (1...2).map { MilieuWire.set(id: $0, path: Self.probe, value: .int($0)) }
                }, serverCPU: server.cpuSeconds)
            let after = try MilieuWire.version(of: owner.exchange(reset, lines: 1)[0])
            guard after - before - 1 == result.totalReplies else {
                throw BenchError.unexpectedReply(
                    "\(result.totalReplies) writes acknowledged but the version moved by \(after - before - 1)")
            }
            return result
        }
        var metrics = Metrics(medianOf: results)
        metrics[.mountSeconds] = mountSeconds
        metrics[.residentMiB] = Double(resident) / 1024
        return ResultRow(
            section: .invalidation, title: "\(style.rawValue), \(views) views", guarantees: .persistent,
            pending: contenders.pending(.persistent),
            facts: ["style": .string(style.rawValue), "views": .int(views)], milieu: metrics)
    }
}

/// Mounting many views over the socket, in transactions of 1000 `view/mount` ops.
enum ViewMounting {
    static let chunk = 1000

    /// Mounts `/App/Rows` with `views − 1` rows `Row[i]` that each show `theme.colorScheme`,
    /// through `@Environment(Theme.self)`.
    static func mountThemeReaders(views: Int, on connection: LoadConnection) throws -> Double {
        var declarations: [JSON] = [["parent": "/App", "name": "Rows"]]
        declarations += (0..<max(0, views - 1)).map { index in
            [
                "parent": "/App/Rows", "name": "Row", "id": .int(index), "environment": ["theme": ["type": "Theme"]],
                "body": ["{theme.colorScheme}"],
            ]
        }
        return try mount(declarations, on: connection)
    }

    /// Mounts `/App/Rows` with `views − 2` rows `Row[i]` that each show their own `@State`,
    /// and `/App/Reader`, whose body shows `probe.count` of an object of `style` it owns.
    /// Returns the seconds the daemon took, from each transaction's send to its reply.
    static func mount(views: Int, style: ObservationStyle, on connection: LoadConnection) throws -> Double {
        var declarations: [JSON] = [["parent": "/App", "name": "Rows"]]
        declarations += (0..<max(0, views - 2)).map { index in
            ["parent": "/App/Rows", "name": "Row", "id": .int(index), "state": ["n": .int(index)], "body": ["{n}"]]
        }
        // Each style owned by its own wrapper (rule 16): @State or @StateObject.
        let owner: JSON =
            style == .observable
            ? ["state": ["probe": ["$new": ["type": "Counter"]]]] : ["stateObjects": ["probe": ["type": "CounterObject"]]]
        var reader: JSONObject = ["parent": "/App", "name": "Reader", "body": ["{probe.count}"]]
        for (key, value) in owner.objectValue ?? [:] { reader[key] = value }
        declarations.append(.object(reader))
        return try mount(declarations, on: connection)
    }

    /// Sends `declarations` in transactions of `chunk` mounts; the daemon's seconds, send to reply.
    private static func mount(_ declarations: [JSON], on connection: LoadConnection) throws -> Double {
        var nanoseconds: UInt64 = 0
        var id = 0
        for start in stride(from: 0, to: declarations.count, by: chunk) {
            id += 1
            let request = MilieuWire.mount(id: id, declarations: Array(declarations[start..<min(start + chunk, declarations.count)]))
            let sent = MonotonicClock.now()
            let reply = try connection.exchange(request, lines: 1, timeout: 60)[0]
            nanoseconds += MonotonicClock.now() - sent
            _ = try MilieuWire.result(of: reply)
        }
        return Double(nanoseconds) / 1e9
    }
}
