/// Runs commands without a prompt: those given with -c, or lines read from standard input
/// when it is not a terminal. Each result is printed, then the notifications the command
/// caused; the first command that fails stops the run with exit status 1.
struct ScriptRunner {
    let shell: Shell
    let console: Console

    /// Runs `commands`, or the lines of standard input when there are none.
    func run(commands: [String]) -> Int32 {
        if !commands.isEmpty {
            for command in commands {
                if let status = runLine(command) { return status }
            }
            return ExitStatus.success
        }
        while let line = readLine(strippingNewline: true) {
            if let status = runLine(line) { return status }
        }
        return ExitStatus.success
    }

    /// Runs one line; a status when the run should stop here.
    private func runLine(_ line: String) -> Int32? {
        guard let outcome = shell.run(line) else { return nil }
        console.show(outcome)
        console.show(shell.link.takeNotifications(sync: true), watches: shell.link.watches)
        switch outcome {
        case .success: return nil
        case .failure: return ExitStatus.commandFailed
        case .quit: return ExitStatus.success
        }
    }
}
