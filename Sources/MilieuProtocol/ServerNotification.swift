import MilieuJSON

/// Every notification the daemon sends (SPEC §10), with its params as types: written by the
/// server, read by clients and the REPL.
public enum ServerNotification: Sendable, Equatable {
    /// `graph/didChange`: the watched values a commit changed.
    case didChange(WatchStamp, changes: [ValueChange])
    /// `view/didUpdate`: a watched view's body was evaluated again, and why; `printChanges` is the
    /// line `Self._printChanges()` prints, for a view whose body calls it.
    case didUpdate(WatchStamp, path: String, reasons: [String], body: [String], printChanges: String? = nil)
    /// `view/didMount`: a view appeared under a watched view.
    case didMount(WatchStamp, path: String, reason: String, body: [String], printChanges: String? = nil)
    /// `view/didUnmount`: a view under a watched view went away.
    case didUnmount(WatchStamp, path: String, reason: String)
    /// `object/didCreate`: an object was built (lifecycle watches).
    case objectDidCreate(WatchStamp, ObjectEvent)
    /// `object/didDestroy`: an object was released (lifecycle watches, and watches of the object).
    case objectDidDestroy(WatchStamp, ObjectEvent)
    /// `diagnostic`: SwiftUI would have done something surprising, such as ignoring a new initial value.
    case diagnostic(WatchStamp, Diagnostic)
    /// `graph/didCommit`: a version was committed, what made it and what it did (watches with
    /// `commits`); the last notification of its version.
    case didCommit(WatchStamp, CommitSummary)
    /// `connection/dropped`: the daemon is closing this connection, and why. Outside any watch.
    case connectionDropped(reason: String, message: String, pendingBytes: Int)

    /// The method name on the wire.
    public var method: String {
        switch self {
        case .didChange: "graph/didChange"
        case .didUpdate: "view/didUpdate"
        case .didMount: "view/didMount"
        case .didUnmount: "view/didUnmount"
        case .objectDidCreate: "object/didCreate"
        case .objectDidDestroy: "object/didDestroy"
        case .diagnostic: "diagnostic"
        case .didCommit: "graph/didCommit"
        case .connectionDropped: "connection/dropped"
        }
    }

    /// The watch and version it carries; nil for `connection/dropped`.
    public var stamp: WatchStamp? {
        switch self {
        case .didChange(let stamp, _), .didUpdate(let stamp, _, _, _, _), .didMount(let stamp, _, _, _, _), .didUnmount(let stamp, _, _),
            .objectDidCreate(let stamp, _), .objectDidDestroy(let stamp, _), .diagnostic(let stamp, _), .didCommit(let stamp, _):
            stamp
        case .connectionDropped: nil
        }
    }

    /// The params as sent: `watch` and `version` first, then the notification's own members.
    public var params: JSONObject {
        var params = JSONObject()
        if let stamp {
            params["watch"] = .int(stamp.watch)
            params["version"] = .int(stamp.version)
        }
        switch self {
        case .didChange(_, let changes):
            params["changes"] = .array(changes.map(\.wire))
        case .didUpdate(_, let path, let reasons, let body, let printChanges):
            params["path"] = .string(path)
            params["reasons"] = .array(reasons.map(JSON.string))
            params["body"] = .array(body.map(JSON.string))
            if let printChanges { params["printChanges"] = .string(printChanges) }
        case .didMount(_, let path, let reason, let body, let printChanges):
            params["path"] = .string(path)
            params["reason"] = .string(reason)
            params["body"] = .array(body.map(JSON.string))
            if let printChanges { params["printChanges"] = .string(printChanges) }
        case .didUnmount(_, let path, let reason):
            params["path"] = .string(path)
            params["reason"] = .string(reason)
        case .objectDidCreate(_, let event), .objectDidDestroy(_, let event):
            params["object"] = .string(event.object)
            params["type"] = .string(event.type)
            params["owner"] = event.owner.map(JSON.string) ?? .null
            params["reason"] = .string(event.reason)
            if !event.endedTargets.isEmpty { params["endedTargets"] = .array(event.endedTargets.map(JSON.string)) }
        case .diagnostic(_, let diagnostic):
            params["kind"] = .string(diagnostic.kind)
            params["message"] = .string(diagnostic.message)
            params["path"] = .string(diagnostic.path)
            params["variable"] = .string(diagnostic.variable)
            params["ignored"] = diagnostic.ignored
            params["hint"] = .string(diagnostic.hint)
        case .didCommit(_, let summary):
            params["cause"] = summary.cause?.wire ?? .null
            params["counts"] = summary.counts.wire
        case .connectionDropped(let reason, let message, let pendingBytes):
            params["reason"] = .string(reason)
            params["message"] = .string(message)
            params["pendingBytes"] = .int(pendingBytes)
        }
        return params
    }

