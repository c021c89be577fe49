#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import MilieuEngine
import MilieuJSON
import MilieuProtocol
import MilieuServer
import MilieuStore
import MilieuTransport

/// `milieud`: the Milieu daemon. Parses its options, loads the scene, and serves until stopped.
let usage = """
    usage: milieud [options]

    Serves SwiftUI's data flow over newline-delimited JSON-RPC 2.0 on a Unix socket.
    With no options it starts on the embedded default: /App owns and provides
    session, theme and login.

    options:
      --socket PATH       the socket (default: $MILIEU_SOCKET, else
                          $XDG_RUNTIME_DIR/milieu/milieu.sock, else /tmp/milieu-$UID/milieu.sock)
      --scene FILE        load another start-up tree and types from a JSON scene file
      --max-line BYTES    the longest line a client may send (default 1048576)
      --max-connections N connections served at once (default 4096)
      --output-limit HARD,SOFT,SECONDS
                          drop a client whose unsent output passes HARD bytes, or stays
                          over SOFT bytes for SECONDS (default 33554432,8388608,10)
      --history N         versions kept for resumable watches (default 10000)
      --data-dir DIR      where state survives restarts (default $XDG_STATE_HOME/milieu,
                          else ~/.local/state/milieu)
      --ephemeral         keep nothing across restarts
      --fsync             make every acknowledged change survive power loss (slower);
                          by default it survives the daemon being killed
      --log-level LEVEL   debug, info, warning or error (default info)
      --version           print the version and exit
      --help              print this and exit

    Under systemd, a socket passed by socket activation (LISTEN_FDS) is used instead of
    --socket, and READY=1 / STOPPING=1 go to NOTIFY_SOCKET.
    """

/// A command-line mistake: the message, then exit status 2.
struct UsageError: Error { let message: String }

func parseOptions(_ arguments: [String]) throws -> ServerConfiguration? {
    let environment = ProcessInfo.processInfo.environment
    var configuration = ServerConfiguration(
        socketPath: SocketPath.defaultPath(environment: environment),
        dataDirectory: ServerConfiguration.defaultDataDirectory(environment: environment))
    var iterator = arguments.makeIterator()
    func value(_ option: String) throws -> String {
        guard let next = iterator.next() else { throw UsageError(message: "\(option) needs a value") }
        return next
    }
    func number(_ option: String) throws -> Int {
        let text = try value(option)
        guard let n = Int(text), n > 0 else { throw UsageError(message: "\(option) takes a positive whole number, not \(text)") }
        return n
    }
    while let argument = iterator.next() {
        switch argument {
        case "--help", "-h":
            print(usage)
            return nil
        case "--version":
            print("milieud \(ProtocolInfo.serverVersion) (protocol \(ProtocolInfo.version))")
            return nil
        case "--socket": configuration.socketPath = try value(argument)
        case "--scene":
            let path = try value(argument)
            guard let data = FileManager.default.contents(atPath: path) else {
                throw UsageError(message: "cannot read the scene file \(path)")
            }
            do {
                configuration.scene = try Scene(json: JSON(parsing: [UInt8](data)))
            } catch let error as JSONParseError {
                throw UsageError(message: "the scene \(path) is not valid JSON: \(error)")
            } catch {
                throw UsageError(message: "the scene \(path) is not valid: \(error)")
            }
        case "--max-line": configuration.maxLineBytes = try number(argument)
        case "--history": configuration.historyLength = try number(argument)
        case "--max-connections": configuration.maxConnections = try number(argument)
        case "--output-limit":
            let text = try value(argument)
            let parts = text.split(separator: ",").compactMap { Double($0) }
            guard parts.count == 3, parts.allSatisfy({ $0 > 0 }), parts[1] <= parts[0] else {
                throw UsageError(message: "--output-limit is HARD,SOFT,SECONDS with SOFT <= HARD, not \(text)")
            }
            configuration.outputLimits.hard = Int(parts[0])
            configuration.outputLimits.soft = Int(parts[1])
            configuration.outputLimits.softSeconds = parts[2]
        case "--data-dir": configuration.dataDirectory = try value(argument)
        case "--ephemeral": configuration.dataDirectory = nil
        case "--fsync": configuration.fsync = true
        case "--log-level":
            let name = try value(argument)
            guard let level = Logger.Level(name: name) else {
                throw UsageError(message: "--log-level is debug, info, warning or error, not \(name)")
            }
            configuration.logger.level = level
        default:
            throw UsageError(message: "unknown option \(argument)")
        }
    }
    return configuration
}

func fail(_ message: String, status: Int32) -> Never {
    var bytes = Array("milieud: \(message)\n".utf8)
    _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
    exit(status)
}

do {
    guard let configuration = try parseOptions(Array(CommandLine.arguments.dropFirst())) else { exit(0) }
    let inherited = SystemdActivation.listenFDs()
    let listener = try inherited.first.map { try UnixListener(adopting: $0) } ?? UnixListener(path: configuration.socketPath)
    let loop = try EventLoop()
    let server = try Server(configuration: configuration, loop: loop)
    try server.run(listener: listener)
} catch let error as UsageError {
    fail("\(error.message)\n\(usage)", status: 2)
} catch let error as TransportError {
    fail("\(error)", status: 1)
} catch let error as StoreError {
    fail("\(error)", status: 1)
} catch {
    fail("\(error)", status: 1)
}
