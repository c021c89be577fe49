import Foundation
import MilieuJSON

/// The outcome of a `compare` run: the table people read and the JSON programs read.
struct Report {
    var rows: [ResultRow]
    var started: Date
    var seconds: Double
    var loadBefore: [Double]
    var loadAfter: [Double]
    var versions: [String: String]
    var milieudPersists: Bool
    var settings: BenchSettings

    // MARK: Table

    var table: String {
        var lines = [
            "Milieu vs Redis, measured in the same run on \(ProcessInfo.processInfo.activeProcessorCount) CPUs;"
                + " load average \(format(loadBefore)) before, \(format(loadAfter)) after.",
            "ratio = Milieu ÷ Redis: above 1 is better for ops/s and deliveries/s, below 1 for latency, CPU and memory.",
            "Rows 1–5: each figure is the median of \(settings.rounds) window(s) of \(format(settings.duration)) s per side"
                + " (Milieu and Redis taking turns on fresh servers).",
        ]
        let comparisons = rows.filter { [.roundTrip, .concurrency, .pipelining, .fanOut].contains($0.section) }
        if !comparisons.isEmpty {
            lines.append("")
            lines.append(columns(["row", "guarantees", "metric", "Milieu", "Redis", "ratio", "redis-benchmark", "ratio"]))
            for row in comparisons { lines += comparisonLines(row) }
        }
        let invalidation = rows.filter { $0.section == .invalidation }
        if !invalidation.isEmpty {
            lines.append("")
            lines.append(
                "Invalidation scaling (Milieu only, persistent\(mark(invalidation[0]))): a write read by one view among N;"
                    + " one client, pinned beside the daemon.")
            lines.append(
                pad(["style, views", "mount s", "RSS MiB", "ops/s", "p50 µs", "p99 µs", "p50 vs fewest"], [31, 9, 9, 10, 9, 9, 14]))
            for row in invalidation {
                let smallest = invalidation.first { $0.facts["style"] == row.facts["style"] }?.milieu[.p50Micros]
                let metrics = row.milieu
                lines.append(
                    pad(
                        [
                            row.title, number(metrics[.mountSeconds], .mountSeconds), number(metrics[.residentMiB], .residentMiB),
                            number(metrics[.opsPerSecond], .opsPerSecond), number(metrics[.p50Micros], .p50Micros),
                            number(metrics[.p99Micros], .p99Micros), ratio(metrics[.p50Micros], smallest),
                        ], [31, 9, 9, 10, 9, 9, 14]))
            }
        }
        let memory = rows.filter { $0.section == .memory }
        if !memory.isEmpty {
            lines.append("")
            lines.append("Memory, RSS MiB (persistent\(mark(memory[0]))):")
            lines.append(pad(["", "Milieu", "Redis", "ratio", "Redis holds"], [31, 9, 9, 8, 0]))
            for row in memory {
                let mine = row.milieu[.residentMiB]
                let theirs = row.redis?[.residentMiB]
                lines.append(
                    pad(
                        [
                            row.title, number(mine, .residentMiB), number(theirs, .residentMiB), ratio(mine, theirs), row.redisNote ?? "",
                        ], [31, 9, 9, 8, 0]))
            }
        }
        lines.append("")
        lines += footnotes
        return lines.joined(separator: "\n")
    }

    private func comparisonLines(_ row: ResultRow) -> [String] {
        let throughput: Metric = row.section == .fanOut ? .deliveriesPerSecond : .opsPerSecond
        var lines: [String] = []
        for (index, metric) in [throughput, .p50Micros, .p99Micros, .serverMicrosPerOp].enumerated() {
            let mine = row.milieu[metric]
            let theirs = row.redis?[metric]
            let tool = row.redisBenchmark?[metric]
            guard mine != nil || theirs != nil else { continue }
            let name = index == 0 ? "\(row.section.title): \(row.title)" : ""
            let guarantees = index == 0 ? (row.guarantees?.label ?? "") + mark(row) : ""
            let noisy = index == 0 && (row.milieu.isNoisy || row.redis?.isNoisy == true)
            lines.append(
                columns([
                    name, guarantees, metric.label, number(mine, metric), number(theirs, metric), ratio(mine, theirs) + (noisy ? "~" : ""),
                    row.redisBenchmark == nil ? "" : number(tool, metric), row.redisBenchmark == nil ? "" : ratio(mine, tool),
                ]))
        }
        return lines
    }

