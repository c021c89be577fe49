import MilieuProtocol
import MilieuTransport

/// milieu's command line.
struct Options {
    var socketPath: String
    var spawn = false
    /// Commands given with -c, run in order instead of reading standard input.
    var commands: [String] = []
    var json = false

    static let usage = """
        usage: milieu [--socket PATH] [--spawn] [--json] [-c COMMAND]...

        Explore and drive milieud, SwiftUI's data flow as a daemon. On a terminal milieu is
        an interactive prompt (type help); with -c, or with commands piped to it, it runs
        them in order and stops at the first that fails.

        options:
          --socket PATH   the daemon's socket (default: $MILIEU_SOCKET, else
                          $XDG_RUNTIME_DIR/milieu/milieu.sock, else /tmp/milieu-$UID/milieu.sock)
          --spawn         start milieud in the background if none answers, then connect
          -c COMMAND      run COMMAND (repeatable) instead of reading commands
          --json          print each result, error and notification as one JSON object a line
          --version       print the version and exit
          --help          print this and exit

        exit status: 0 when every command succeeded, 1 when a command failed,
        2 for a mistake on the command line, 3 when no daemon answers.

        environment: MILIEU_SOCKET; MILIEU_HISTFILE (the history file; /dev/null keeps none;
        default $XDG_STATE_HOME/milieu/history); NO_COLOR turns colour off; MILIEUD is the
        daemon binary --spawn starts.
        """

    /// A command-line mistake, reported with the usage and exit status 2.
    struct Mistake: Error {
        let message: String
    }

    /// What the command line asks for: options to run with, or text to print and leave.
    enum Parsed {
        case run(Options)
        case print(String)
    }

    static func parse(_ arguments: [String], environment: [String: String]) throws(Mistake) -> Parsed {
        var options = Options(socketPath: SocketPath.defaultPath(environment: environment))
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--help", "-h": return .print(usage)
            case "--version": return .print("milieu \(ProtocolInfo.serverVersion) (protocol \(ProtocolInfo.version))")
            case "--socket":
                guard let path = iterator.next(), !path.isEmpty else { throw Mistake(message: "--socket needs a path") }
                options.socketPath = path
            case "--spawn": options.spawn = true
            case "--json": options.json = true
            case "-c":
                guard let command = iterator.next() else { throw Mistake(message: "-c needs a command") }
                options.commands.append(command)
            default:
                throw Mistake(message: "unknown option \(argument)")
            }
        }
        return .run(options)
    }
}

/// The exit statuses milieu documents in its usage.
enum ExitStatus {
    static let success: Int32 = 0
    static let commandFailed: Int32 = 1
    static let usage: Int32 = 2
    static let noDaemon: Int32 = 3
}