    /// Writes the notification as one line.
    public func write(into writer: inout JSONWriter) {
        Envelope.notification(method: method, .object(params), into: &writer)
    }

    /// Reads a notification; nil for a method this side does not know or params of the wrong shape.
    public init?(method: String, params: JSONObject) {
        let json = JSON.object(params)
        if method == "connection/dropped" {
            guard let reason = json["reason"]?.stringValue, let message = json["message"]?.stringValue,
                let pending = json["pendingBytes"]?.intValue
            else { return nil }
            self = .connectionDropped(reason: reason, message: message, pendingBytes: pending)
            return
        }
        guard let watch = json["watch"]?.intValue, let version = json["version"]?.intValue else { return nil }
        let stamp = WatchStamp(watch: watch, version: version)
        let path = json["path"]?.stringValue
        let body = strings(json["body"])
        switch method {
        case "graph/didChange":
            guard let items = json["changes"]?.arrayValue else { return nil }
            var changes: [ValueChange] = []
            for item in items {
                guard let change = ValueChange(wire: item) else { return nil }
                changes.append(change)
            }
            self = .didChange(stamp, changes: changes)
        case "view/didUpdate":
            guard let path, let body, let reasons = strings(json["reasons"]) else { return nil }
            self = .didUpdate(stamp, path: path, reasons: reasons, body: body, printChanges: json["printChanges"]?.stringValue)
        case "view/didMount":
            guard let path, let body, let reason = json["reason"]?.stringValue else { return nil }
            self = .didMount(stamp, path: path, reason: reason, body: body, printChanges: json["printChanges"]?.stringValue)
        case "view/didUnmount":
            guard let path, let reason = json["reason"]?.stringValue else { return nil }
            self = .didUnmount(stamp, path: path, reason: reason)
        case "object/didCreate", "object/didDestroy":
            guard let object = json["object"]?.stringValue, let type = json["type"]?.stringValue,
                let reason = json["reason"]?.stringValue
            else { return nil }
            let event = ObjectEvent(
                object: object, type: type, owner: json["owner"]?.stringValue, reason: reason,
                endedTargets: strings(json["endedTargets"]) ?? [])
            self = method == "object/didCreate" ? .objectDidCreate(stamp, event) : .objectDidDestroy(stamp, event)
        case "diagnostic":
            guard let path, let kind = json["kind"]?.stringValue, let message = json["message"]?.stringValue,
                let variable = json["variable"]?.stringValue, let hint = json["hint"]?.stringValue
            else { return nil }
            self = .diagnostic(
                stamp,
                Diagnostic(kind: kind, message: message, path: path, variable: variable, ignored: json["ignored"] ?? .null, hint: hint))
        case "graph/didCommit":
            guard let counts = json["counts"].flatMap(CommitSummary.Counts.init(wire:)) else { return nil }
            let cause: CommitCause?
            switch json["cause"] {
            case .null?: cause = nil
            case let wire?:
                guard let known = CommitCause(wire: wire) else { return nil }
                cause = known
            case nil: return nil
            }
            self = .didCommit(stamp, CommitSummary(cause: cause, counts: counts))
        default: return nil
        }
    }

    /// Every notification method, for documents and tests.
    public static let methods = [
        "graph/didChange", "view/didUpdate", "view/didMount", "view/didUnmount", "object/didCreate", "object/didDestroy",
        "diagnostic", "connection/dropped", "graph/didCommit",
    ]
}

