#if canImport(Glibc)
import Glibc
#endif

/// The data directory: created 0700 where missing, the user's own (not another uid's, nor
/// reached through another uid's symlink), private with every file milieud keeps in it, and
/// held by one daemon at a time.
enum DataDirectory {
    /// Creates `directory` and its parents where missing, checks who owns it, and makes it and
    /// the files milieud keeps in it private (`makePrivate`).
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
        try makePrivate(directory, mode: target.st_mode)
    }

    /// Whether milieud keeps a file of this name in its data directory.
    static func owns(_ name: String) -> Bool {
        Snapshot.files(of: "milieu.db").contains(name) || name == "milieu.lock" || LogFormat.firstVersion(fileName: name) != nil
    }

    /// Takes group and other access off the directory (0700) and off every file milieud keeps
    /// in it (0600), before any is opened: a directory copied back under umask 022 (0755, its
    /// files 0644) would otherwise let any local user read the log's values. SQLite gives a new
    /// `-wal` and `-shm` the database's mode, so the database is tightened first. A file that
    /// cannot be tightened (another uid's) refuses the start, naming the fix.
    private static func makePrivate(_ directory: String, mode: mode_t) throws(StoreError) {
        if mode & 0o077 != 0, chmod(directory, 0o700) != 0 {
            throw StoreError(
                path: directory,
                "is open to other users (mode \(String(mode & 0o777, radix: 8))) and cannot be made private: \(String(cString: strerror(errno))); run chmod 700 \(directory)"
            )
        }
        guard let handle = opendir(directory) else {
            throw StoreError(path: directory, "cannot list the data directory: \(String(cString: strerror(errno)))")
        }
        defer { closedir(handle) }
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard owns(name) else { continue }
            try makePrivate(file: directory + "/" + name)
        }
    }

    private static func makePrivate(file path: String) throws(StoreError) {
        // lstat, not stat: a symbolic link's target is not milieud's file. The directory is the
        // user's and private by now, so no one else can swap the file between the two calls.
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_mode & 0o077 != 0 else { return }
        guard chmod(path, 0o600) == 0 else {
            let code = errno
            throw StoreError(
                path: path,
                "is open to other users (mode \(String(status.st_mode & 0o777, radix: 8)), uid \(status.st_uid)) and cannot be made private: \(String(cString: strerror(code))); run chmod 600 \(path) as its owner, or move it away"
            )
        }
    }

    /// Takes `milieu.lock` in `directory` for as long as the returned descriptor stays open, and
    /// writes this process's pid in it; a second daemon is told the first one's pid.
    static func lock(_ directory: String) throws(StoreError) -> Int32 {
        let path = directory + "/milieu.lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw StoreError(path: path, "cannot open the lock: \(String(cString: strerror(errno)))") }
        // A lock this process took and let go of can still be held for a moment by a child it is
        // forking (the descriptor is closed only at its exec): waited for, up to two seconds.
        var ownRetries = 200
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            if code == EINTR { continue }
            var holder = [UInt8](repeating: 0, count: 32)
            let count = pread(fd, &holder, holder.count, 0)
            let pid = String(decoding: holder.prefix(max(0, count)), as: UTF8.self).trimmingSpaces
            if code == EWOULDBLOCK, pid == String(getpid()), ownRetries > 0 {
                ownRetries -= 1
                usleep(10_000)
                continue
            }
            close(fd)
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
