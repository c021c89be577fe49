import Foundation
import MilieuClient
import MilieuInspector
import MilieuProtocol
import MilieuTransport

/// `milieu inspect`: starts the inspector, prints its address on stdout (one line, written at
/// once, so a script can read it), and maps how it ended to milieu's exit statuses.
enum InspectCommand {
    static func run(socketPath: String, port: UInt16) -> Int32 {
        let inspector: Inspector
        do {
            inspector = try Inspector(socketPath: socketPath, port: port)
        } catch let error as MilieuClientError where error.code == .notListening {
            return fail(
                "milieu inspect: no milieud is answering at \(socketPath) (start one: milieud --socket \(socketPath) &)",
                ExitStatus.noDaemon)
        } catch let error as MilieuClientError {
            return fail("milieu inspect: \(error.message)", ExitStatus.noDaemon)
        } catch {
            return fail("milieu inspect: \(error)", ExitStatus.commandFailed)
        }
        FileHandle.standardOutput.write(Data("\(inspector.url)\n".utf8))
        note("milieu inspect: serving milieud at \(socketPath); open the address above. Ctrl-C stops it.")
        do {
            switch try inspector.run() {
            case .stopped: return ExitStatus.success
            case .daemonGone(let message): return fail("milieu inspect: \(message); stopping", ExitStatus.noDaemon)
            }
        } catch {
            return fail("milieu inspect: \(error)", ExitStatus.commandFailed)
        }
    }

    private static func fail(_ message: String, _ status: Int32) -> Int32 {
        note(message)
        return status
    }

    private static func note(_ line: String) {
        FileHandle.standardError.write(Data("\(line)\n".utf8))
    }
}
