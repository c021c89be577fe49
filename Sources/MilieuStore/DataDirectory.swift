#if canImport(Glibc)
import Glibc
#endif

/// The data directory: created 0700 where missing, the user's own (not another uid's, nor
/// reached through another uid's symlink), and held by one daemon at a time.
enum DataDirectory {
    /// Creates `directory` and its parents where missing and checks who owns it.
    static func prepare(_ directory: String) throws(StoreError) {
        var components: [String] = []
        for part in directory.split(separator: "/") {
            components.append(String(part))
            let path = "/" + components.joined(separator: "/")
            if mkdir(path, 0o700) != 0 && errno != EEXIST {
                throw StoreError(path: path, "cannot create the data directory: \(String(cString: strerror(errno)))")
            }
        }
        let uid = getuid()
        var link = stat()
        guard lstat(directory, &link) == 0 else {
            throw StoreError(path: directory, "cannot read the data directory: \(String(cString: strerror(errno)))")
        }
        if link.st_mode & S_IFMT == S_IFLNK, link.st_uid != uid, link.st_uid != 0 {
            throw StoreError(
                path: directory, "is a symbolic link of uid \(link.st_uid), not of uid \(uid); milieud will not keep its state through it")
        }
        var target = stat()
        guard stat(directory, &target) == 0, target.st_mode & S_IFMT == S_IFDIR else {
            throw StoreError(path: directory, "is not a directory")
        }
        guard target.st_uid == uid else {
            throw StoreError(
                path: directory,
                "belongs to uid \(target.st_uid), not to uid \(uid); milieud keeps its state only in a directory of its own user (choose another --data-dir)"
            )
        }
    }

    /// Takes `milieu.lock` in `directory` for as long as the returned descriptor stays open, and
    /// writes this process's pid in it; a second daemon is told the first one's pid.
    static func lock(_ directory: String) throws(StoreError) -> Int32 {
        let path = directory + "/milieu.lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw StoreError(path: path, "cannot open the lock: \(String(cString: strerror(errno)))") }
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            if code == EINTR { continue }
            var holder = [UInt8](repeating: 0, count: 32)
            let count = pread(fd, &holder, holder.count, 0)
            close(fd)
            let pid = String(decoding: holder.prefix(max(0, count)), as: UTF8.self).trimmingSpaces
            guard code == EWOULDBLOCK else {
                throw StoreError(path: path, "cannot lock the data directory: \(String(cString: strerror(code)))")
            }
            throw StoreError(
                path: directory,
                "another milieud (pid \(pid.isEmpty ? "unknown" : pid)) keeps its state here; stop it, or give this one another --data-dir")
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        return fd
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        String(unicodeScalars.filter { !$0.properties.isWhitespace })
    }
}
