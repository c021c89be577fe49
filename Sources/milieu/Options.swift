import MilieuProtocol
import MilieuTransport

/// milieu's command line.
struct Options {
    var socketPath: String
    var spawn = false
    /// `--ephemeral` with `--spawn`: the daemon started keeps nothing (`milieud --ephemeral`).
    var ephemeral = false
    /// Commands given with -c, run in order instead of reading standard input.
    var commands: [String] = []
    var json = false
    /// `--raw`: a value that is a string prints as its text, without JSON's quotes.
    var raw = false
    /// `--keep-going`: a failing command does not stop the ones after it.
    var keepGoing = false
    /// `--print-changes`: every view's `_printChanges` line, as if each body called it.
    var printChanges = false
    /// `--timeout S`: how long a request may wait for its answer; nil for the default of the mode.
    var timeout: Double?

    /// How long a request waits when no --timeout is given: a script should not hang on a
    /// daemon that stopped answering, a person at the prompt can wait longer.
    static let oneShotTimeout = 5.0
    static let interactiveTimeout = 30.0

    static let usage = """
        usage: milieu [--socket PATH] [--spawn [--ephemeral]] [--json | --raw] [--keep-going] [--print-changes]
                     [--timeout S] [-c COMMAND]...
               milieu inspect [--socket PATH] [--port N]
               milieu watch [--socket PATH] [--json] [--since V] [--lifecycle] [--commits] TARGET...
               milieu monitor [--socket PATH] [--json] [--since V]
               milieu translate FILE.swift...

        Explore and drive milieud, SwiftUI's data flow as a daemon. On a terminal milieu is
        an interactive prompt (type help); with -c, or with commands piped to it, it runs
        them in order and stops at the first that fails. Options such as --socket may come
        before a subcommand or after it (milieu --socket PATH watch theme).

        milieu watch prints the notifications of one watch (key paths, view paths, and with
        --lifecycle every object made and destroyed, with --commits every commit) one a line
        as they come, until Ctrl-C; --since V first replays what changed after version V, from
        the daemon's history. A view path need not be mounted yet: it is shown once it is.

        milieu monitor prints every commit as it happens, as redis-cli MONITOR does: its
        version, the request and the paths it named, the connection that sent it (its client
        name and pid), and how many values, views and objects it changed (watch --commits).

        milieu translate reads SwiftUI source (ObservableObject and @Observable classes, View
        structs, #Preview and @main apps) and prints the scene it makes (types, and the views
        mounted under /App) as JSON; diagnostics go to standard error as the compiler writes
        them (FILE:LINE:COL: warning: ...), and an error makes it exit 1. At the prompt,
        load FILE.swift loads the same scene, and prints the line Self._printChanges() prints
        each time one of its views that calls it re-renders; milieud --scene FILE.swift starts
        with it.

        milieu inspect serves a live page of the daemon on 127.0.0.1 (a free port, or
        --port N) and prints its address, with a token every request must carry: the view
        tree as it re-renders and why, object lifecycles, each view's state, and a form to
        write values and call actions. It runs until Ctrl-C, or until the daemon goes away.

        options:
          --socket PATH   the daemon's socket (default: $MILIEU_SOCKET, else
                          $XDG_RUNTIME_DIR/milieu/milieu.sock, else /tmp/milieu-$UID/milieu.sock)
          --spawn         start milieud in the background if none answers, then connect
          --ephemeral     with --spawn: the daemon it starts keeps nothing on disk
          -c COMMAND      run COMMAND (repeatable) instead of reading commands
          --json          print each result, error and notification as one JSON object a line
          --raw           print a value that is a string as its text, without quotes
                          (get theme.colorScheme prints dark)
          --keep-going    with -c or piped commands, go on after a command fails (the exit
                          status is still 1)
          --print-changes print the line Self._printChanges() would print for every view under
                          /App as it re-renders, whether or not its body calls it (load prints
                          them for the views whose source does)
          --timeout S     how long a request waits for its answer (default 5 s with -c or
                          piped commands, 30 s at the prompt)
          --version       print the version and exit
          --help          print this and exit

        exit status: 0 when every command succeeded (or inspect was stopped), 1 when a
        command failed, 2 for a mistake on the command line, 3 when no daemon answers (or it
        went away under inspect).

        environment: MILIEU_SOCKET; MILIEU_HISTFILE (the history file; /dev/null keeps none;
        default $XDG_STATE_HOME/milieu/history); NO_COLOR turns colour off; MILIEUD is the
        daemon binary --spawn starts.
        """

    /// A command-line mistake, reported in one line with a pointer to --help, and exit status 2.
    struct Mistake: Error {
        let message: String
    }

    /// What the command line asks for: options to run with, the inspector to serve, or text
    /// to print and leave.
    enum Parsed {
        case run(Options)
        case inspect(socketPath: String, port: UInt16)
        case watch(WatchCommand.Parameters)
        /// `milieu translate FILE.swift…`: the scene the files make, printed.
        case translate(files: [String])
        case print(String)
    }

    /// The words that start a command of their own, each with its own options.
    static let subcommands: Set<String> = ["inspect", "translate", "watch", "monitor"]
    /// The options that take the next word as their value, wherever they are given.
    static let optionsWithValues: Set<String> = ["--socket", "--timeout", "-c", "--since", "--port"]