extension ServerNotification {
    /// What a `graph/didChange` line holds after its watch id: the version and the changes, the
    /// same bytes for every watch of one commit that gets the same changes. Written once per
    /// commit and shared, so that a watcher costs its id's digits, not an encoding of the changes.
    public static func didChangeTail(version: Int, changes: [EncodedValueChange]) -> [UInt8] {
        var writer = JSONWriter(capacity: 32 + changes.reduce(0) { $0 + $1.bytes.count })
        writer.writeRaw(#","version":"#)
        writer.writeInt(version)
        writer.writeRaw(#","changes":["#)
        for (index, change) in changes.enumerated() {
            if index > 0 { writer.writeRaw(UInt8(ascii: ",")) }
            writer.writeRaw(change.bytes)
        }
        writer.writeRaw("]}}\n")
        return writer.bytes
    }

    /// Writes the head of watch `watch`'s `graph/didChange` line, which its shared tail ends:
    /// together the bytes `.didChange(stamp, changes:).write(into:)` writes (a test holds them equal).
    public static func writeDidChangeHead(watch: Int, into writer: inout JSONWriter) {
        writer.writeRaw(#"{"jsonrpc":"2.0","method":"graph/didChange","params":{"watch":"#)
        writer.writeInt(watch)
    }

    /// The head `writeDidChangeHead` writes, as bytes: a watch keeps its own, made once, so that
    /// telling it of a change costs a copy of them and no encoding.
    public static func didChangeHead(watch: Int) -> [UInt8] {
        var writer = JSONWriter(capacity: 80)
        writeDidChangeHead(watch: watch, into: &writer)
        return writer.bytes
    }
}

/// One `graph/didChange` change encoded once as its JSON object, shared by every watch that
/// reports it under the same path. A reference, so that watches getting the same changes can
/// be told by identity, without comparing values.
public final class EncodedValueChange: Sendable {
    public let bytes: [UInt8]

    public init(_ change: ValueChange) {
        var writer = JSONWriter(capacity: 64)
        writer.write(change.wire)
        bytes = writer.bytes
    }
}

/// Which watch a notification is for, and the version of the commit that caused it.
public struct WatchStamp: Sendable, Hashable {
    public var watch: Int
    public var version: Int
    public init(watch: Int, version: Int) {
        self.watch = watch
        self.version = version
    }
}

/// One changed value of `graph/didChange`; `value` is nil for a secure value, sent as `redacted`.
public struct ValueChange: Sendable, Hashable {
    public var path: String
    public var value: JSON?

    public init(path: String, value: JSON?) {
        self.path = path
        self.value = value
    }

    public var wire: JSON {
        if let value { return ["path": .string(path), "value": value] }
        return ["path": .string(path), "redacted": true]
    }

    init?(wire: JSON) {
        guard let path = wire["path"]?.stringValue else { return nil }
        if wire["redacted"] == true {
            self.init(path: path, value: nil)
        } else {
            guard let value = wire["value"] else { return nil }
            self.init(path: path, value: value)
        }
    }
}

/// An object's creation or destruction: which object, of which type, held by whom, and why.
public struct ObjectEvent: Sendable, Hashable {
    public var object: String
    public var type: String
    /// The view variable that holds it (`/App/Login.vm`); nil for objects the scene owns.
    public var owner: String?
    /// The lifecycle reason's wire name (SPEC §10.5, §10.6).
    public var reason: String
    /// Of a destruction: the targets of the watch, as it spelled them, that covered this object
    /// and so cover nothing from now on (SPEC §11.1). Empty for a lifecycle watch's news.
    public var endedTargets: [String]

    public init(object: String, type: String, owner: String?, reason: String, endedTargets: [String] = []) {
        self.object = object
        self.type = type
        self.owner = owner
        self.reason = reason
        self.endedTargets = endedTargets
    }
}

/// What `graph/didCommit` tells of a version: what made it, when the daemon knows, and how
/// much it did (SPEC §10.9).
public struct CommitSummary: Sendable, Equatable {
    /// How many of each kind of change the commit made.
    public struct Counts: Sendable, Equatable {
        /// Properties and `@State`s changed.
        public var values = 0
        /// Views whose bodies were evaluated again.
        public var rendered = 0
        public var mounted = 0
        public var unmounted = 0
        public var created = 0
        public var destroyed = 0
        public var diagnostics = 0

        public init() {}

        public var wire: JSON {
            [
                "values": .int(values), "rendered": .int(rendered), "mounted": .int(mounted), "unmounted": .int(unmounted),
                "objectsCreated": .int(created), "objectsDestroyed": .int(destroyed), "diagnostics": .int(diagnostics),
            ]
        }

        public init?(wire: JSON) {
            guard let values = wire["values"]?.intValue, let rendered = wire["rendered"]?.intValue,
                let mounted = wire["mounted"]?.intValue, let unmounted = wire["unmounted"]?.intValue,
                let created = wire["objectsCreated"]?.intValue, let destroyed = wire["objectsDestroyed"]?.intValue,
                let diagnostics = wire["diagnostics"]?.intValue
            else { return nil }
            (self.values, self.rendered, self.mounted, self.unmounted) = (values, rendered, mounted, unmounted)
            (self.created, self.destroyed, self.diagnostics) = (created, destroyed, diagnostics)
        }
    }

    /// nil when the daemon no longer knows (a commit read back from the log after a restart).
    public var cause: CommitCause?
    public var counts: Counts

    public init(cause: CommitCause?, counts: Counts) {
        self.cause = cause
        self.counts = counts
    }
}

/// A `diagnostic` notification's own members (SPEC §10.7).
public struct Diagnostic: Sendable, Hashable {
    public var kind: String
    public var message: String
    /// The view it concerns.
    public var path: String
    public var variable: String
    /// What SwiftUI ignored (the new initial values).
    public var ignored: JSON
    public var hint: String

    public init(kind: String, message: String, path: String, variable: String, ignored: JSON, hint: String) {
        self.kind = kind
        self.message = message
        self.path = path
        self.variable = variable
        self.ignored = ignored
        self.hint = hint
    }
}
