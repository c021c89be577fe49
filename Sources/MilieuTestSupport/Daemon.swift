import Foundation
import MilieuTransport

/// A real milieud process on a socket in a fresh temporary directory, for integration tests.
/// Stopped (SIGTERM, then SIGKILL) and its directory removed when `stop()` is called.
public final class Daemon: @unchecked Sendable {
    public let directory: String
    public let socketPath: String
    public let process: Process
    private let stderrPipe = Pipe()

    /// The milieud binary under test: $MILIEUD, else the one built beside the test bundle.
    public static var binary: String {
        if let path = ProcessInfo.processInfo.environment["MILIEUD"], !path.isEmpty { return path }
        let testBundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for directory in [testBundle, testBundle.deletingLastPathComponent()] {
            let candidate = directory.appendingPathComponent("milieud").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return ".build/debug/milieud"
    }

    /// A fresh temporary directory under /tmp whose path is short enough for a socket.
    public static func makeDirectory() throws -> String {
        var template = Array("/tmp/milieu-test-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestFailure("mkdtemp failed") }
        return String(cString: made)
    }

    /// Starts milieud with `arguments` on `socketPath` (default: `<directory>/milieu.sock`) and
    /// waits until it accepts connections.
    public init(
        arguments: [String] = [], socketPath: String? = nil, environment: [String: String] = [:], wait: Bool = true
    )
        throws
    {
        directory = try Self.makeDirectory()
        self.socketPath = socketPath ?? "\(directory)/milieu.sock"
        process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        // Each test daemon keeps nothing, unless the test asks for a data directory.
        let persistence = arguments.contains("--data-dir") ? [] : ["--ephemeral"]
        process.arguments = ["--socket", self.socketPath] + persistence + arguments
        var env = ProcessInfo.processInfo.environment
        env["MILIEU_SOCKET"] = nil
        for (key, value) in environment { env[key] = value }
        process.environment = env
        process.standardError = stderrPipe
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        if wait { try waitUntilReady() }
    }

    /// Polls until a connection succeeds, or fails after `timeout` seconds.
    public func waitUntilReady(timeout: Double = 10) throws {
        let deadline = Date.now.addingTimeInterval(timeout)
        while Date.now < deadline {
            if let fd = try? UnixSocket.connect(path: socketPath) {
                close(fd)
                return
            }
            guard process.isRunning else { throw TestFailure("milieud exited with \(process.terminationStatus): \(stderrText())") }
            usleep(5_000)
        }
        throw TestFailure("milieud did not start within \(timeout) s: \(stderrText())")
    }

    public func connect() throws -> LineClient { try LineClient(path: socketPath) }

    /// Sends `signal` and waits for the process to exit; returns its exit status.
    @discardableResult
    public func terminate(signal: Int32 = SIGTERM, timeout: Double = 10) -> Int32 {
        if process.isRunning { kill(process.processIdentifier, signal) }
        return waitForExit(timeout: timeout)
    }

    public func waitForExit(timeout: Double = 10) -> Int32 {
        let deadline = Date.now.addingTimeInterval(timeout)
        while process.isRunning, Date.now < deadline { usleep(5_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        return process.terminationStatus
    }

    /// Everything the daemon wrote to stderr so far (call after it exited for all of it).
    public func stderrText() -> String {
        if process.isRunning { return "" }
        return String(decoding: stderrPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    /// Stops the daemon and removes its directory.
    public func stop() {
        terminate()
        try? FileManager.default.removeItem(atPath: directory)
    }

    deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
}

/// A failure in test setup, with a message that says what went wrong.
public struct TestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