    /// `arguments` with the options given before a subcommand moved after it, as git, etcdctl and
    /// redis-cli take global options on either side: `milieu --socket S watch theme` is `milieu
    /// watch --socket S theme`. An option the subcommand does not take is then its error.
    static func subcommandFirst(_ arguments: [String]) -> [String] {
        var index = 0
        while index < arguments.count, arguments[index].hasPrefix("-") {
            index += optionsWithValues.contains(arguments[index]) ? 2 : 1
        }
        guard index > 0, index < arguments.count, subcommands.contains(arguments[index]) else { return arguments }
        return [arguments[index]] + arguments[..<index] + arguments[(index + 1)...]
    }

    static func parse(_ arguments: [String], environment: [String: String]) throws(Mistake) -> Parsed {
        let arguments = subcommandFirst(arguments)
        if arguments.first == "inspect" { return try parseInspect(arguments.dropFirst(), environment: environment) }
        if arguments.first == "translate" {
            let files = Array(arguments.dropFirst())
            if files.contains("--help") { return .print(usage) }
            guard !files.isEmpty else { throw Mistake(message: "translate needs one or more .swift files") }
            if let option = files.first(where: { $0.hasPrefix("-") }) { throw Mistake(message: "unknown option \(option) for translate") }
            return .translate(files: files)
        }
        if arguments.first == "watch" { return try parseWatch(arguments.dropFirst(), environment: environment) }
        if arguments.first == "monitor" { return try parseWatch(arguments.dropFirst(), environment: environment, monitor: true) }
        var options = Options(socketPath: SocketPath.defaultPath(environment: environment))
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--help", "-h": return .print(usage)
            case "--version": return .print("milieu \(ProtocolInfo.serverVersion) (protocol \(ProtocolInfo.version))")
            case "--socket": options.socketPath = try socketArgument(from: &iterator)
            case "--spawn": options.spawn = true
            case "--ephemeral": options.ephemeral = true
            case "--json": options.json = true
            case "--raw": options.raw = true
            case "--keep-going": options.keepGoing = true
            case "--print-changes": options.printChanges = true
            case "--timeout":
                guard let text = iterator.next(), let seconds = Double(text), seconds > 0, seconds.isFinite else {
                    throw Mistake(message: "--timeout needs a number of seconds, more than 0")
                }
                options.timeout = seconds
            case "-c":
                guard let command = iterator.next() else { throw Mistake(message: "-c needs a command") }
                options.commands.append(command)
            default:
                throw Mistake(message: "unknown option \(argument)")
            }
        }
        if options.ephemeral && !options.spawn {
            throw Mistake(message: "--ephemeral goes with --spawn: it is how the daemon started keeps nothing")
        }
        return .run(options)
    }

    /// The path after `--socket`, in every form of the command line.
    private static func socketArgument(from iterator: inout IndexingIterator<some Collection<String>>) throws(Mistake) -> String {
        guard let path = iterator.next(), !path.isEmpty else { throw Mistake(message: "--socket needs a path") }
        return path
    }

    /// `watch [--socket PATH] [--json] [--since V] [--lifecycle] [--commits] TARGET…`, and
    /// `monitor [--socket PATH] [--json] [--since V]`: a watch of every commit and nothing else.
    private static func parseWatch(
        _ arguments: ArraySlice<String>, environment: [String: String], monitor: Bool = false
    ) throws(Mistake) -> Parsed {
        let command = monitor ? "monitor" : "watch"
        var parameters = WatchCommand.Parameters(socketPath: SocketPath.defaultPath(environment: environment), targets: [])
        parameters.commits = monitor
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--help", "-h": return .print(usage)
            case "--socket": parameters.socketPath = try socketArgument(from: &iterator)
            case "--json": parameters.json = true
            case "--lifecycle" where !monitor: parameters.lifecycle = true
            case "--commits" where !monitor: parameters.commits = true
            case "--since":
                guard let text = iterator.next(), let version = Int(text.hasPrefix("v") ? String(text.dropFirst()) : text), version >= 0
                else {
                    throw Mistake(message: "--since needs a version, such as 12")
                }
                parameters.since = version
            default:
                guard !argument.hasPrefix("-") else { throw Mistake(message: "unknown option \(argument) for \(command)") }
                guard !monitor else {
                    throw Mistake(message: "monitor takes no targets: it shows every commit (watch TARGET… watches some)")
                }
                parameters.targets.append(argument)
            }
        }
        guard !parameters.targets.isEmpty || parameters.lifecycle || parameters.commits else {
            throw Mistake(message: "watch needs a key path or a view path to watch (or --lifecycle, or --commits)")
        }
        return .watch(parameters)
    }

    /// `inspect [--socket PATH] [--port N]`.
    private static func parseInspect(_ arguments: ArraySlice<String>, environment: [String: String]) throws(Mistake) -> Parsed {
        var socketPath = SocketPath.defaultPath(environment: environment)
        var port: UInt16 = 0
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--help", "-h": return .print(usage)
            case "--socket": socketPath = try socketArgument(from: &iterator)
            case "--port":
                guard let text = iterator.next(), let number = UInt16(text), number > 0 else {
                    throw Mistake(message: "--port needs a port number from 1 to 65535")
                }
                port = number
            default:
                throw Mistake(message: "unknown option \(argument) for inspect")
            }
        }
        return .inspect(socketPath: socketPath, port: port)
    }
}

/// The exit statuses milieu documents in its usage.
enum ExitStatus {
    static let success: Int32 = 0
    static let commandFailed: Int32 = 1
    static let usage: Int32 = 2
    static let noDaemon: Int32 = 3
}
