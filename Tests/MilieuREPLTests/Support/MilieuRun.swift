import Foundation
import MilieuTestSupport

/// The milieu binary under test, and runs of it without a terminal (script mode).
enum MilieuRun {
    /// $MILIEU, else the milieu built beside the test bundle.
    static var binary: String {
        if let path = ProcessInfo.processInfo.environment["MILIEU"], !path.isEmpty { return path }
        let testBundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for directory in [testBundle, testBundle.deletingLastPathComponent()] {
            let candidate = directory.appendingPathComponent("milieu").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return ".build/debug/milieu"
    }

    /// Runs milieu with `arguments`, feeding it `input` on standard input (a pipe, so never
    /// a terminal), in `directory`, and waits for it to exit.
    static func run(
        _ arguments: [String], input: String = "", environment: [String: String] = [:], directory: String? = nil
    ) throws -> ChildProcess.Output {
        let env = ChildProcess.environment(removing: ["NO_COLOR", "MILIEU_SOCKET", "MILIEU_HISTFILE"], adding: environment)
        return try ChildProcess.run([binary] + arguments, input: input, environment: env, directory: directory)
    }
}
