import Glibc

/// Whether a socket path can be trusted to lead to this user's own daemon: the one rule of SPEC
/// §1.2, which the daemon applies before it listens and every client before it connects.
///
/// Resolving the path one component at a time from `/` (symbolic links followed, at most 40):
/// every directory on the way and every link followed belongs to this user or to root; no
/// directory on the way may be written by group or others unless it is sticky (as /tmp is: only
/// an entry's owner may then rename or remove it); and, to connect, the socket file it leads to
/// belongs to this user. Then no other user can replace the socket, or anything on the way to it.
/// The Python and Node clients implement the same rule; `protocol/socket-trust.json` holds the
/// cases all three are tested against.
///
/// The rule itself does no I/O (`judge(_:for:me:workingDirectory:in:)` asks a `FileSystem`).
public enum SocketTrust {
    /// Who judges: the daemon about to listen (the socket's directory is judged) or a client about
    /// to connect (the directories and the socket file).
    public enum Purpose: String, Sendable {
        case listen, connect
    }

    /// What `lstat` says of one path.
    public struct Entry: Sendable, Equatable {
        public enum Kind: Sendable, Equatable {
            case directory, symbolicLink, socket, other
        }

        public var kind: Kind
        public var uid: UInt32
        /// The permission bits, sticky bit included (`st_mode & 0o7777`).
        public var mode: UInt32

        public init(kind: Kind, uid: UInt32, mode: UInt32) {
            self.kind = kind
            self.uid = uid
            self.mode = mode
        }
    }

    /// The file system as the rule sees it: for the real one `lstat` and `readlink`, for tests a table.
    public protocol FileSystem {
        /// The entry at `path`, not following a final symbolic link; nil when there is none.
        func entry(at path: String) -> Entry?
        /// What the symbolic link at `path` points to, as written.
        func target(ofLink path: String) -> String?
    }

    /// Why a path is not trusted.
    public enum Reason: String, Sendable {
        /// A directory on the way belongs to another user.
        case owner
        /// A symbolic link on the way belongs to another user.
        case linkOwner
        /// A directory on the way may be written by group or others and is not sticky.
        case writable
        case notDirectory
        /// The socket file belongs to another user.
        case socketOwner
        case notSocket
        /// More than `maxLinks` symbolic links.
        case loop
        /// Nothing is there: for a client, no daemon listens.
        case missing
    }

    /// A path refused: the reason, the path that failed it, and a sentence that says why.
    public struct Refusal: Error, Sendable, Equatable {
        public let reason: Reason
        /// The directory, link or socket that failed the rule.
        public let path: String
        /// Why, as a clause: `/tmp/x belongs to uid 1001, not to you (uid 1000) or root, …`.
        public let why: String
    }

    /// The verdict: the path it resolves to (links followed), or the refusal.
    public typealias Verdict = Result<String, Refusal>

    /// What every refusal suggests, after its reason.
    public static let fix = "use a socket in a directory only you or root can change (--socket or MILIEU_SOCKET)"
    /// Symbolic links followed at most, as Linux's path resolution (ELOOP).
    public static let maxLinks = 40

