import Foundation

/// Runs other programs to completion within a deadline: taskset, redis-benchmark,
/// `milieud --help`, perf.
enum Tool {
    struct Output {
        var status: Int32
        var text: String
    }

    /// Runs `executable arguments…` and returns its exit status and stdout; stderr is
    /// kept with stdout. Killed (and an error thrown) after `timeout` seconds.
    static func run(_ executable: String, _ arguments: [String], timeout: Double) throws -> Output {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "milieu-bench-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).out")
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: file) }
        let output = try FileHandle(forWritingTo: file)
        defer { try? output.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let deadline = Date.now.addingTimeInterval(timeout)
        while process.isRunning && Date.now < deadline { usleep(5_000) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            throw BenchError.timedOut("\(executable) \(arguments.joined(separator: " ")) ran over \(timeout) s")
        }
        process.waitUntilExit()
        return Output(status: process.terminationStatus, text: (try? String(contentsOf: file, encoding: .utf8)) ?? "")
    }

    /// Starts `executable arguments…` in the background with output to `log`; the caller
    /// stops it (SIGINT) and waits.
    static func start(_ executable: String, _ arguments: [String], log: String) throws -> Process {
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle(forWritingAtPath: log)
        process.standardError = FileHandle(forWritingAtPath: log)
        try process.run()
        return process
    }
}
