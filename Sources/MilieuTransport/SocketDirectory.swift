import Glibc

/// Makes sure the directory a socket goes in exists and only this user (or root) can change it.
enum SocketDirectory {
    /// Creates the parent directory of `socketPath` like `mkdir -p` (only the last component, if
    /// we create it, is 0700), then refuses the path unless `SocketTrust` trusts it to listen on
    /// (SPEC §1.2): the rule the clients apply before they connect.
    static func prepare(forSocketAt socketPath: String) throws {
        if let slash = socketPath.lastIndex(of: "/") {
            let directory = slash == socketPath.startIndex ? "/" : String(socketPath[..<slash])
            var status = stat()
            if stat(directory, &status) != 0 {
                let code = errno
                guard code == ENOENT else { throw TransportError.systemCall("stat", errno: code, path: directory) }
                try makeDirectories(directory)
            }
        }
        if case .failure(let refusal) = SocketTrust.judge(socketPath, for: .listen) {
            throw TransportError(
                .untrustedPath, path: refusal.path, detail: "milieud will not listen at \(socketPath): \(refusal.why); \(SocketTrust.fix)")
        }
    }

    private static func makeDirectories(_ directory: String) throws {
        let components = directory.split(separator: "/", omittingEmptySubsequences: true)
        var prefix = directory.hasPrefix("/") ? "" : "."
        for (index, component) in components.enumerated() {
            prefix += "/" + component
            let isLast = index == components.count - 1
            if mkdir(prefix, isLast ? 0o700 : 0o755) == 0 {
                // Our umask may have taken more than we asked; the last one must be exactly 0700.
                if isLast { try Syscall.call("chmod", path: prefix) { chmod(prefix, 0o700) } }
            } else if errno != EEXIST {
                throw TransportError.systemCall("mkdir", errno: errno, path: prefix)
            }
        }
    }
}
