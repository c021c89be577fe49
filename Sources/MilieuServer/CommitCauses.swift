import MilieuEngine
import MilieuJSON
import MilieuProtocol
import MilieuTransport

/// What made a commit (`graph/explain`), kept while the commit is in the history: the method,
/// the connection with its process and client name, and the paths its operations named. A
/// one-operation request keeps its path alone. A class: a write's cause goes from the turn to the
/// history and is copied on the way, and a copy of a struct of five fields retained each one
/// (some 600 instructions a write), where one allocation costs about 100.
final class StoredCause {
    enum Target {
        case path(String?)
        /// A transaction's first `keptOperations` ops, and how many more it had.
        case operations([CommitCause.Operation], more: Int)
    }

    /// The ops of a transaction kept for its explanation: enough to say what it did, while one of
    /// 1000 mounts does not keep 1000 paths in the history (some 35 bytes a view, measured).
    static let keptOperations = 16

    let method: String
    let connection: Int
    let pid: Int?
    let client: String?
    let target: Target

    /// A request's cause; `params` give the paths of a transaction's ops, or of the one op.
    convenience init(method: String, params: JSONObject, session: ClientSession) {
        self.init(method: method, session: session, target: Self.target(method: method, params: params))
    }

    init(method: String, session: ClientSession, target: Target) {
        self.method = method
        self.connection = session.id
        self.pid = Int(session.connection.peer.pid)
        self.client = session.clientName
        self.target = target
    }

    /// The cause of a hot request (`HotRequest`) of `session` that names `path`: the one its last
    /// hot request had if nothing of it differs, which they then share. A client that writes
    /// one path again and again (a slider, a pipeline) would otherwise make a cause for each
    /// write, an allocation, and free it when the history lets the commit go 10,000 writes
    /// later: some 600 instructions of every write, and 10,000 copies of one cause kept.
    static func hot(method: String, path: String?, session: ClientSession) -> StoredCause {
        if let last = session.lastHotCause, last.method == method, last.names(path), sameBytes(last.client, session.clientName) {
            return last
        }
        let cause = StoredCause(method: method, session: session, target: .path(path))
        session.lastHotCause = cause
        return cause
    }

    /// Whether this is a one-operation cause naming `path`, byte for byte: its target read in
    /// place (bound out of the class, it was copied and destroyed, some 60 instructions a write).
    private func names(_ path: String?) -> Bool {
        switch target {
        case .path(let own): Self.sameBytes(own, path)
        case .operations: false
        }
    }

    /// Whether `a` and `b` are the same bytes (`String.hasUTF8`): a cause keeps what its request
    /// spelled.
    @inline(__always)
    private static func sameBytes(_ a: String?, _ b: String?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case (let a?, let b?): b.hasSameUTF8(as: a)
        default: false
        }
    }

    /// A closed connection's views going.
    init(closing connection: Int) {
        method = CommitCause.connectionClosed
        self.connection = connection
        pid = nil
        client = nil
        target = .operations([], more: 0)
    }

    var cause: CommitCause {
        switch target {
        case .path(let path):
            return CommitCause(
                method: method, connection: connection, pid: pid, client: client,
                operations: [CommitCause.Operation(method: method, path: path)])
        case .operations(let list, let more):
            return CommitCause(method: method, connection: connection, pid: pid, client: client, operations: list, moreOperations: more)
        }
    }

    private static func target(method: String, params: JSONObject) -> Target {
        guard method == GraphTransactionRequest.name, let ops = params["ops"]?.arrayValue else {
            return .path(namedPath(params))
        }
        return .operations(
            ops.prefix(keptOperations).map { op in
                CommitCause.Operation(method: op["method"]?.stringValue ?? "", path: op["params"]?.objectValue.flatMap(namedPath))
            }, more: max(0, ops.count - keptOperations))
    }

    /// The path an operation's params name: `path`, or for a mount the new view's parent and name.
    private static func namedPath(_ params: JSONObject) -> String? {
        if let path = params["path"]?.stringValue { return path }
        guard let parent = params["parent"]?.stringValue, let name = params["name"]?.stringValue else { return nil }
        return parent + "/" + name
    }
}
