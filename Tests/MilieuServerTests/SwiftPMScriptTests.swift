import Foundation
import MilieuTestSupport
import Testing

/// `scripts/swiftpm`, through which every script runs SwiftPM: it runs `swift` again only when
/// SwiftPM itself died of a crash (swiftlang/swift#87033), never when the build or a test failed.
/// A stand-in `swift` on PATH counts its runs and crashes (SIGSEGV) on the first `crashes`.
@Suite struct SwiftPMScriptTests {
    private static let standIn = """
        #!/usr/bin/env bash
        runs=$(( $(cat "$RUNS" 2>/dev/null || echo 0) + 1 ))
        echo "$runs" > "$RUNS"
        echo "swift $* (run $runs)"
        if (( runs <= CRASHES )); then kill -SEGV $$; fi
        exit "$STATUS"
        """

    /// Runs `scripts/swiftpm build --show-bin-path` over the stand-in; its exit status, output,
    /// errors and how many times it ran `swift`.
    private func run(crashes: Int, status: Int32) throws -> (Int32, String, String, Int) {
        let directory = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let swift = "\(directory)/swift"
        try Self.standIn.write(toFile: swift, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: swift)
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let environment = [
            "PATH": "\(directory):\(path)", "RUNS": "\(directory)/runs", "CRASHES": "\(crashes)", "STATUS": "\(status)",
        ]
        let (exit, output, errors) = try ScriptRunner.run(["scripts/swiftpm", "build", "--show-bin-path"], environment: environment)
        let counted = try String(contentsOfFile: "\(directory)/runs", encoding: .utf8)
        let runs = Int(counted.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        return (exit, output, errors, runs)
    }

    @Test func aCrashOfSwiftPMRunsItAgainWithTheSameArguments() throws {
        let (exit, output, errors, runs) = try run(crashes: 1, status: 0)
        #expect(exit == 0)
        #expect(runs == 2)
        #expect(output.contains("swift build --show-bin-path (run 2)"))
        #expect(errors.contains("SwiftPM crashed (signal 11)") && errors.contains("swiftlang/swift#87033"), "\(errors)")
    }

    @Test func aFailedBuildOrTestIsNotRunAgain() throws {
        let (exit, _, errors, runs) = try run(crashes: 0, status: 1)
        #expect(exit == 1)
        #expect(runs == 1)
        #expect(!errors.contains("SwiftPM crashed"))
    }

    @Test func aCrashEveryTimeEndsAfterThreeRunsWithTheCrashsStatus() throws {
        let (exit, _, _, runs) = try run(crashes: 9, status: 0)
        #expect(exit == 139)
        #expect(runs == 3)
    }
}