    /// Judges `path` (relative to `workingDirectory` unless absolute) for `purpose`, as the user
    /// `me`, against `fileSystem`.
    public static func judge(
        _ path: String, for purpose: Purpose, me: UInt32, workingDirectory: String, in fileSystem: some FileSystem
    ) -> Verdict {
        var pending = components(path.hasPrefix("/") ? path : workingDirectory + "/" + path)
        var socketName: String?
        if purpose == .listen { socketName = pending.popLast() }
        var links = 0
        var current = "/"
        guard let root = fileSystem.entry(at: current) else { return refuse(.missing, current, "/ does not exist") }
        if let refusal = judgeDirectory(root, at: current, me: me) { return .failure(refusal) }
        var reachedSocket = false
        while !pending.isEmpty {
            let name = pending.removeFirst()
            if name == ".." {
                current = parent(of: current)
                reachedSocket = false
                continue
            }
            let candidate = current == "/" ? "/" + name : current + "/" + name
            guard let entry = fileSystem.entry(at: candidate) else { return refuse(.missing, candidate, "\(candidate) does not exist") }
            if entry.kind == .symbolicLink {
                guard entry.uid == me || entry.uid == 0 else {
                    return refuse(
                        .linkOwner, candidate,
                        "the symbolic link \(candidate) belongs to uid \(entry.uid), not to you (uid \(me)) or root, "
                            + "so that user could point it elsewhere")
                }
                links += 1
                guard links <= maxLinks else {
                    return refuse(.loop, candidate, "more than \(maxLinks) symbolic links lead to \(candidate)")
                }
                guard let target = fileSystem.target(ofLink: candidate) else {
                    return refuse(.missing, candidate, "\(candidate) does not exist")
                }
                if target.hasPrefix("/") { current = "/" }
                pending = components(target) + pending
                continue
            }
            if pending.isEmpty && purpose == .connect {
                guard entry.kind == .socket else { return refuse(.notSocket, candidate, "\(candidate) is not a socket") }
                guard entry.uid == me else {
                    return refuse(
                        .socketOwner, candidate,
                        "the socket \(candidate) belongs to uid \(entry.uid), not to you (uid \(me)), so another user's process serves it")
                }
                reachedSocket = true
            } else {
                guard entry.kind == .directory else { return refuse(.notDirectory, candidate, "\(candidate) is not a directory") }
                if let refusal = judgeDirectory(entry, at: candidate, me: me) { return .failure(refusal) }
            }
            current = candidate
        }
        if let socketName { return .success(current == "/" ? "/" + socketName : current + "/" + socketName) }
        guard reachedSocket else { return refuse(.notSocket, current, "\(current) is not a socket") }
        return .success(current)
    }

    /// Judges `path` on this machine, as this process's effective user.
    public static func judge(_ path: String, for purpose: Purpose) -> Verdict {
        judge(path, for: purpose, me: geteuid(), workingDirectory: workingDirectory(), in: RealFileSystem())
    }

    private static func judgeDirectory(_ entry: Entry, at path: String, me: UInt32) -> Refusal? {
        guard entry.uid == me || entry.uid == 0 else {
            return Refusal(
                reason: .owner, path: path,
                why: "\(path) belongs to uid \(entry.uid), not to you (uid \(me)) or root, so that user could replace the socket")
        }
        guard entry.mode & 0o022 == 0 || entry.mode & 0o1000 != 0 else {
            return Refusal(
                reason: .writable, path: path,
                why: "\(path) has mode \(octal(entry.mode)): others may write to it and it is not sticky, so they could replace the socket")
        }
        return nil
    }

    private static func refuse(_ reason: Reason, _ path: String, _ why: String) -> Verdict {
        .failure(Refusal(reason: reason, path: path, why: why))
    }

    private static func components(_ path: String) -> [String] {
        path.split(separator: "/").map(String.init).filter { $0 != "." }
    }

    private static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    /// `0755`, `1777`: four octal digits.
    static func octal(_ mode: UInt32) -> String {
        let digits = String(mode & 0o7777, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    private static func workingDirectory() -> String {
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
        let found = buffer.withUnsafeMutableBufferPointer { pointer in
            pointer.withMemoryRebound(to: CChar.self) { getcwd($0.baseAddress, $0.count) != nil }
        }
        guard found else { return "/" }
        return String(decoding: buffer.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// This machine's file system, through `lstat` and `readlink`.
    public struct RealFileSystem: FileSystem {
        public init() {}

        public func entry(at path: String) -> Entry? {
            var status = stat()
            guard lstat(path, &status) == 0 else { return nil }
            let kind: Entry.Kind =
                switch status.st_mode & S_IFMT {
                case S_IFDIR: .directory
                case S_IFLNK: .symbolicLink
                case S_IFSOCK: .socket
                default: .other
                }
            return Entry(kind: kind, uid: status.st_uid, mode: status.st_mode & 0o7777)
        }

        public func target(ofLink path: String) -> String? {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink(path, &buffer, buffer.count - 1)
            guard count >= 0 else { return nil }
            return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }
}
