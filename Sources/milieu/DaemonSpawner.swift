import Foundation
import MilieuClient

/// Starts milieud in the background for `--spawn`: in its own session, so that Ctrl-C at
/// milieu's prompt and the terminal closing leave it running; its log goes to a file.
enum DaemonSpawner {
    /// The daemon binary: $MILIEUD, else milieud beside this executable, else milieud on PATH;
    /// nil when there is none.
    static func binary(environment: [String: String]) -> String? {
        if let path = environment["MILIEUD"], !path.isEmpty { return path }
        let beside = besideThisExecutable
        if FileManager.default.isExecutableFile(atPath: beside) { return beside }
        let directories = (environment["PATH"] ?? "").split(separator: ":")
        return directories.map { "\($0)/milieud" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    private static var besideThisExecutable: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("milieud").path
    }

    /// Starts the daemon on `socketPath` and waits until it answers; returns a sentence
    /// saying what was started, or throws one saying why not.
    static func spawn(socketPath: String, ephemeral: Bool = false, environment: [String: String]) throws(MilieuClientError) -> String {
        guard let binary = binary(environment: environment) else {
            // `swift run milieu` builds milieu alone: the likeliest way to get here.
            throw MilieuClientError(
                .systemError,
                "cannot start milieud: there is none beside milieu (\(besideThisExecutable)) or on PATH. Build it with "
                    + "`swift build --product milieud` (or `./scripts/daemon`), or name one with MILIEUD=/path/to/milieud")
        }
        let log = logPath(socketPath: socketPath)
        var attributes = posix_spawnattr_t()
        var actions = posix_spawn_file_actions_t()
        posix_spawnattr_init(&attributes)
        posix_spawn_file_actions_init(&actions)
        defer {
            posix_spawnattr_destroy(&attributes)
            posix_spawn_file_actions_destroy(&actions)
        }
        // POSIX_SPAWN_SETSID (glibc ≥ 2.26), which Swift does not see: glibc defines it only under _GNU_SOURCE.
        posix_spawnattr_setflags(&attributes, 0x80)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let arguments = [binary, "--socket", socketPath] + (ephemeral ? ["--ephemeral"] : [])
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        var envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let status = posix_spawnp(&pid, binary, &actions, &attributes, &argv, &envp)
        guard status == 0 else {
            throw MilieuClientError(.systemError, "cannot start \(binary): \(String(cString: strerror(status)))")
        }
        for _ in 0..<500 {
            if (try? MilieuClient(socketPath: socketPath)) != nil {
                return "started milieud (pid \(pid)) at \(socketPath); its log is \(log)"
            }
            var exitStatus: Int32 = 0
            if waitpid(pid, &exitStatus, WNOHANG) == pid {
                throw MilieuClientError(.notListening, "milieud exited at once; see its log, \(log)")
            }
            usleep(10_000)
        }
        throw MilieuClientError(.timedOut, "milieud (pid \(pid)) did not answer at \(socketPath) within 5 s; see \(log)")
    }

    /// Beside the socket when its directory is writable, else in /tmp.
    private static func logPath(socketPath: String) -> String {
        let directory = URL(fileURLWithPath: socketPath).deletingLastPathComponent().path
        let candidate = "\(directory)/milieud.log"
        return FileManager.default.isWritableFile(atPath: directory) ? candidate : "/tmp/milieud-\(getuid()).log"
    }
}
