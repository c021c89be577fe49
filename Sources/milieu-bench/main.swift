import Foundation
import MilieuEngine

/// `milieu-bench engine`: the engine's invalidation scaling, mount cost and teardown cost, in process.
/// `milieu-bench compare`: milieud against Redis over their sockets (scripts/bench).
let usage = """
    usage: milieu-bench engine
           milieu-bench compare --milieud PATH --redis-server PATH --redis-benchmark PATH [options]
           milieu-bench compare --help
    """

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "engine", nil:
    let rows = try EngineBenchmark.run(sizes: [1_000, 10_000, 100_000], writes: 10_000)
    print("style             views   mount(s)  write(µs)  write-all(s)")
    for row in rows {
        print(
            row.style.rawValue.padding(toLength: 16, withPad: " ", startingAt: 0),
            String(row.views).leftPadded(7), String(format: "%9.3f", row.mountSeconds),
            String(format: "%10.2f", row.writeMicros), String(format: "%12.3f", row.broadcastSeconds))
    }
    print("\nclosing a connection that mounted N views, beside N of another connection")
    print("  views   close(s)")
    for row in try TeardownBenchmark.run(sizes: [40_000, 80_000]) {
        print(String(row.views).leftPadded(7), String(format: "%10.3f", row.closeSeconds))
    }
case "compare":
    let options = Array(arguments.dropFirst())
    if options.contains("--help") || options.contains("-h") {
        print(CompareCommand.usage)
        exit(0)
    }
    do {
        try CompareCommand(arguments: options).run()
    } catch let error as BenchError {
        FileHandle.standardError.write(Data("milieu-bench: \(error)\n".utf8))
        guard case .usage = error else { exit(1) }
        FileHandle.standardError.write(Data("\(CompareCommand.usage)\n".utf8))
        exit(2)
    } catch {
        FileHandle.standardError.write(Data("milieu-bench: \(error)\n".utf8))
        exit(1)
    }
default:
    print(usage)
    exit(2)
}

extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
