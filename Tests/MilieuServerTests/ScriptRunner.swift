import Foundation
import MilieuTestSupport

/// Runs the project's scripts and other programs (`sqlite3`, `prlimit`) to their end, from the
/// package's root: for the tests of what `scripts/` does, and tests that need such a tool.
enum ScriptRunner {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized

    /// Runs `arguments` through /usr/bin/env with `environment` added; its exit status, standard
    /// output and standard error.
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> (Int32, String, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.currentDirectoryURL = root
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, given in given }
        let (out, err) = (Pipe(), Pipe())
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output, errors)
    }

    /// Runs `statement` with the `sqlite3` shell on the database at `path`; what it printed.
    /// Throws if the shell failed.
    static func sqlite(_ path: String, _ statement: String) throws -> String {
        let (status, output, errors) = try run(["sqlite3", path, statement])
        guard status == 0 else { throw TestFailure("sqlite3 \(path) \"\(statement)\" failed (\(status)): \(errors)") }
        return output
    }
}
