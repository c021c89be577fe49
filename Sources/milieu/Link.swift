import MilieuClient
import MilieuJSON
import MilieuProtocol

/// The REPL's connection to milieud, which outlives any one socket connection: when the
/// daemon comes back, `connect()` connects again and re-establishes the user's watches,
/// each resumed from the last version it showed (`sinceVersion`, SPEC §11.4) so that
/// nothing is missed.
final class Link {
    let socketPath: String
    let watches = WatchBook()
    /// Seconds to wait for any one response before giving up on it.
    let requestTimeout: Double
    private(set) var client: MilieuClient?
    /// The daemon instance of the last connection that was made (each watch keeps the one its
    /// versions are of); it stays when that connection breaks.
    private(set) var instance: String?
    /// What the daemon could not restore when it started, as its last `initialize` told; nil
    /// when it dropped nothing.
    private(set) var restore: RestoreReport?

    /// `--print-changes`: every watch this link makes carries every view's `_printChanges`
    /// line, as if each body called `Self._printChanges()`.
    let printsEveryChange: Bool

    init(socketPath: String, requestTimeout: Double = 30, printsEveryChange: Bool = false) {
        self.socketPath = socketPath
        self.requestTimeout = requestTimeout
        self.printsEveryChange = printsEveryChange
    }

    var isConnected: Bool { client?.isConnected ?? false }

    /// A descriptor whose readability interrupts a wait for an answer (the prompt's signal pipe:
    /// Ctrl-C), given to every client this link makes. -1: none.
    var interruption: Int32 = -1 {
        didSet { client?.interruption = interruption }
    }

    /// What happened to the watches on connecting again.
    struct Resumption {
        /// The daemon is not the instance some watch was last made on, or the link last
        /// connected to: its versions restarted, and its state is fresh.
        var restarted = false
        /// Watches established again: from the version they had shown (everything since
        /// then follows as notifications), or from now on (`since` nil) after a restart.
        var resumed: [(record: WatchRecord, since: Int?)] = []
        /// Watches whose history was compacted away; they watch again from now on.
        var compacted: [(record: WatchRecord, oldest: Int)] = []
        /// Watches whose targets are gone; they were dropped.
        var dropped: [(record: WatchRecord, error: RPCError)] = []
        /// The daemon's version on connecting again.
        var version = 0
    }

    /// Connects (again) and re-establishes the watches; nil on the first connection.
    @discardableResult
    func connect() throws -> Resumption? {
        let client = try MilieuClient(socketPath: socketPath)
        client.interruption = interruption
        let hello = try client.request(InitializeRequest(client: ["name": "milieu"]), timeout: requestTimeout)
        let newInstance = hello.instance
        let previous = instance
        client.daemonMaxLineBytes = hello.maxLineBytes
        self.client = client
        instance = newInstance
        restore = hello.restore
        guard previous != nil || !watches.isEmpty else { return nil }
        let restarted = previous != newInstance || watches.records.contains { $0.instance != newInstance }
        do {
            var resumption = try resumeWatches(on: newInstance, restarted: restarted)
            resumption.version = hello.version
            return resumption
        } catch {
            disconnected()
            throw error
        }
    }

    /// Notes that the connection is gone; the daemon's watch ids go with it.
    func disconnected() {
        client?.close()
        watches.detachAll()
    }

    /// Throws only when the connection breaks again; a watch the daemon refuses is dropped.
    private func resumeWatches(on daemon: String, restarted: Bool) throws -> Resumption {
        var report = Resumption(restarted: restarted)
        for record in watches.records {
            let since = record.resumeFrom(on: daemon)
            do {
                try attach(record, record.request(sinceVersion: since), on: daemon)
                report.resumed.append((record, since))
            } catch let error as RPCError where error.errorKind == .compacted {
                do {
                    try attach(record, record.request(), on: daemon)
                    report.compacted.append((record, error.data["oldest"]?.intValue ?? 0))
                } catch let refusal as RPCError {
                    drop(record, refusal, into: &report)
                }
            } catch let refusal as RPCError {
                drop(record, refusal, into: &report)
            }
        }
        return report
    }

    private func attach(_ record: WatchRecord, _ watch: WatchRequest, on daemon: String) throws {
        let result = try request(watch)
        record.daemonID = result.watch
        if watch.sinceVersion == nil { record.restart(at: result.version, on: daemon) }
    }

