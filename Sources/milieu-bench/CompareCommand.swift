import Foundation
import MilieuEngine
import MilieuJSON

/// `milieu-bench compare`: every measurement of docs/benchmarks.md against milieud and
/// Redis in one run; prints the table and writes the results files.
struct CompareCommand {
    static let usage = """
        usage: milieu-bench compare --milieud PATH --redis-server PATH --redis-benchmark PATH [options]

        Measures milieud and Redis side by side (docs/benchmarks.md); scripts/bench runs it.

        options:
          --output DIR       where results.json and results-<time>.json go (default: bench-results)
          --duration S       seconds of each measured window (default 1)
          --warmup S         seconds of load before each window (default 0.3)
          --rounds N         windows per side, taking turns; the table shows medians (default 3)
          --views N,N,...    view counts for invalidation scaling (default 1000,10000,100000)
          --rows R,R,...     only these: roundTrip, concurrency, pipelining, fanOut, invalidation, memory
          --quick            a smoke run: one 0.3 s window per side, up to 10000 views, 200 connections
          --profile          perf record -g milieud during the 50-client rows into
                             DIR/milieud-concurrency-{persistent,ephemeral}.perf.data; those rows'
                             Milieu numbers then carry perf's cost
        """

    var milieud = ""
    var redisServer = ""
    var redisBenchmark = ""
    var output = "bench-results"
    var settings = BenchSettings()

