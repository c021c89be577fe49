import CSQLite
import MilieuJSON

#if canImport(Glibc)
import Glibc
#endif

/// What a `Store` holds: the state a restarted daemon brings back.
public struct StoredState: Sendable {
    /// JSON type declarations registered at run time, in registration order.
    public var types: [JSON] = []
    /// Declarations of retained views clients mounted, in mount order (parents before children).
    public var views: [(path: String, declaration: JSON)] = []
    /// Durable values: a key path (`/App.login.email`, `/App/Form.toggle`) and its value.
    public var values: [(keyPath: String, value: JSON)] = []
}

/// Milieu's durable state in SQLite (WAL). Writes are grouped: `stage` collects them and
/// `commit` writes them in one transaction — once per event-loop turn, before the turn's
/// responses go out, so an acknowledged change survives kill -9 (and power loss with `fsync`).
///
/// Not thread-safe: used from the event loop's thread only.
public final class Store {
    /// The format this build writes; a database from a newer one is refused rather than misread.
    public static let formatVersion = 1

    public let path: String
    private var db: OpaquePointer?
    private var staged: [Staged] = []
    private var statements: [String: OpaquePointer] = [:]
    /// The data directory's lock, held while the store is open; -1 for a store opened by path.
    private var lockDescriptor: Int32 = -1

    private enum Staged {
        case type(name: String, declaration: String)
        case view(path: String, declaration: String)
        case value(view: String, name: String, value: String)
        case removeView(path: String)
    }

