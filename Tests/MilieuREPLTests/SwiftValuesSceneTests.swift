import Foundation
import MilieuTestSupport
import Testing

@testable import milieu

/// Swift values at the prompt (issue #28): a `switch` over an enum with associated values in a
/// body, and `vm = Model(count: 7)` in a button, loaded from source and pressed, with the
/// lifecycle and `_printChanges` lines the REPL prints.
@Suite(.serialized)
struct SwiftValuesSceneTests {
    static let modes = """
        import SwiftUI

        enum Mode {
            case idle
            case counting(Int)
        }

        @Observable class Model {
            var count = 0
            init(count: Int = 0) { self.count = count }
        }

        struct Reader: View {
            let model: Model
            var body: some View {
                let _ = Self._printChanges()
                Text("reader \\(model.count)")
            }
        }

        struct Screen: View {
            @State private var vm = Model()
            @State private var mode: Mode = .idle
            var body: some View {
                let _ = Self._printChanges()
                switch mode {
                case .idle: Text("idle")
                case .counting(let n):
                    Text("counting \\(n)")
                    Reader(model: vm)
                }
                Button("start") { mode = .counting(1) }
                Button("reset") { vm = Model(count: 7) }
            }
        }

        #Preview { Screen() }
        """

    @Test func aSwitchCaseMountsItsViewAndAReplacedStateObjectIsDestroyedReplaced() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let file = "\(daemon.directory)/Modes.swift"
        try Self.modes.write(toFile: file, atomically: true, encoding: .utf8)
        let run = try MilieuRun.run([
            "--socket", daemon.socketPath, "-c", "load \(file)", "-c", "watch --lifecycle /App/Screen",
            "-c", "tap /App/Screen start", "-c", "tap /App/Screen reset", "-c", "get /App/Screen.mode",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stdout.contains("not modelled"), "\(run.stdout)")
        let lines = run.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.contains("+ /App/Screen/Reader mounted (condition)".withVersion(4)), "\(run.stdout)")
        #expect(lines.contains("Screen: _mode changed."))
        #expect(lines.contains("Screen: _vm changed.") && lines.contains("Reader: @self changed."))
        #expect(
            lines.contains { $0.hasPrefix("v5  − Model#") && $0.hasSuffix("destroyed (replaced)  owner /App/Screen.vm") }, "\(run.stdout)")
        #expect(run.stdout.hasSuffix("{\n  \"counting\": 1\n}\n"), "\(run.stdout)")
    }
}

extension String {
    /// A notification line as the REPL prints it at version `version`.
    fileprivate func withVersion(_ version: Int) -> String { "v\(version)  " + self }
}