    private var footnotes: [String] {
        var notes: [String] = []
        if rows.contains(where: { $0.pending != nil }) {
            notes.append("* pending: persistence not built — milieud has no --ephemeral yet, so it ran without persistence in every row.")
        }
        if rows.contains(where: { $0.milieu.isNoisy || $0.redis?.isNoisy == true }) {
            notes.append("~ the rounds' throughputs differed by more than 25% (other work on the machine?): rerun when it is quiet.")
        }
        if rows.contains(where: { $0.section == .fanOut }) {
            notes.append("Fan-out, Redis side: PUBLISH to 100 subscribers without persistence; with persistence, SET announced by")
            notes.append("keyspace notifications to 100 subscribers (PUBLISH is not written to the append-only file).")
        }
        let busiest = rows.flatMap { row in
            [("Milieu", row.milieu), ("Redis", row.redis)].compactMap { side, metrics in
                metrics?[.clientCPU].map { (cpu: $0, place: "\(row.section.title): \(row.title), \(side) side") }
            }
        }.max { $0.cpu < $1.cpu }
        if let busiest {
            notes.append(
                "Load generator: at most \(String(format: "%.0f", busiest.cpu * 100))% of its CPU in any window"
                    + " (\(busiest.place)); near 100% would mean it limits the result.")
        }
        return notes
    }

    private func mark(_ row: ResultRow) -> String { row.pending == nil ? "" : "*" }

    private func columns(_ cells: [String]) -> String {
        pad(cells, [38, 16, 12, 10, 10, 7, 16, 7], leftAligned: 3)
    }

    /// Pads each cell to its width: the first `leftAligned` cells (and any of width 0)
    /// on the left, the others on the right, one space between cells.
    private func pad(_ cells: [String], _ widths: [Int], leftAligned: Int = 1) -> String {
        var line: [String] = []
        for (index, cell) in cells.enumerated() {
            let room = String(repeating: " ", count: max(0, widths[index] - cell.count))
            line.append(index < leftAligned || widths[index] == 0 ? cell + room : room + cell)
        }
        return line.joined(separator: " ").trimmingTrailingSpaces
    }

    private func number(_ value: Double?, _ metric: Metric) -> String {
        guard let value else { return "—" }
        switch metric {
        case .opsPerSecond, .deliveriesPerSecond:
            if value >= 1e6 { return String(format: "%.2fM", value / 1e6) }
            if value >= 1e3 { return String(format: "%.1fk", value / 1e3) }
            return String(format: "%.0f", value)
        case .mountSeconds: return String(format: "%.3f", value)
        case .residentMiB: return String(format: "%.1f", value)
        case .serverCPU, .clientCPU: return String(format: "%.0f%%", value * 100)
        case .p50Micros, .p99Micros, .serverMicrosPerOp:
            return value >= 100 ? String(format: "%.0f", value) : String(format: "%.1f", value)
        }
    }

    private func ratio(_ mine: Double?, _ theirs: Double?) -> String {
        guard let mine, let theirs, theirs > 0 else { return "—" }
        return String(format: "%.2f", mine / theirs)
    }

    private func format(_ seconds: Double) -> String {
        String(format: "%g", seconds)
    }

    private func format(_ load: [Double]) -> String {
        load.map { String(format: "%.2f", $0) }.joined(separator: " ")
    }

    // MARK: JSON

    var json: JSON {
        let iso = ISO8601DateFormatter()
        return [
            "schema": "milieu-bench/compare/1",
            "startedAt": .string(iso.string(from: started)),
            "seconds": .double(seconds),
            "machine": [
                "cpus": .int(ProcessInfo.processInfo.activeProcessorCount),
                "os": .string(ProcessInfo.processInfo.operatingSystemVersionString),
                "loadAverageBefore": .array(loadBefore.map { .double($0) }),
                "loadAverageAfter": .array(loadAfter.map { .double($0) }),
            ],
            "versions": .object(JSONObject(versions.sorted { $0.key < $1.key }.map { ($0.key, JSON.string($0.value)) })),
            "milieuPersistence": milieudPersists ? "built" : "pending: persistence not built",
            "settings": [
                "warmupSeconds": .double(settings.warmup), "windowSeconds": .double(settings.duration),
                "rounds": .int(settings.rounds),
                "generatorCPU": .string(BenchSettings.generatorCPU), "pinned": .bool(Pinning.taskset != nil),
            ],
            "rows": .array(rows.map(\.json)),
        ]
    }

    /// Writes `results.json` and `results-<UTC time>.json` into `directory`; returns their paths.
    func write(to directory: String) throws -> [String] {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let stamp = ISO8601DateFormatter().string(from: started).filter { $0 != ":" && $0 != "-" }
        let text = Data((json.prettyText + "\n").utf8)
        let paths = ["\(directory)/results.json", "\(directory)/results-\(stamp).json"]
        for path in paths { try text.write(to: URL(fileURLWithPath: path)) }
        return paths
    }
}

extension ResultRow.Section {
    var title: String {
        switch self {
        case .roundTrip: "round trip"
        case .concurrency: "concurrency"
        case .pipelining: "pipelining"
        case .fanOut: "fan-out"
        case .invalidation: "invalidation"
        case .memory: "memory"
        }
    }
}

extension String {
    fileprivate var trimmingTrailingSpaces: String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