    /// Opens (creating if needed) the database at `path`. `fsync: true` makes each commit
    /// durable against power loss, not only against the process dying.
    public init(path: String, fsync: Bool) throws(StoreError) {
        self.path = path
        var handle: OpaquePointer?
        let opened = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nil)
        db = handle
        guard opened == SQLITE_OK else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(handle)
            db = nil
            throw StoreError(path: path, "cannot open the database: \(message)")
        }
        sqlite3_busy_timeout(db, 2000)
        try execute("PRAGMA journal_mode=WAL")
        try execute(fsync ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL")
        try checkIntegrity()
        try migrate()
    }

    /// Opens `milieu.db` in `directory`, creating the directory (0700) and its parents if needed;
    /// refuses a directory of another user, and one another daemon holds (SPEC §12.3). The
    /// database files are the user's alone (0600), whatever made them.
    public convenience init(directory: String, fsync: Bool) throws(StoreError) {
        try DataDirectory.prepare(directory)
        let lock = try DataDirectory.lock(directory)
        let path = directory + "/milieu.db"
        do throws(StoreError) {
            try self.init(path: path, fsync: fsync)
        } catch {
            close(lock)
            throw error
        }
        lockDescriptor = lock
        for file in [path, path + "-wal", path + "-shm"] { _ = chmod(file, 0o600) }
    }

    deinit {
        if lockDescriptor >= 0 { close(lockDescriptor) }
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close(db)
    }

    private func checkIntegrity() throws(StoreError) {
        let result = try query("PRAGMA quick_check").first?.first ?? "ok"
        guard result == "ok" else {
            throw StoreError(path: path, "the database is corrupt (\(result)); move it away to start afresh, nothing was changed")
        }
    }

    private func migrate() throws(StoreError) {
        try execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        let stored = try query("SELECT value FROM meta WHERE key = 'format'").first?.first
        if let stored {
            guard let version = Int(stored), version <= Self.formatVersion else {
                throw StoreError(
                    path: path,
                    "the database was written by a newer milieud (format \(stored), this one reads \(Self.formatVersion)); "
                        + "use that version, or another --data-dir")
            }
        }
        try execute("BEGIN")
        try execute("CREATE TABLE IF NOT EXISTS types (name TEXT PRIMARY KEY, declaration TEXT NOT NULL, seq INTEGER NOT NULL)")
        try execute("CREATE TABLE IF NOT EXISTS views (path TEXT PRIMARY KEY, declaration TEXT NOT NULL, seq INTEGER NOT NULL)")
        try execute(
            "CREATE TABLE IF NOT EXISTS vals (view TEXT NOT NULL, name TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (view, name))")
        try execute("INSERT OR IGNORE INTO meta VALUES ('format', '\(Self.formatVersion)')")
        try execute("COMMIT")
    }

    /// Everything stored, for a daemon starting up.
    public func load() throws(StoreError) -> StoredState {
        var state = StoredState()
        for row in try query("SELECT declaration FROM types ORDER BY seq") { state.types.append(try parse(row[0])) }
        for row in try query("SELECT path, declaration FROM views ORDER BY seq") {
            state.views.append((row[0], try parse(row[1])))
        }
        for row in try query("SELECT view, name, value FROM vals ORDER BY view, name") {
            state.values.append(("\(row[0]).\(row[1])", try parse(row[2])))
        }
        return state
    }

    private func parse(_ text: String) throws(StoreError) -> JSON {
        do { return try JSON(parsing: text) } catch {
            throw StoreError(path: path, "a stored value is not JSON (\(error)); the database is damaged")
        }
    }

    public func stageType(name: String, declaration: JSON) { staged.append(.type(name: name, declaration: declaration.jsonText)) }
    public func stageView(path: String, declaration: JSON) { staged.append(.view(path: path, declaration: declaration.jsonText)) }
    public func stageValue(view: String, name: String, value: JSON) {
        staged.append(.value(view: view, name: name, value: value.jsonText))
    }
    public func stageRemoval(ofView path: String) { staged.append(.removeView(path: path)) }

    /// Whether writes wait for `commit`.
    public var hasStaged: Bool { !staged.isEmpty }

    /// How many writes wait for `commit`.
    public var stagedCount: Int { staged.count }

    /// Writes everything staged in one transaction. On failure nothing is written and the
    /// staged writes are kept, to be tried again by the next commit.
    public func commit() throws(StoreError) {
        guard !staged.isEmpty else { return }
        do {
            try execute("BEGIN IMMEDIATE")
            for write in staged {
                switch write {
                case .type(let name, let declaration):
                    try run("INSERT OR REPLACE INTO types VALUES (?1, ?2, (SELECT COUNT(*) FROM types))", [name, declaration])
                case .view(let path, let declaration):
                    try run(
                        "INSERT INTO views VALUES (?1, ?2, (SELECT COALESCE(MAX(seq), 0) + 1 FROM views)) "
                            + "ON CONFLICT(path) DO UPDATE SET declaration = excluded.declaration", [path, declaration])
                case .value(let view, let name, let value):
                    try run("INSERT OR REPLACE INTO vals VALUES (?1, ?2, ?3)", [view, name, value])
                case .removeView(let path):
                    try run("DELETE FROM views WHERE path = ?1", [path])
                    try run("DELETE FROM vals WHERE view = ?1", [path])
                }
            }
            try execute("COMMIT")
            staged.removeAll(keepingCapacity: true)
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    // MARK: SQLite

    private func execute(_ sql: String) throws(StoreError) {
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(db, sql, nil, nil, &message) == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? lastError
            sqlite3_free(message)
            throw StoreError(path: path, text)
        }
    }

    private var lastError: String { db.map { String(cString: sqlite3_errmsg($0)) } ?? "no database" }

    private func prepared(_ sql: String) throws(StoreError) -> OpaquePointer {
        if let statement = statements[sql] { return statement }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw StoreError(path: path, lastError)
        }
        statements[sql] = statement
        return statement
    }

    private func run(_ sql: String, _ arguments: [String]) throws(StoreError) {
        let statement = try prepared(sql)
        defer { sqlite3_reset(statement) }
        bind(statement, arguments)
        guard sqlite3_step(statement) == SQLITE_DONE else { throw StoreError(path: path, lastError) }
    }

    private func query(_ sql: String) throws(StoreError) -> [[String]] {
        let statement = try prepared(sql)
        defer { sqlite3_reset(statement) }
        var rows: [[String]] = []
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { return rows }
            guard step == SQLITE_ROW else { throw StoreError(path: path, lastError) }
            rows.append(
                (0..<sqlite3_column_count(statement)).map { column in
                    sqlite3_column_text(statement, column).map { String(cString: $0) } ?? ""
                })
        }
    }

    /// SQLite copies each argument (SQLITE_TRANSIENT), so the Swift strings need not outlive the call.
    private func bind(_ statement: OpaquePointer, _ arguments: [String]) {
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        for (index, argument) in arguments.enumerated() {
            sqlite3_bind_text(statement, Int32(index + 1), argument, -1, transient)
        }
    }
}

/// A database problem, with the file it concerns and what to do.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    public let path: String
    public let reason: String

    init(path: String, _ reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): \(reason)" }
}
