import Foundation
import Testing

/// The helper that starts the REPL's test processes (`ChildProcess`).
@Suite struct ChildProcessTests {
    /// A child has its standard input, output and error and no descriptor this process holds:
    /// a tmux server that inherited another test's input pipe kept that test's `milieu` from
    /// ever reading the end of its script.
    @Test func aChildHoldsOnlyItsStandardDescriptors() throws {
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        defer { for end in ends { close(end) } }
        let run = try ChildProcess.run(["/bin/sh", "-c", "ls /proc/$$/fd"], environment: ProcessInfo.processInfo.environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.outputLines.sorted() == ["0", "1", "2"])
    }
}
