import Glibc
import MilieuEngine
import MilieuJSON
import MilieuProtocol
import MilieuServer
import MilieuStore
import MilieuTransport

/// A command-line mistake: the message, then the synopsis, and exit status 2.
struct UsageError: Error { let message: String }

/// One option of `milieud`: its spelling, its value's placeholder, what it does, and how it
/// changes the configuration. The table drives parsing, `--help` and the synopsis alike.
struct Option: Sendable {
    let name: String
    /// The value's placeholder (`PATH`); nil for a flag.
    let value: String?
    let help: String
    let apply: @Sendable (inout ServerConfiguration, String) throws -> Void

    /// `--socket PATH`
    var spelled: String { value.map { "\(name) \($0)" } ?? name }
}

/// What the command line asks for.
enum Invocation {
    case serve(ServerConfiguration)
    case help
    case version
}

enum Options {
    static let table: [Option] = [
        Option(
            name: "--socket", value: "PATH",
            help: "the socket (default: $MILIEU_SOCKET, else $XDG_RUNTIME_DIR/milieu/milieu.sock, else /tmp/milieu-$UID/milieu.sock)"
        ) { $0.socketPath = $1 },
        Option(
            name: "--scene", value: "FILE",
            help: "load another start-up tree, types and environment keys from a JSON scene file, or from SwiftUI source (FILE.swift)"
        ) {
            $0.scene = try scene(at: $1)
        },
        Option(name: "--max-line", value: "BYTES", help: "the longest line a client may send (default 1048576)") {
            $0.maxLineBytes = try positive($1, "--max-line")
        },
        Option(name: "--max-connections", value: "N", help: "connections served at once (default 4096)") {
            $0.maxConnections = try positive($1, "--max-connections")
        },
        Option(
            name: "--output-limit", value: "HARD,SOFT,SECONDS",
            help: "drop a client whose unsent output passes HARD bytes, or stays over SOFT bytes for SECONDS "
                + "(default 33554432,8388608,10)"
        ) { configuration, text in
            // The bytes are read as whole numbers: a Double past Int.max would trap on conversion.
            let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count == 3, let hard = Int(parts[0]), let soft = Int(parts[1]), let seconds = Double(parts[2]),
                hard > 0, soft > 0, seconds > 0, seconds.isFinite, soft <= hard
            else {
                throw UsageError(message: "--output-limit is HARD,SOFT,SECONDS with SOFT <= HARD, not \(text)")
            }
            configuration.outputLimits.hard = hard
            configuration.outputLimits.soft = soft
            configuration.outputLimits.softSeconds = seconds
        },
        Option(
            name: "--output-budget", value: "BYTES",
            help: "the unsent output of all clients together; past it the client with the most is dropped (default 536870912)"
        ) { $0.outputLimits.budget = try positive($1, "--output-budget") },
        Option(
            name: "--input-budget", value: "BYTES",
            help: "the unfinished lines of all clients together; past it the client with the largest is closed (default 268435456)"
        ) { $0.maxBufferedInputBytes = try positive($1, "--input-budget") },
        Option(
            name: "--line-timeout", value: "SECONDS",
            help: "how long a line may stay unfinished before its connection is closed (default 30)"
        ) { $0.incompleteLineSeconds = try positive($1, "--line-timeout") },
        Option(name: "--history", value: "N", help: "versions kept for resumable watches (default 10000)") {
            $0.historyLength = try positive($1, "--history")
        },
        Option(
            name: "--history-bytes", value: "BYTES",
            help: "bytes of log records kept for resumable watches, across restarts (default 67108864)"
        ) { $0.historyBytes = try positive($1, "--history-bytes") },
        Option(
            name: "--data-dir", value: "DIR",
            help: "where state survives restarts (default $XDG_STATE_HOME/milieu, else ~/.local/state/milieu)"
        ) { $0.dataDirectory = $1 },
        Option(name: "--ephemeral", value: nil, help: "keep nothing across restarts") { configuration, _ in
            configuration.dataDirectory = nil
        },
        Option(
            name: "--fsync", value: "MODE",
            help: "when the log is synced: always (before each answer: power loss loses nothing acknowledged), "
                + "everysec (once a second: power loss may lose about the last second) or no (default everysec); "
                + "kill -9 loses nothing acknowledged in any mode"
        ) { configuration, mode in
            guard let policy = FsyncPolicy(rawValue: mode) else {
                throw UsageError(message: "--fsync is always, everysec or no, not \(mode)")
            }
            configuration.fsync = policy
        },
        Option(
            name: "--recover", value: nil,
            help: "start from a damaged store: keep what is intact (the snapshot and the log up to the damage), "
                + "say what was lost, and drop it"
        ) { configuration, _ in configuration.recover = true },
        Option(name: "--log-level", value: "LEVEL", help: "debug, info, warning or error (default info)") { configuration, name in
            guard let level = Logger.Level(name: name) else {
                throw UsageError(message: "--log-level is debug, info, warning or error, not \(name)")
            }
            configuration.logger.level = level
        },
    ]

    /// `--help` and `--version`, which end parsing.
    static let terminal: [(name: String, help: String)] = [
        ("--version", "print the version and exit"), ("--help", "print this and exit"),
    ]

