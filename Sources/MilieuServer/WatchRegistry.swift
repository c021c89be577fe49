import MilieuEngine
import MilieuJSON
import MilieuProtocol

/// One watch: a connection and the watch id it was given.
struct WatchKey: Hashable, Comparable {
    let connection: Int
    let watch: Int

    static func < (a: WatchKey, b: WatchKey) -> Bool { (a.connection, a.watch) < (b.connection, b.watch) }
}

/// What each watch asked for, indexed so that a commit is matched against only the watches
/// it concerns, and the notifications each of them gets (SPEC §10, §11).
final class WatchRegistry {
    private struct PropertyWatch {
        let key: WatchKey
        /// nil: every property of the object.
        let property: String?
        /// The watched key path as the client spelled it.
        let spelled: String
    }

    private var byObject: [String: [PropertyWatch]] = [:]
    private var byState: [String: [(key: WatchKey, spelled: String)]] = [:]
    private var byView: [String: [WatchKey]] = [:]
    private var lifecycle: [WatchKey] = []
    /// What each watch registered, to take it out again.
    private var registrations: [WatchKey: (targets: [WatchTarget], lifecycle: Bool)] = [:]

    func count(connection: Int) -> Int { registrations.keys.filter { $0.connection == connection }.count }

    func contains(_ key: WatchKey) -> Bool { registrations[key] != nil }

    func add(_ key: WatchKey, targets: [(target: WatchTarget, spelled: String)], lifecycle wantsLifecycle: Bool) {
        for (target, spelled) in targets {
            switch target {
            case .object(let object): byObject[object, default: []].append(PropertyWatch(key: key, property: nil, spelled: spelled))
            case .property(let object, let property):
                byObject[object, default: []].append(PropertyWatch(key: key, property: property, spelled: spelled))
            case .state(let view, let variable): byState[Self.stateKey(view, variable), default: []].append((key, spelled))
            case .view(let path): byView[path, default: []].append(key)
            }
        }
        if wantsLifecycle { lifecycle.append(key) }
        registrations[key] = (targets.map(\.target), wantsLifecycle)
    }

    func remove(_ key: WatchKey) {
        guard let registration = registrations.removeValue(forKey: key) else { return }
        for target in registration.targets {
            switch target {
            case .object(let object), .property(let object, _):
                byObject[object]?.removeAll { $0.key == key }
                if byObject[object]?.isEmpty == true { byObject[object] = nil }
            case .state(let view, let variable):
                byState[Self.stateKey(view, variable)]?.removeAll { $0.key == key }
                if byState[Self.stateKey(view, variable)]?.isEmpty == true { byState[Self.stateKey(view, variable)] = nil }
            case .view(let path):
                byView[path]?.removeAll { $0 == key }
                if byView[path]?.isEmpty == true { byView[path] = nil }
            }
        }
        if registration.lifecycle { lifecycle.removeAll { $0 == key } }
    }

    func removeAll(connection: Int) {
        for key in registrations.keys where key.connection == connection { remove(key) }
    }

    private static func stateKey(_ view: String, _ variable: String) -> String { view + "." + variable }

