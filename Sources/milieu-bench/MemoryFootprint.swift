import MilieuEngine
import MilieuJSON

/// Row 6: resident memory (VmRSS from /proc/PID/status) of a fresh server idle, holding
/// many views (Redis: as many 8-byte string keys), and with many connections open, each
/// of which has been answered once. Both sides run with persistence (the default pairing).
struct MemoryFootprint {
    var views: Int
    var connections: Int

    /// `residentWithViews`: milieud's RSS in MiB with `views` views mounted, if the
    /// invalidation rows already measured it (observable style); otherwise it is measured here.
    func measure(_ contenders: Contenders, residentWithViews: Double?) throws -> [ResultRow] {
        let guarantees = Guarantees.persistent
        let pending = contenders.pending(guarantees)
        func row(_ title: String, _ milieu: Double, _ redis: Double, note: String? = nil) -> ResultRow {
            ResultRow(
                section: .memory, title: title, guarantees: guarantees, pending: pending,
                milieu: Metrics([.residentMiB: milieu]), redis: Metrics([.residentMiB: redis]), redisNote: note)
        }
        let probe = MilieuWire.request(id: 1, method: "graph/get", params: ["path": "theme.accentColor"])
        let ping = RESPWire.command("PING")

        let idle = row(
            "idle",
            try resident(of: contenders.startMilieu(guarantees, cpus: nil)) { server in
                _ = try MilieuWire.result(of: LoadConnection(path: server.socketPath).exchange(probe, lines: 1)[0])
                return []
            },
            try resident(of: contenders.startRedis(guarantees, cpus: nil)) { server in
                try RESPWire.expect(LoadConnection(path: server.socketPath).exchange(ping, lines: 1)[0], "+PONG", after: "PING")
                return []
            })

        let milieuWithViews =
            try residentWithViews
            ?? resident(of: contenders.startMilieu(guarantees, cpus: nil)) { server in
                // The views belong to the connection that mounted them: it stays open.
                let owner = try LoadConnection(path: server.socketPath)
                _ = try ViewMounting.mount(views: views, style: .observable, on: owner)
                return [owner]
            }
        let withViews = row(
            "\(views) views", milieuWithViews,
            try resident(of: contenders.startRedis(guarantees, cpus: nil)) { server in
                try populate(server, keys: views)
                return []
            },
            note: "\(views) keys of 8 bytes")

        let connected = row(
            "\(connections) connections",
            try resident(of: contenders.startMilieu(guarantees, cpus: nil)) { server in
                try open(connections, to: server, request: probe) { _ = try MilieuWire.result(of: $0) }
            },
            try resident(of: contenders.startRedis(guarantees, cpus: nil)) { server in
                try open(connections, to: server, request: ping) { try RESPWire.expect($0, "+PONG", after: "PING") }
            })
        return [idle, withViews, connected]
    }

    /// Runs `prepare` against `server`, reads the RSS (MiB) while the connections it
    /// returns are still open, then stops the server.
    private func resident(of server: ServerProcess, _ prepare: (ServerProcess) throws -> [LoadConnection]) throws -> Double {
        defer { server.stop() }
        let held = try prepare(server)
        let kib = try server.residentKiB()
        withExtendedLifetime(held) {}
        return Double(kib) / 1024
    }

    /// Opens `count` connections, each answered once.
    private func open(
        _ count: Int, to server: ServerProcess, request: [UInt8], check: ([UInt8]) throws -> Void
    ) throws
        -> [LoadConnection]
    {
        try (0..<count).map { _ in
            let connection = try LoadConnection(path: server.socketPath)
            try check(connection.exchange(request, lines: 1)[0])
            return connection
        }
    }

    private func populate(_ server: ServerProcess, keys: Int) throws {
        let connection = try LoadConnection(path: server.socketPath)
        let value = WriteValues.value(client: 0, variant: 0)
        for start in stride(from: 0, to: keys, by: 1000) {
            let count = min(1000, keys - start)
            let batch = (start..<(start + count)).flatMap { RESPWire.command("SET", "key:\($0)", value) }
            let replies = try connection.exchange(batch, lines: count)
            guard replies.allSatisfy({ $0 == Array("+OK".utf8) }) else {
                throw BenchError.unexpectedReply("a SET failed while filling Redis")
            }
        }
    }
}