    private func drop(_ record: WatchRecord, _ error: RPCError, into report: inout Resumption) {
        watches.remove(record)
        report.dropped.append((record, error))
    }

    // MARK: Requests

    /// Sends a request and waits for its result. Throws `RPCError` when the daemon refuses,
    /// `MilieuClientError` when there is no connection or it broke.
    func request<M: RPCMethod>(_ method: M) throws -> M.Result {
        guard let client, client.isConnected else { throw notConnected() }
        return try client.request(method, timeout: requestTimeout)
    }

    /// The view tree, fetched a page at a time (`MilieuClient.tree`).
    func tree(path: String?, depth: Int?) throws -> ViewSnapshot {
        guard let client, client.isConnected else { throw notConnected() }
        return try client.tree(path: path, depth: depth, timeout: requestTimeout)
    }

    /// Sends a line as typed; returns the daemon's response, or nil when the line is a
    /// notification (which gets none).
    func exchange(rawLine line: String) throws -> JSON? {
        guard let client, client.isConnected else { throw notConnected() }
        guard try client.sendLine(line) else { return nil }
        do throws(MilieuClientError) {
            return try client.nextUnmatchedReply(timeout: requestTimeout)
        } catch {
            if error.code == .timedOut || error.code == .cancelled { client.giveUpRawReply() }
            throw error
        }
    }

    /// Starts a watch on `targets` (view paths go in `views`, key paths in `paths`).
    func watch(targets: [String], lifecycle: Bool, commits: Bool = false, since: Int? = nil) throws -> WatchRecord {
        let views = targets.filter(PathSyntax.isViewPath)
        let paths = targets.filter { !PathSyntax.isViewPath($0) }
        return try open(
            WatchRequest(
                paths: paths, views: views, lifecycle: lifecycle, commits: commits, printChanges: printsEveryChange, sinceVersion: since))
    }

    /// Makes the watch `request` asks for and keeps it in the book (a `console` one shows
    /// `_printChanges` lines only). A replay of what followed its `sinceVersion` is still to come:
    /// only up to that version is shown.
    private func open(_ request: WatchRequest, console: Bool = false) throws -> WatchRecord {
        guard let instance else { throw notConnected() }
        let result = try self.request(request)
        let record = watches.add(
            paths: request.paths, views: request.views, lifecycle: request.lifecycle, commits: request.commits,
            printChanges: request.printChanges, console: console, daemonID: result.watch,
            version: request.sinceVersion ?? result.version, instance: instance)
        record.notMounted = result.notMounted
        return record
    }

    /// Shows the `_printChanges` lines of `views` and their subtrees as they happen, as Xcode's
    /// console does: a console watch, which prints nothing else. `load` opens one on what it
    /// mounts; `--print-changes` one on /App, with every view's line. Views a console watch
    /// covers already are not watched again.
    func showPrintChanges(of views: [String]) throws {
        let covered = watches.records.filter(\.console).flatMap(\.views)
        let wanted = views.filter { view in !covered.contains { view == $0 || view.hasPrefix($0 + "/") } }
        guard !wanted.isEmpty else { return }
        _ = try open(WatchRequest(views: wanted, printChanges: printsEveryChange), console: true)
    }

    /// Ends a watch, on the daemon too while connected.
    func unwatch(_ record: WatchRecord) throws {
        if isConnected, let id = record.daemonID { _ = try request(UnwatchRequest(watch: id)) }
        watches.remove(record)
    }

    // MARK: Notifications

    /// Notifications received so far, each marked shown. With `sync`, first makes sure
    /// every notification caused by the requests already answered has arrived: a response
    /// is written after the notifications of the versions before it (SPEC §8.3), so the
    /// answer to one more request comes after them all.
    func takeNotifications(sync: Bool) -> [ClientNotification] {
        guard let client else { return [] }
        var caughtUp: Int?
        if sync, !watches.isEmpty, client.isConnected {
            caughtUp = (try? client.request(InitializeRequest(), timeout: requestTimeout))?.version
        } else if client.isConnected {
            _ = try? client.receiveAvailable()
        }
        let notifications = client.takeNotifications().filter(watches.admit)
        if let caughtUp { watches.caughtUp(to: caughtUp) }
        return notifications
    }

    private func notConnected() -> MilieuClientError {
        MilieuClientError(.notListening, "not connected: no milieud is answering at \(socketPath)")
    }
}
