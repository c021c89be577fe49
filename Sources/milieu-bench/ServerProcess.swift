import Foundation
import MilieuTransport

/// A server under test (milieud or redis-server), started for one measurement in a
/// fresh temporary directory, listening on a Unix socket there, optionally pinned to CPUs.
final class ServerProcess {
    let name: String
    let directory: String
    let socketPath: String
    private let process: Process
    private let logPath: String

    /// Starts `binary arguments…` (under `taskset -c cpus` if given), with `arguments`
    /// built from the socket path and the directory, and waits until the socket accepts.
    /// `homeIsDirectory`: HOME and the XDG directories point into the temporary directory,
    /// so that nothing the server writes by default outlives the measurement.
    init(
        name: String, binary: String, cpus: String?, logFile: String, homeIsDirectory: Bool,
        arguments: (_ socket: String, _ directory: String) -> [String]
    ) throws {
        self.name = name
        var template = Array("/tmp/milieu-bench-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw BenchError.system("mkdtemp", errno) }
        directory = String(cString: made)
        socketPath = "\(directory)/server.sock"
        logPath = "\(directory)/\(logFile)"
        process = Process()
        let command = [binary] + arguments(socketPath, directory)
        if let cpus, let taskset = Pinning.taskset {
            process.executableURL = URL(fileURLWithPath: taskset)
            process.arguments = ["-c", cpus] + command
        } else {
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = Array(command.dropFirst())
        }
        var environment = ProcessInfo.processInfo.environment
        environment["MILIEU_SOCKET"] = nil
        if homeIsDirectory {
            for variable in ["HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR"] {
                environment[variable] = directory
            }
        }
        process.environment = environment
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: logPath)
        process.standardOutput = FileHandle.nullDevice
        do {
            try process.run()
            try waitUntilAccepting(timeout: 10)
        } catch {
            stop()
            throw error
        }
    }

    var pid: Int32 { process.processIdentifier }

    private func waitUntilAccepting(timeout: Double) throws {
        let deadline = Date.now.addingTimeInterval(timeout)
        while Date.now < deadline {
            if let fd = try? UnixSocket.connect(path: socketPath) {
                close(fd)
                return
            }
            guard process.isRunning else {
                throw BenchError.process("\(name) exited with status \(process.terminationStatus) at start: \(logTail())")
            }
            usleep(2_000)
        }
        throw BenchError.timedOut("\(name) did not accept connections within \(timeout) s: \(logTail())")
    }

    /// The resident set size now, from /proc/PID/status (VmRSS), in KiB.
    func residentKiB() throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            if let kib = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.flatMap({ Int($0) }) { return kib }
        }
        throw BenchError.process("no VmRSS in /proc/\(pid)/status")
    }

    /// User plus system CPU seconds of every thread so far, from /proc/PID/stat.
    func cpuSeconds() -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return 0 }
        // After "pid (comm)" come the fields from the third, state; utime and stime are the 14th and 15th.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// SIGTERM, then SIGKILL after 5 s; removes the directory.
    func stop() {
        if process.isRunning {
            kill(pid, SIGTERM)
            let deadline = Date.now.addingTimeInterval(5)
            while process.isRunning && Date.now < deadline { usleep(2_000) }
            if process.isRunning {
                kill(pid, SIGKILL)
                process.waitUntilExit()
            }
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func logTail() -> String {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return String(text.suffix(600))
    }
}

/// CPU pinning with taskset(1), when it is installed.
enum Pinning {
    static let taskset: String? = ["/usr/bin/taskset", "/bin/taskset"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Pins every thread of this process to `cpus` (e.g. "0").
    static func pinSelf(cpus: String) throws {
        guard let taskset else { return }
        let status = try Tool.run(taskset, ["-a", "-cp", cpus, String(getpid())], timeout: 10).status
        guard status == 0 else { throw BenchError.process("taskset -a -cp \(cpus) failed with status \(status)") }
    }
}
