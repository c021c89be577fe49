/// Runs commands without a prompt: those given with -c, or lines read from standard input
/// when it is not a terminal. Each result is printed, then the notifications the command
/// caused; the first command that fails stops the run with exit status 1, or with
/// `keepGoing` the rest run and the status is 1 at the end.
struct ScriptRunner {
    let shell: Shell
    let console: Console
    var keepGoing = false

    /// Runs `commands`, or the lines of standard input when there are none.
    func run(commands: [String]) -> Int32 {
        var failed = false
        var lines = commands.makeIterator()
        var joiner = LineJoiner()
        while let line = commands.isEmpty ? readLine(strippingNewline: true) : lines.next() {
            guard let command = joiner.add(line) else { continue }
            switch runLine(command) {
            case .goOn: continue
            case .failed where keepGoing: failed = true
            case .failed: return ExitStatus.commandFailed
            case .quit: return failed ? ExitStatus.commandFailed : ExitStatus.success
            }
        }
        // Input that ended inside brackets is a command too: run, it says what is wrong.
        if let unfinished = joiner.pending, case .failed = runLine(unfinished) { return ExitStatus.commandFailed }
        return failed ? ExitStatus.commandFailed : ExitStatus.success
    }

    private enum Step { case goOn, failed, quit }

    /// Runs one line: whether it failed, or asked to quit.
    private func runLine(_ line: String) -> Step {
        guard let outcome = shell.run(line) else { return .goOn }
        console.show(outcome)
        console.show(shell.link.takeNotifications(sync: true), watches: shell.link.watches)
        switch outcome {
        case .success: return .goOn
        case .failure: return .failed
        case .quit: return .quit
        }
    }
}
