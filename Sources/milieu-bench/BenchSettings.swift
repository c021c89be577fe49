/// How long and how big a `compare` run is.
struct BenchSettings {
    /// The generator, and redis-benchmark, always run on this CPU; the servers run on it
    /// too for one client (performance.md: pin single-client comparisons) and on the
    /// other CPU under many clients.
    static let generatorCPU = "0"

    /// Seconds of load before the measured window, not counted.
    var warmup = 0.3
    /// Seconds of the measured window of each side of each load.
    var duration = 1.0
    /// Windows per side of each comparison, Milieu and Redis taking turns, each on fresh
    /// servers; the table reports each metric's median.
    var rounds = 3
    /// Ascending.
    var viewCounts = [1_000, 10_000, 100_000]
    var memoryConnections = 1_000
    var sections = Set(ResultRow.Section.allCases)
    /// Record milieud with `perf record -g` during the 50-client rows.
    var profile = false

    /// A smoke run: short windows, small sizes.
    static let quick = BenchSettings(warmup: 0.1, duration: 0.3, rounds: 1, viewCounts: [1_000, 10_000], memoryConnections: 200)
}
