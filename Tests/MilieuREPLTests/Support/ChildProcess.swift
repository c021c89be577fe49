import Foundation
import MilieuTestSupport

/// Runs a program to its end, as a shell would: with no signal blocked and every handler
/// at its default. Tests run on threads that block most signals, and a child inherits
/// that mask; a tmux server started that way never hears SIGCHLD, so it never sees its
/// pane's process exit.
///
/// The child gets standard input, output and error and no other descriptor. Tests run in
/// parallel, and a tmux server that inherited the write end of another test's input pipe
/// kept it open for as long as it lived: that test's `milieu` never read the end of its
/// script, and the suite hung.
enum ChildProcess {
    struct Output {
        let status: Int32
        let stdout: String
        let stderr: String

        var outputLines: [String] { stdout.split(separator: "\n").map(String.init) }
    }

    /// Runs `arguments` with `input` on its standard input, in `directory` (this process's when nil).
    static func run(_ arguments: [String], input: String = "", environment: [String: String], directory: String? = nil) throws -> Output {
        // Glibc's module does not bring posix_spawn_file_actions_addchdir_np; a shell changes directory first.
        let arguments = directory.map { [#"/bin/sh"#, "-c", #"cd "$0" && exec "$@""#, $0] + arguments } ?? arguments
        var attributes = posix_spawnattr_t()
        var actions = posix_spawn_file_actions_t()
        posix_spawnattr_init(&attributes)
        posix_spawn_file_actions_init(&actions)
        defer {
            posix_spawnattr_destroy(&attributes)
            posix_spawn_file_actions_destroy(&actions)
        }
        var empty = sigset_t()
        var all = sigset_t()
        sigemptyset(&empty)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let pipes = try (0..<3).map { _ in try makePipe() }
        posix_spawn_file_actions_adddup2(&actions, pipes[0].read, 0)
        posix_spawn_file_actions_adddup2(&actions, pipes[1].write, 1)
        posix_spawn_file_actions_adddup2(&actions, pipes[2].write, 2)
        guard closeFrom(&actions, 3) == 0 else { throw TestFailure("posix_spawn_file_actions_addclosefrom_np failed") }
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        var envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, arguments[0], &actions, &attributes, &argv, &envp)
        close(pipes[0].read)
        close(pipes[1].write)
        close(pipes[2].write)
        guard spawned == 0 else {
            for fd in [pipes[0].write, pipes[1].read, pipes[2].read] { close(fd) }
            throw TestFailure("cannot start \(arguments[0]): \(String(cString: strerror(spawned)))")
        }
        _ = input.withCString { write(pipes[0].write, $0, strlen($0)) }
        close(pipes[0].write)
        let (stdout, stderr) = readBoth(pipes[1].read, pipes[2].read)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let exitStatus = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return Output(status: exitStatus, stdout: stdout, stderr: stderr)
    }

    /// The environment of this process, less `removed`, plus `added`.
    static func environment(removing removed: [String], adding added: [String: String]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for key in removed { environment[key] = nil }
        for (key, value) in added { environment[key] = value }
        return environment
    }

    /// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34), which Glibc's module does not
    /// bring: every descriptor from the given one up is closed in the child.
    private static let closeFrom: @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32 = {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addclosefrom_np") else {
            fatalError("this C library has no posix_spawn_file_actions_addclosefrom_np (glibc 2.34 or later)")
        }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()

    private static func makePipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw TestFailure("pipe failed") }
        return (ends[0], ends[1])
    }

    /// Reads two pipes to their ends at once, so that neither fills up and stalls the child.
    private static func readBoth(_ first: Int32, _ second: Int32) -> (String, String) {
        var data: [Int32: [UInt8]] = [first: [], second: []]
        var open = [first, second]
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !open.isEmpty {
            var descriptors = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&descriptors, nfds_t(descriptors.count), -1) >= 0 || errno == EINTR else { break }
            for descriptor in descriptors where descriptor.revents != 0 {
                let count = read(descriptor.fd, &buffer, buffer.count)
                if count > 0 {
                    data[descriptor.fd, default: []] += buffer[..<count]
                } else if count == 0 || errno != EINTR {
                    close(descriptor.fd)
                    open.removeAll { $0 == descriptor.fd }
                }
            }
        }
        return (String(decoding: data[first] ?? [], as: UTF8.self), String(decoding: data[second] ?? [], as: UTF8.self))
    }
}