    /// Every option in brackets, wrapped at 90 columns: the first lines of `--help`.
    static var synopsis: String {
        var lines = ["usage: milieud"]
        for word in table.map({ "[\($0.spelled)]" }) + ["| --version | --help"] {
            if lines[lines.count - 1].count + 1 + word.count > 90 { lines.append(String(repeating: " ", count: 14)) }
            lines[lines.count - 1] += (lines[lines.count - 1].hasSuffix(" ") ? "" : " ") + word
        }
        return lines.joined(separator: "\n")
    }

    /// The whole `--help` text.
    static var usage: String {
        let column = 22
        /// `spelled` and then `help`, wrapped at 90 columns in the help column; a long spelling
        /// puts the help on the next line.
        func line(_ spelled: String, _ help: String) -> String {
            var lines: [String] = []
            var current = "  " + spelled
            if current.count >= column - 1 {
                lines.append(current)
                current = ""
            }
            for word in help.split(separator: " ") {
                if current.count < column { current += String(repeating: " ", count: column - current.count) }
                if current.count > column, current.count + 1 + word.count > 90 {
                    lines.append(current)
                    current = String(repeating: " ", count: column)
                }
                current += (current.count > column ? " " : "") + word
            }
            lines.append(current)
            return lines.joined(separator: "\n")
        }
        return """
            \(synopsis)

            Serves SwiftUI's data flow over newline-delimited JSON-RPC 2.0 on a Unix socket.
            With no options it starts on the embedded default: /App owns session, theme and
            login and provides them to the whole tree.

            options:

            """
                + (table.map { line($0.spelled, $0.help) } + terminal.map { line($0.name, $0.help) }).joined(separator: "\n")
                    + """


                    Under systemd, a socket passed by socket activation (LISTEN_FDS) is used instead of
                    --socket, and READY=1 / STOPPING=1 go to NOTIFY_SOCKET.
                    """
    }

    static func parse(_ arguments: [String], environment: [String: String]) throws -> Invocation {
        var configuration = ServerConfiguration(
            socketPath: SocketPath.defaultPath(environment: environment),
            dataDirectory: ServerConfiguration.defaultDataDirectory(environment: environment))
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--help", "-h": return .help
            case "--version": return .version
            default: break
            }
            guard let option = table.first(where: { $0.name == argument }) else {
                throw UsageError(message: "unknown option \(argument)")
            }
            var value = ""
            if option.value != nil {
                guard let next = iterator.next() else { throw UsageError(message: "\(argument) needs a value") }
                value = next
            }
            try option.apply(&configuration, value)
        }
        return .serve(configuration)
    }

    private static func positive(_ text: String, _ option: String) throws -> Int {
        guard let n = Int(text), n > 0 else { throw UsageError(message: "\(option) takes a positive whole number, not \(text)") }
        return n
    }

    private static func scene(at path: String) throws -> Scene {
        if path.hasSuffix(".swift") { return try swiftScene(at: path) }
        guard let data = ProcessEnvironment.contents(ofFile: path) else {
            throw UsageError(message: "cannot read the scene file \(path)")
        }
        let file: SceneFile
        do {
            file = try SceneFile(text: [UInt8](data))
        } catch {
            throw UsageError(message: "the scene \(path): \(error.reason)")
        }
        do {
            return try Scene(file: file)
        } catch {
            throw UsageError(message: "the scene \(path) is not valid: \(error)")
        }
    }

    /// SwiftUI source as the scene: `milieu translate FILE.swift` (beside this binary, or
    /// `$MILIEU`) writes it, in a process of its own, so that the daemon never loads the parser;
    /// its roots are mounted under the default `/App`. Its diagnostics go to standard error.
    private static func swiftScene(at path: String) throws -> Scene {
        let environment = ProcessEnvironment.current
        let translator = environment["MILIEU"] ?? siblingExecutable("milieu")
        guard access(translator, X_OK) == 0 else {
            throw UsageError(message: "a Swift scene is translated by milieu, which is not at \(translator); set MILIEU to it")
        }
        let (status, output) = try run(translator, ["translate", path])
        guard status == 0 else { throw UsageError(message: "\(path) cannot be loaded: milieu translate says why above") }
        do {
            guard case .object(var scene) = try JSON(parsing: output) else { throw UsageError(message: "no scene from \(path)") }
            scene["app"] = Scene.defaultJSON["app"]
            return try Scene(json: .object(scene))
        } catch let error as UsageError {
            throw error
        } catch {
            throw UsageError(message: "the scene from \(path) is not valid: \(error)")
        }
    }

    /// `name` in this executable's directory.
    private static func siblingExecutable(_ name: String) -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return name }
        let executable = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return String(executable[..<(executable.lastIndex(of: "/") ?? executable.startIndex)]) + "/" + name
    }

    /// Runs `executable` with `arguments`, its standard error left to ours: its exit status and output.
    private static func run(_ executable: String, _ arguments: [String]) throws -> (Int32, [UInt8]) {
        var pipe: [Int32] = [0, 0]
        guard Glibc.pipe(&pipe) == 0 else { throw UsageError(message: "cannot make a pipe for milieu translate") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipe[1], STDOUT_FILENO)
        posix_spawn_file_actions_addclose(&actions, pipe[0])
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        close(pipe[1])
        guard spawned == 0 else {
            close(pipe[0])
            throw UsageError(message: "cannot run \(executable): \(String(cString: strerror(spawned)))")
        }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(pipe[0], &chunk, chunk.count)
            if count > 0 {
                output += chunk[..<count]
            } else if count == 0 || errno != EINTR {
                break
            }
        }
        close(pipe[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return ((status >> 8) & 0xff, output)
    }
}
