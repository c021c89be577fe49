import Foundation

/// `perf record -g` attached to a running process, until `stop()`.
struct Profiler {
    private let process: Process

    static let perf = "/usr/bin/perf"

    init(pid: Int32, output: String) throws {
        process = try Tool.start(Self.perf, ["record", "-g", "-p", String(pid), "-o", output], log: output + ".log")
        usleep(300_000)  // perf needs a moment to attach before the load starts
    }

    func stop() throws {
        process.interrupt()
        process.waitUntilExit()
        guard process.terminationStatus == 0 || process.terminationStatus == SIGINT else {
            throw BenchError.process("perf record exited with status \(process.terminationStatus)")
        }
    }
}
