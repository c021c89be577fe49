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
    public var values: [(view: String, name: String, value: JSON)] = []
    /// The version of each durable view (`name` empty) and of each object a variable `name` of
    /// one owns, where it changed after the scene loaded: what it had when the daemon stopped.
    public var versions: [(view: String, name: String, version: Int)] = []
}

/// The compacted state in SQLite (`milieu.db`, WAL): the tables users can open with `sqlite3`,
/// and in `meta` the version folded through and the id of the log that follows it. Only the
/// thread that has it uses it: the opening thread, then the fold thread (hence unchecked Sendable).
final class Snapshot: @unchecked Sendable {
    /// The format this build writes; a database from a newer one is refused rather than misread.
    /// Format 3 added `versions`; a database of format 2 is given it when opened (`prepare`).
    static let formatVersion = 3

    /// The tables a database of `format` has.
    static func tables(ofFormat format: Int) -> [String] {
        format >= 3 ? ["types", "views", "vals", "versions"] : ["types", "views", "vals"]
    }

    let path: String
    private var db: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]
    /// The next `seq` of a new type and of a new view, counted here rather than with a
    /// `MAX(seq)` scan per write.
    private var nextTypeSeq = 0
    private var nextViewSeq = 0

    /// The files SQLite keeps for the database at `path`: itself, its WAL and its shared memory.
    static func files(of path: String) -> [String] { [path, path + "-wal", path + "-shm"] }

    init(path: String) throws(StoreError) {
        self.path = path
        // SQLite opens a FIFO or a device as if it were the file, and then fails to read it
        // with "disk I/O error": anything there but a regular file, the database or its WAL
        // and shared-memory files, is refused with the reason.
        for file in Self.files(of: path) {
            var status = stat()
            if stat(file, &status) == 0, status.st_mode & S_IFMT != S_IFREG {
                throw StoreError(path: file, "cannot open the database: it is not a regular file; move it out of the data directory")
            }
        }
        var handle: OpaquePointer?
        let opened = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        db = handle
        guard opened == SQLITE_OK else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(handle)
            db = nil
            throw StoreError(path: path, "cannot open the database: \(message)")
        }
        sqlite3_busy_timeout(db, 2000)
        try execute("PRAGMA journal_mode=WAL")
        // A commit is not synced; the checkpoint after each fold syncs the WAL and the main
        // file, and only once a later fold's `meta` says so may the log drop what it holds (Folder).
        try execute("PRAGMA synchronous=NORMAL")
        let result = try query("PRAGMA quick_check").first?.first ?? "ok"
        guard result == "ok" else {
            throw StoreError(path: path, "the database is corrupt (\(result)); move it away to start afresh, nothing was changed")
        }
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close(db)
    }

    /// The tables of the snapshot that exist, `meta` among them.
    func existingTables() throws(StoreError) -> Set<String> {
        Set(try query("SELECT name FROM sqlite_master WHERE type = 'table'").map { $0[0] })
    }

    func meta(_ key: String) throws(StoreError) -> String? {
        guard try existingTables().contains("meta") else { return nil }
        return try query("SELECT value FROM meta WHERE key = '\(key)'").first?.first
    }

    /// The version folded through (0 in a new database) and the version `checkpointed`: what
    /// the main file held, synced, when the last fold began (see `Folder`). A database an
    /// earlier milieud wrote has no such entry, and its folds were whole: `folded` stands for it.
    func foldedVersions() throws(StoreError) -> (folded: Int, checkpointed: Int) {
        let folded = Int(try meta("folded") ?? "0") ?? 0
        return (folded, min(Int(try meta("checkpointed") ?? "") ?? folded, folded))
    }

    /// Refuses a database of a newer format; creates what is missing (a new database, or the
    /// tables `--recover` brings back) and writes this format. A database of format 2 kept no
    /// versions: each view and each value's view or object it holds is given the version folded
    /// through, later than any it had, so that an `ifVersion` read before stays stale.
    func prepare() throws(StoreError) {
        var upgraded = false
        if let stored = try meta("format") {
            guard let version = Int(stored), version <= Self.formatVersion else {
                throw StoreError(
                    path: path,
                    "the database was written by a newer milieud (format \(stored), this one reads \(Self.formatVersion)); "
                        + "use that version, or another --data-dir")
            }
            upgraded = version < 3
        }
        let folded = try foldedVersions().folded
        try execute("BEGIN")
        try execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        try execute("CREATE TABLE IF NOT EXISTS types (name TEXT PRIMARY KEY, declaration TEXT NOT NULL, seq INTEGER NOT NULL)")
        try execute("CREATE TABLE IF NOT EXISTS views (path TEXT PRIMARY KEY, declaration TEXT NOT NULL, seq INTEGER NOT NULL)")
        try execute(
            "CREATE TABLE IF NOT EXISTS vals (view TEXT NOT NULL, name TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (view, name))")
        try execute(
            "CREATE TABLE IF NOT EXISTS versions (view TEXT NOT NULL, name TEXT NOT NULL, version INTEGER NOT NULL, PRIMARY KEY (view, name)) WITHOUT ROWID"
        )
        if upgraded {
            try execute("INSERT OR IGNORE INTO versions SELECT path, '', \(folded) FROM views")
            try execute(
                "INSERT OR IGNORE INTO versions SELECT DISTINCT view, CASE WHEN instr(name, '.') > 0 "
                    + "THEN substr(name, 1, instr(name, '.') - 1) ELSE '' END, \(folded) FROM vals")
        }
        try execute("INSERT OR REPLACE INTO meta VALUES ('format', '\(Self.formatVersion)')")
        try execute("COMMIT")
        nextTypeSeq = Int(try query("SELECT COALESCE(MAX(seq), 0) + 1 FROM types").first?.first ?? "1") ?? 1
        nextViewSeq = Int(try query("SELECT COALESCE(MAX(seq), 0) + 1 FROM views").first?.first ?? "1") ?? 1
    }

    /// Sets `meta` entries in one transaction.
    func setMeta(_ entries: [String: String]) throws(StoreError) {
        try transaction { () throws(StoreError) in
            for (key, value) in entries { try run("INSERT OR REPLACE INTO meta VALUES (?1, ?2)", [key, value]) }
        }
    }

    /// Applies `queue`'s records in `range` in order and records the last as folded, all in one
    /// transaction; `extra` meta entries go with it. Records at or before the `checkpointed`
    /// version (the folded one, in a database without it) are skipped: the main file holds
    /// them. One after it that the snapshot holds already — a start folds again what the main
    /// file may lack (`Folder`) — is applied again, which changes nothing, as a fold always
    /// applies the log's records from some version on to the last, in order.
    func fold(_ queue: FoldQueue, records range: Range<Int>, meta extra: [String: String] = [:]) throws(StoreError) {
        let (folded, checkpointed) = try foldedVersions()
        let (typeSeq, viewSeq) = (nextTypeSeq, nextViewSeq)
        do throws(StoreError) {
            try transaction { () throws(StoreError) in
                var last = folded
                // A batch writes the same few values over and over: between writes of other
                // kinds, only the last value of each key is written, with its record's version.
                var values = LatestValues()
                // And of the versions: a view's (name empty) or the object's its variable owns.
                var versions: [ValueKey: Int] = [:]
                var versionOrder: [ValueKey] = []
                /// Records that `key` changed at `version`, unless a later record said so already.
                func stamp(_ key: ValueKey, _ version: Int) {
                    if let index = versions.index(forKey: key) {
                        versions.values[index] = max(versions.values[index], version)
                    } else {
                        versions[key] = version
                        versionOrder.append(key)
                    }
                }
                func flush() throws(StoreError) {
                    for key in values.order {
                        let (value, version) = values[key]
                        try run("INSERT OR REPLACE INTO vals VALUES (?1, ?2, ?3)", [key.view, key.name, value.jsonText])
                        // What holds the value changed with it: once a key, not once a write.
                        stamp(ValueKey(view: key.view, name: Self.holder(of: key.name)), version)
                    }
                    for key in versionOrder {
                        try run("INSERT OR REPLACE INTO versions VALUES (?1, ?2, ?3)", [key.view, key.name, String(versions[key]!)])
                    }
                    values.removeAll()
                    versions.removeAll(keepingCapacity: true)
                    versionOrder.removeAll(keepingCapacity: true)
                }
                try queue.forEachRecord(in: range) { (version, turn, writes) throws(StoreError) in
                    guard version > checkpointed else { return }
                    // By index: `for write in` copied each write whole (about 290 instructions
                    // with its destroy), where a switch on the element binds only what it reads.
                    for index in writes {
                        switch turn[index] {
                        case .value(let view, let name, let value):
                            values.set(view: view, name: name, value, version: version)
                        case .version(let view, let name):
                            stamp(ValueKey(view: view, name: name), version)
                        case .type, .view, .removeView:
                            try flush()
                            try apply(turn[index], at: version)
                        }
                    }
                    last = max(last, version)
                }
                try flush()
                try run("INSERT OR REPLACE INTO meta VALUES ('folded', ?1)", [String(last)])
                for (key, value) in extra { try run("INSERT OR REPLACE INTO meta VALUES (?1, ?2)", [key, value]) }
            }
        } catch {
            (nextTypeSeq, nextViewSeq) = (typeSeq, viewSeq)
            throw error
        }
    }

    private struct ValueKey: Hashable {
        let view: String
        let name: String
    }

    /// The last value of each key a fold's batch writes, with its record's version, and the keys
    /// in the order first written. A write to the key written just before (a client's pipelined
    /// writes come one after another) finds its entry without hashing: the hash of two strings
    /// was half of what a record cost the fold.
    private struct LatestValues {
        private(set) var order: [ValueKey] = []
        private var values: [ValueKey: (value: JSON, version: Int)] = [:]
        /// The key written last and its entry; an insertion may move the others.
        private var last: (key: ValueKey, index: [ValueKey: (value: JSON, version: Int)].Index)?

        mutating func set(view: String, name: String, _ value: JSON, version: Int) {
            if let last, last.key.name == name, last.key.view == view {
                values.values[last.index] = (value, version)
                return
            }
            let key = ValueKey(view: view, name: name)
            if let index = values.index(forKey: key) {
                values.values[index] = (value, version)
                last = (key, index)
            } else {
                values[key] = (value, version)
                order.append(key)
                last = (key, values.index(forKey: key)!)
            }
        }

        subscript(key: ValueKey) -> (value: JSON, version: Int) { values[key]! }

        mutating func removeAll() {
            values.removeAll(keepingCapacity: true)
            order.removeAll(keepingCapacity: true)
            last = nil
        }
    }

    /// The variable whose version a durable value's write changes: `var` is a @State of the view
    /// (its holder is the view, the empty name); `var.property` a property of the object `var`
    /// owns, `var.made.property` one of the object that object's property made (`makes`). Found
    /// among the UTF-8 bytes: Character by Character took 2.5k instructions a write.
    private static func holder(of name: String) -> String {
        name.utf8.lastIndex(of: UInt8(ascii: ".")).map { String(name[..<$0]) } ?? ""
    }

    /// Applies one write of the record of `version` (`fold` gathers values and versions and
    /// writes only the last of each key).
    private func apply(_ write: StoredWrite, at version: Int) throws(StoreError) {
        switch write {
        case .type(let name, let declaration):
            try run(
                "INSERT INTO types VALUES (?1, ?2, ?3) ON CONFLICT(name) DO UPDATE SET declaration = excluded.declaration",
                [name, declaration.jsonText, String(nextTypeSeq)])
            nextTypeSeq += 1
        case .view(let path, let declaration):
            // Last in mount order, even where its row is there: a view is mounted again only
            // after it went, except when a start folds again records the snapshot holds, and
            // then each view such a record mounts must come after those mounted before it.
            try run(
                "INSERT INTO views VALUES (?1, ?2, ?3) ON CONFLICT(path) DO UPDATE SET declaration = excluded.declaration, seq = excluded.seq",
                [path, declaration.jsonText, String(nextViewSeq)])
            nextViewSeq += 1
            // A view mounted again is a new identity: the versions of the last one go.
            try run("DELETE FROM versions WHERE view = ?1", [path])
            try run("INSERT INTO versions VALUES (?1, '', ?2)", [path, String(version)])
        case .value(let view, let name, let value):
            try run("INSERT OR REPLACE INTO vals VALUES (?1, ?2, ?3)", [view, name, value.jsonText])
        case .removeView(let path):
            try run("DELETE FROM views WHERE path = ?1", [path])
            try run("DELETE FROM vals WHERE view = ?1", [path])
            try run("DELETE FROM versions WHERE view = ?1", [path])
        case .version(let view, let name):
            try run("INSERT OR REPLACE INTO versions VALUES (?1, ?2, ?3)", [view, name, String(version)])
        }
    }

    /// Copies the WAL into the main file and syncs both, so that the main file is never far
    /// behind; returns whether all of the WAL is in it.
    @discardableResult
    func checkpoint() -> Bool {
        var frames: Int32 = 0
        var copied: Int32 = 0
        return sqlite3_wal_checkpoint_v2(db, nil, SQLITE_CHECKPOINT_PASSIVE, &frames, &copied) == SQLITE_OK && frames == copied
    }

    /// Everything stored, for a daemon starting up.
    func load() throws(StoreError) -> StoredState {
        var state = StoredState()
        for row in try query("SELECT declaration FROM types ORDER BY seq") { state.types.append(try parse(row[0])) }
        for row in try query("SELECT path, declaration FROM views ORDER BY seq") {
            state.views.append((row[0], try parse(row[1])))
        }
        for row in try query("SELECT view, name, value FROM vals ORDER BY view, name") {
            state.values.append((row[0], row[1], try parse(row[2])))
        }
        // As many rows as views and objects: read in place, without a row of strings each.
        try forEachRow("SELECT view, name, version FROM versions") { statement in
            state.versions.append((text(statement, 0), text(statement, 1), Int(sqlite3_column_int64(statement, 2))))
        }
        return state
    }

    private func parse(_ text: String) throws(StoreError) -> JSON {
        do { return try JSON(parsing: text) } catch {
            throw StoreError(path: path, "a stored value is not JSON (\(error)); the database is damaged")
        }
    }

    // MARK: SQLite

    private func transaction(_ body: () throws(StoreError) -> Void) throws(StoreError) {
        try execute("BEGIN IMMEDIATE")
        do throws(StoreError) {
            try body()
            try execute("COMMIT")
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

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

    /// Steps through `sql`'s rows, handing each to `body` as the statement positioned on it.
    private func forEachRow(_ sql: String, _ body: (OpaquePointer) -> Void) throws(StoreError) {
        let statement = try prepared(sql)
        defer { sqlite3_reset(statement) }
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { return }
            guard step == SQLITE_ROW else { throw StoreError(path: path, lastError) }
            body(statement)
        }
    }

    private func text(_ statement: OpaquePointer, _ column: Int32) -> String {
        sqlite3_column_text(statement, column).map { String(cString: $0) } ?? ""
    }

    /// SQLite copies each argument (SQLITE_TRANSIENT), so the Swift strings need not outlive the call.
    private func bind(_ statement: OpaquePointer, _ arguments: [String]) {
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        for (index, argument) in arguments.enumerated() {
            sqlite3_bind_text(statement, Int32(index + 1), argument, -1, transient)
        }
    }
}
