import Glibc

/// Makes sure the directory a socket goes in exists and belongs to us.
enum SocketDirectory {
    /// Creates the parent directory of `socketPath` like `mkdir -p` (only the last
    /// component, if we create it, is 0700) and refuses one owned by another user.
    /// Root-owned directories such as /tmp or /run are accepted.
    static func prepare(forSocketAt socketPath: String) throws {
        guard let slash = socketPath.lastIndex(of: "/") else { return }
        let directory = slash == socketPath.startIndex ? "/" : String(socketPath[..<slash])
        var status = stat()
        if stat(directory, &status) != 0 {
            let code = errno
            guard code == ENOENT else { throw TransportError.systemCall("stat", errno: code, path: directory) }
            try makeDirectories(directory)
            guard stat(directory, &status) == 0 else {
                throw TransportError.systemCall("stat", errno: errno, path: directory)
            }
        }
        guard status.st_mode & S_IFMT == S_IFDIR else {
            throw TransportError.systemCall("stat", errno: ENOTDIR, path: directory)
        }
        let uid = getuid()
        guard status.st_uid == uid || status.st_uid == 0 else {
            throw TransportError(
                .directoryNotOwned, path: directory,
                detail:
                    "\(directory) belongs to uid \(status.st_uid), not to uid \(uid); milieud will not put its socket there (remove it or choose another --socket path)"
            )
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