    init(arguments: [String]) throws {
        var iterator = arguments.makeIterator()
        func value(_ option: String) throws -> String {
            guard let next = iterator.next() else { throw BenchError.usage("\(option) needs a value") }
            return next
        }
        func seconds(_ option: String) throws -> Double {
            let text = try value(option)
            guard let number = Double(text), number > 0, number <= 60 else {
                throw BenchError.usage("\(option) takes seconds between 0 and 60, not \(text)")
            }
            return number
        }
        var overrides: [(inout BenchSettings) throws -> Void] = []
        while let argument = iterator.next() {
            switch argument {
            case "--milieud": milieud = try value(argument)
            case "--redis-server": redisServer = try value(argument)
            case "--redis-benchmark": redisBenchmark = try value(argument)
            case "--output": output = try value(argument)
            case "--quick": settings = .quick
            case "--profile": overrides.append { $0.profile = true }
            case "--duration":
                let duration = try seconds(argument)
                overrides.append { $0.duration = duration }
            case "--warmup":
                let warmup = try seconds(argument)
                overrides.append { $0.warmup = warmup }
            case "--rounds":
                let text = try value(argument)
                guard let rounds = Int(text), 1...9 ~= rounds else { throw BenchError.usage("--rounds takes 1 to 9, not \(text)") }
                overrides.append { $0.rounds = rounds }
            case "--views":
                let text = try value(argument)
                let counts = text.split(separator: ",").compactMap { Int($0) }
                guard !counts.isEmpty, counts.count == text.split(separator: ",").count, counts.allSatisfy({ 2...1_000_000 ~= $0 }) else {
                    throw BenchError.usage("--views takes counts between 2 and 1000000 separated by commas, not \(text)")
                }
                overrides.append { $0.viewCounts = Array(Set(counts)).sorted() }
            case "--rows":
                let text = try value(argument)
                let sections = try text.split(separator: ",").map { name in
                    guard let section = ResultRow.Section(rawValue: String(name)) else {
                        throw BenchError.usage(
                            "--rows: no row \(name); the rows are \(ResultRow.Section.allCases.map(\.rawValue).joined(separator: ", "))")
                    }
                    return section
                }
                overrides.append { $0.sections = Set(sections) }
            default:
                throw BenchError.usage("unknown option \(argument)")
            }
        }
        // Options apply on top of --quick wherever it stands.
        for override in overrides { try override(&settings) }
        if settings.profile && !FileManager.default.isExecutableFile(atPath: Profiler.perf) {
            throw BenchError.usage("--profile needs \(Profiler.perf) (Debian: apt-get install linux-perf)")
        }
        for (option, path) in [("--milieud", milieud), ("--redis-server", redisServer), ("--redis-benchmark", redisBenchmark)] {
            guard !path.isEmpty else { throw BenchError.usage("\(option) is required") }
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw BenchError.usage("\(option) \(path) is not an executable")
            }
        }
    }

    func run() throws {
        let loadBefore = Self.loadAverage()
        if loadBefore[0] > 0.5 {
            log("note: the load average is \(loadBefore[0]): other work on this machine will make the numbers noisy")
        }
        try Pinning.pinSelf(cpus: BenchSettings.generatorCPU)
        let contenders = try Contenders(milieud: milieud, redisServer: redisServer, redisBenchmark: redisBenchmark)
        if !contenders.milieudPersists { log("note: milieud has no --ephemeral yet: the persistent rows are pending") }
        if settings.profile { try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true) }
        let started = Date.now
        var rows: [ResultRow] = []
        for row in writeComparisons {
            for guarantees in Guarantees.allCases {
                log("\(row.section.title): \(row.title), \(guarantees.label)")
                rows.append(try row.measure(guarantees, contenders, settings))
            }
        }
        if settings.sections.contains(.fanOut) {
            for fanOut in [
                FanOutComparison(title: "100 watchers, lockstep", watchers: 100, inFlight: 1),
                FanOutComparison(title: "100 watchers, 16 in flight", watchers: 100, inFlight: 16),
            ] {
                for guarantees in [Guarantees.persistent, .ephemeral] {
                    log("fan-out: \(fanOut.title), \(guarantees.label)")
                    rows.append(try fanOut.measure(guarantees, contenders, settings))
                }
            }
        }
        var residentWithMostViews: Double?
        if settings.sections.contains(.invalidation) {
            log("invalidation scaling: \(settings.viewCounts.map(String.init).joined(separator: ", ")) views, each style")
            let invalidation = try InvalidationScaling(viewCounts: settings.viewCounts).measure(contenders, settings)
            rows += invalidation
            // Rows go from the fewest views to the most, per style.
            residentWithMostViews =
                invalidation.last { $0.facts["style"] == .string(ObservationStyle.observable.rawValue) }?
                .milieu[.residentMiB]
        }
        if settings.sections.contains(.memory) {
            log("memory")
            let memory = MemoryFootprint(views: settings.viewCounts.last ?? 100_000, connections: settings.memoryConnections)
            rows += try memory.measure(contenders, residentWithViews: residentWithMostViews)
        }
        let report = Report(
            rows: rows, started: started, seconds: Date.now.timeIntervalSince(started), loadBefore: loadBefore,
            loadAfter: Self.loadAverage(), versions: contenders.versions(), milieudPersists: contenders.milieudPersists,
            settings: settings)
        FileHandle.standardOutput.write(Data((report.table + "\n").utf8))
        for path in try report.write(to: output) { log("wrote \(path)") }
        if settings.profile {
            log("profiles: perf report --no-children --stdio -i \(profileStem)-persistent.perf.data (or -ephemeral)")
        }
    }

    private var profileStem: String { "\(output)/milieud-concurrency" }

    /// Rows 1–3, those selected.
    private var writeComparisons: [WriteComparison] {
        [
            WriteComparison(section: .roundTrip, title: "1 client", clients: 1, depth: 1, serverCPUs: "0"),
            WriteComparison(
                section: .concurrency, title: "50 clients", clients: 50, depth: 1, serverCPUs: "1",
                profile: settings.profile ? profileStem : nil),
            WriteComparison(section: .pipelining, title: "50 clients × 16 in flight", clients: 50, depth: 16, serverCPUs: "1"),
        ].filter { settings.sections.contains($0.section) }
    }

    /// The 1, 5 and 15 minute load averages.
    static func loadAverage() -> [Double] {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        let values = text.split(separator: " ").prefix(3).compactMap { Double($0) }
        return values.count == 3 ? values : [0, 0, 0]
    }

    private func log(_ message: String) {
        FileHandle.standardError.write(Data("milieu-bench: \(message)\n".utf8))
    }
}
