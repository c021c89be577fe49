import Glibc

/// Builds `sockaddr_un` values, refusing paths that do not fit in `sun_path`.
enum UnixAddress {
    /// The longest path a Unix socket address holds: `sun_path` less its terminating NUL.
    static let maximumPathLength: Int = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// Calls `body` with the address of the socket at `path`. A path starting with `@`
    /// names a Linux abstract socket (as `$NOTIFY_SOCKET` may) when `allowAbstract` is set.
    static func withAddress<Result>(
        path: String,
        allowAbstract: Bool = false,
        _ body: (UnsafePointer<sockaddr>, socklen_t) throws -> Result
    ) throws -> Result {
        let abstract = allowAbstract && path.hasPrefix("@")
        var bytes = Array(path.utf8)
        if abstract { bytes[0] = 0 }
        guard !bytes.isEmpty, bytes.count <= maximumPathLength, abstract || !bytes.contains(0) else {
            throw TransportError(
                .pathTooLong, path: path,
                detail: bytes.isEmpty
                    ? "the socket path is empty"
                    : "the socket path \(path) is \(bytes.count) bytes; a Unix socket address holds at most \(maximumPathLength) (choose a shorter --socket path or MILIEU_SOCKET)"
            )
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { sunPath in
            sunPath.copyBytes(from: bytes)
        }
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path) ?? 2
        // An abstract name is exactly its bytes; a filesystem path also counts its NUL.
        let length = socklen_t(pathOffset + bytes.count + (abstract ? 0 : 1))
        return try withUnsafePointer(to: &address) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { try body($0, length) }
        }
    }

    /// The filesystem path a bound Unix socket reports, or nil for unnamed/abstract ones.
    static func boundPath(of fd: Int32) -> String? {
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let result = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard result == 0, address.sun_family == sa_family_t(AF_UNIX) else { return nil }
        return withUnsafeBytes(of: &address.sun_path) { sunPath -> String? in
            guard let first = sunPath.first, first != 0 else { return nil }
            let end = sunPath.firstIndex(of: 0) ?? sunPath.count
            return String(decoding: sunPath[..<end], as: UTF8.self)
        }
    }
}
