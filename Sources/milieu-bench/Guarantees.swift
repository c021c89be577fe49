import Foundation

/// The durability both servers are run with in one comparison, so that like is compared
/// with like.
enum Guarantees: String, CaseIterable {
    /// An acknowledged write survives kill -9, and power loss but for about the last second:
    /// milieud's default (`--fsync everysec`) against Redis with `appendonly yes`,
    /// `appendfsync everysec`.
    case persistent
    /// An acknowledged write survives power loss: `milieud --fsync always` against Redis with
    /// `appendfsync always`. Measured for the write rows (round trip, concurrency, pipelining).
    case synced
    /// Nothing reaches the disk: `milieud --ephemeral` against Redis with `appendonly no`
    /// and no snapshots.
    case ephemeral

    var label: String {
        switch self {
        case .persistent: "persistent"
        case .synced: "fsync always"
        case .ephemeral: "no persistence"
        }
    }
}

/// The programs under test, and how each is started for a comparison.
struct Contenders {
    let milieud: String
    let redisServer: String
    let redisBenchmark: RedisBenchmarkTool
    /// Whether this milieud has `--ephemeral`, i.e. persists by default and can be told not to.
    let milieudPersists: Bool
    /// Whether this milieud takes `--data-dir`, where it then persists.
    let milieudTakesDataDirectory: Bool
    /// Whether this milieud's `--fsync` takes a mode (`always|everysec|no`); before it did,
    /// `--fsync` alone synced every commit.
    let milieudTakesFsyncMode: Bool

    init(milieud: String, redisServer: String, redisBenchmark: String) throws {
        self.milieud = milieud
        self.redisServer = redisServer
        self.redisBenchmark = RedisBenchmarkTool(binary: redisBenchmark)
        let help = try Tool.run(milieud, ["--help"], timeout: 10)
        guard help.status == 0 else { throw BenchError.process("\(milieud) --help failed with status \(help.status)") }
        milieudPersists = help.text.contains("--ephemeral")
        milieudTakesDataDirectory = help.text.contains("--data-dir")
        milieudTakesFsyncMode = help.text.contains("everysec")
    }

    /// Why a comparison's Milieu side does not have the guarantees it is labelled with yet.
    func pending(_ guarantees: Guarantees) -> String? {
        guarantees != .ephemeral && !milieudPersists ? "persistence not built" : nil
    }

    /// A fresh milieud; whatever it keeps on disk goes to its temporary directory (its
    /// `--data-dir`, and HOME and the XDG directories too).
    func startMilieu(_ guarantees: Guarantees, cpus: String?) throws -> ServerProcess {
        try ServerProcess(name: "milieud", binary: milieud, cpus: cpus, logFile: "milieud.log", homeIsDirectory: true) {
            socket, directory in
            var arguments = ["--socket", socket, "--log-level", "warning"]
            switch guarantees {
            case .persistent where milieudTakesDataDirectory:
                arguments += ["--data-dir", "\(directory)/data"] + (milieudTakesFsyncMode ? ["--fsync", "everysec"] : [])
            case .synced where milieudTakesDataDirectory:
                arguments += ["--data-dir", "\(directory)/data", "--fsync"] + (milieudTakesFsyncMode ? ["always"] : [])
            case .ephemeral where milieudPersists: arguments.append("--ephemeral")
            default: break
            }
            return arguments
        }
    }

    /// A fresh redis-server on a Unix socket only (no TCP), its files in its directory.
    func startRedis(_ guarantees: Guarantees, cpus: String?, extra: [String] = []) throws -> ServerProcess {
        let persistence =
            switch guarantees {
            case .persistent: ["--appendonly", "yes", "--appendfsync", "everysec"]
            case .synced: ["--appendonly", "yes", "--appendfsync", "always"]
            case .ephemeral: ["--appendonly", "no"]
            }
        return try ServerProcess(name: "redis-server", binary: redisServer, cpus: cpus, logFile: "redis.log", homeIsDirectory: false) {
            socket, directory in
            [
                "--port", "0", "--unixsocket", socket, "--unixsocketperm", "700", "--dir", directory, "--save", "",
                "--daemonize", "no", "--logfile", "\(directory)/redis.log",
            ] + persistence + extra
        }
    }

    /// Version lines, for the results.
    func versions() -> [String: String] {
        func firstLine(_ binary: String) -> String {
            let text = (try? Tool.run(binary, ["--version"], timeout: 10).text) ?? ""
            return String(text.split(separator: "\n").first ?? "unknown")
        }
        return ["milieud": firstLine(milieud), "redis-server": firstLine(redisServer)]
    }
}
