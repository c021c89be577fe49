import Foundation
import MilieuClient

/// From the command line to a running REPL or script: options, colour, the first
/// connection (starting a daemon for --spawn), then the mode.
enum Launch {
    static func run(arguments: [String]) -> Int32 {
        // A parent may leave signals blocked (test runners' threads do); Ctrl-C and window
        // changes must arrive.
        var none = sigset_t()
        sigemptyset(&none)
        sigprocmask(SIG_SETMASK, &none, nil)
        let environment = ProcessInfo.processInfo.environment
        let options: Options
        do {
            switch try Options.parse(arguments, environment: environment) {
            case .run(let parsed): options = parsed
            case .inspect(let socketPath, let port): return InspectCommand.run(socketPath: socketPath, port: port)
            case .watch(let parameters): return WatchCommand.run(parameters, environment: environment)
            case .translate(let files): return TranslateCommand.run(files: files)
            case .print(let text):
                print(text)
                return ExitStatus.success
            }
        } catch {
            FileHandle.standardError.write(Data("milieu: \(error.message); milieu --help lists the options\n".utf8))
            return ExitStatus.usage
        }

        let interactive = options.commands.isEmpty && isatty(STDIN_FILENO) == 1
        let console = Console(
            json: options.json, style: Style.forStream(STDOUT_FILENO, environment: environment),
            errorStyle: Style.forStream(STDERR_FILENO, environment: environment))
        let timeout = options.timeout ?? (interactive ? Options.interactiveTimeout : Options.oneShotTimeout)
        let link = Link(socketPath: options.socketPath, requestTimeout: timeout, printsEveryChange: options.printChanges)
        if let failure = connect(link, options: options, console: console, environment: environment) {
            if let error = failure as? MilieuClientError, error.code == .notListening {
                console.status(
                    ConnectionMessages.noDaemon(socketPath: options.socketPath, interactive: interactive, style: console.errorStyle))
            } else {
                console.status(console.errorStyle.boldRed("milieu: \(failure)"))
            }
            if !interactive { return ExitStatus.noDaemon }
        } else if options.printChanges {
            do {
                try link.showPrintChanges(of: ["/App"])
            } catch {
                console.status(console.errorStyle.boldRed("milieu: \(error)"))
                return ExitStatus.commandFailed
            }
        }

        let shell = Shell(link: link, style: console.style, errorStyle: console.errorStyle, oneShot: !interactive, raw: options.raw)
        if interactive { return InteractiveSession(shell: shell, console: console, environment: environment).run() }
        return ScriptRunner(shell: shell, console: console, keepGoing: options.keepGoing).run(commands: options.commands)
    }

    /// Connects, starting a daemon first if asked to and none answers; the failure if any.
    private static func connect(_ link: Link, options: Options, console: Console, environment: [String: String]) -> (any Error)? {
        do {
            try link.connect()
            return nil
        } catch let error as MilieuClientError where error.code == .notListening && options.spawn {
            do {
                console.status(
                    try DaemonSpawner.spawn(socketPath: options.socketPath, ephemeral: options.ephemeral, environment: environment))
                try link.connect()
                return nil
            } catch {
                return error
            }
        } catch {
            return error
        }
    }
}
