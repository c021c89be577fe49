import Glibc

/// Where the daemon listens and clients connect when no `--socket PATH` is given.
public enum SocketPath {
    /// The longest path a Unix socket address can hold (107 bytes on Linux).
    public static var maximumLength: Int { UnixAddress.maximumPathLength }

    /// `$MILIEU_SOCKET` if set, else `$XDG_RUNTIME_DIR/milieu/milieu.sock`, else
    /// `/tmp/milieu-$UID/milieu.sock`. Binding or connecting to a path longer than
    /// `maximumLength` throws `TransportError` with code `.pathTooLong`.
    public static func defaultPath(environment: [String: String] = ProcessEnvironment.current) -> String {
        if let explicit = environment["MILIEU_SOCKET"], !explicit.isEmpty {
            return explicit
        }
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            return runtime.hasSuffix("/") ? "\(runtime)milieu/milieu.sock" : "\(runtime)/milieu/milieu.sock"
        }
        return "/tmp/milieu-\(getuid())/milieu.sock"
    }

    /// Throws `.pathTooLong` if `path` does not fit in a Unix socket address.
    public static func validate(_ path: String) throws {
        try UnixAddress.withAddress(path: path) { _, _ in }
    }
}