    /// The notification lines `commit` produces, per connection; with `only`, for that watch alone.
    func notifications(for commit: Commit, only: WatchKey? = nil) -> [Int: JSONWriter] {
        guard !registrations.isEmpty else { return [:] }
        var pending: [WatchKey: Pending] = [:]
        func add(_ key: WatchKey, _ body: (inout Pending, WatchStamp) -> Void) {
            guard only == nil || only == key else { return }
            body(&pending[key, default: Pending()], WatchStamp(watch: key.watch, version: commit.version.rawValue))
        }
        let watchesViews = !byView.isEmpty
        for change in commit.changes {
            switch change {
            case .property(let object, _, let property, let value):
                for entry in byObject[object] ?? [] where entry.property == nil || entry.property == property {
                    let path = entry.property == nil ? entry.spelled + "." + property : entry.spelled
                    add(entry.key) { pending, _ in pending.changes.append(ValueChange(path: path, value: value)) }
                }
            case .state(let view, let variable, let value):
                let path = Self.stateKey(view, variable)
                for (key, spelled) in byState[path] ?? [] {
                    add(key) { pending, _ in pending.changes.append(ValueChange(path: spelled, value: value)) }
                }
                if watchesViews {
                    for key in viewWatchers(of: view) {
                        add(key) { pending, _ in pending.changes.append(ValueChange(path: path, value: value)) }
                    }
                }
            case .viewUpdated(let view, let reasons, let body):
                guard watchesViews else { continue }
                for key in viewWatchers(of: view) {
                    add(key) { pending, stamp in pending.events.append(.didUpdate(stamp, path: view, reasons: reasons, body: body)) }
                }
            case .viewMounted(let view, let reason, let body):
                guard watchesViews else { continue }
                for key in viewWatchers(of: view) {
                    add(key) { pending, stamp in pending.events.append(.didMount(stamp, path: view, reason: reason.rawValue, body: body)) }
                }
            case .viewUnmounted(let view, let reason):
                guard watchesViews else { continue }
                for key in viewWatchers(of: view) {
                    add(key) { pending, stamp in pending.events.append(.didUnmount(stamp, path: view, reason: reason.rawValue)) }
                }
            case .diagnostic(let kind, let message, let view, let variable, let ignored, let hint):
                guard watchesViews else { continue }
                let diagnostic = Diagnostic(kind: kind, message: message, path: view, variable: variable, ignored: ignored, hint: hint)
                for key in viewWatchers(of: view) { add(key) { pending, stamp in pending.events.append(.diagnostic(stamp, diagnostic)) } }
            case .objectCreated(let object, let type, let owner, let reason):
                let event = ObjectEvent(object: object, type: type, owner: owner, reason: reason.rawValue)
                for key in lifecycle { add(key) { pending, stamp in pending.events.append(.objectDidCreate(stamp, event)) } }
            case .objectDestroyed(let object, let type, let owner, let reason):
                let event = ObjectEvent(object: object, type: type, owner: owner, reason: reason.rawValue)
                var told = Set<WatchKey>()
                for key in lifecycle + (byObject[object] ?? []).filter({ $0.property == nil }).map(\.key) where told.insert(key).inserted {
                    add(key) { pending, stamp in pending.events.append(.objectDidDestroy(stamp, event)) }
                }
            }
        }
        var output: [Int: JSONWriter] = [:]
        for key in pending.keys.sorted() {
            guard let notes = pending[key] else { continue }
            notes.write(
                WatchStamp(watch: key.watch, version: commit.version.rawValue), into: &output[key.connection, default: JSONWriter()])
        }
        return output
    }

    /// The watches on `view` or on any of its ancestors.
    private func viewWatchers(of view: String) -> [WatchKey] {
        var keys: [WatchKey] = []
        for prefix in ViewPathPrefixes.of(view) { keys += byView[prefix] ?? [] }
        return keys
    }

    /// One watch's share of a commit: its changed values first (one `graph/didChange`), then its events.
    private struct Pending {
        var changes: [ValueChange] = []
        var events: [ServerNotification] = []

        func write(_ stamp: WatchStamp, into writer: inout JSONWriter) {
            if !changes.isEmpty { ServerNotification.didChange(stamp, changes: changes).write(into: &writer) }
            for event in events { event.write(into: &writer) }
        }
    }
}

/// A view path and its ancestors' paths, `/App` first; brackets around ids may hold `/`.
enum ViewPathPrefixes {
    static func of(_ path: String) -> [String] {
        EmbeddedJSONScanner.topLevelIndices(of: "/", in: path).dropFirst().map { String(path[..<$0]) } + [path]
    }
}
