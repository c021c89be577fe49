import MilieuEngine
import MilieuJSON
import MilieuProtocol
import MilieuTransport

/// One watch: a connection and the watch id it was given.
struct WatchKey: Hashable, Comparable {
    let connection: Int
    let watch: Int

    static func < (a: WatchKey, b: WatchKey) -> Bool { (a.connection, a.watch) < (b.connection, b.watch) }
}

/// What each watch asked for, indexed so that a commit is matched against only the watches
/// it concerns, and the notifications each of them gets (SPEC §10, §11).
///
/// Removing a watch costs what it registered, and closing a connection what that connection
/// registered: many watches share one object or view, so each index keeps its watches in a
/// `WatchGroups`, where one watch's entries come out in one step, whoever else is there.
final class WatchRegistry {
    /// A watch of an object's property or of all of them. A class, immutable: a fan-out hands each
    /// watch's entry on, which copied a struct's two strings and its head (four reference counts
    /// more a delivery; some 45 instructions, callgrind).
    private final class PropertyWatch {
        /// nil: every property of the object.
        let property: String?
        /// The watched key path as the client spelled it.
        let spelled: String
        /// Whether `spelled` is ASCII, where `==` is byte equality: a fan-out compares spellings
        /// with `==` only then (a precomposed `é` and an `e` with a combining accent are `==`).
        let isASCII: Bool
        /// The watch's `graph/didChange` head (`ServerNotification.didChangeHead`), shared by its targets.
        let head: [UInt8]

        init(property: String?, spelled: String, head: [UInt8]) {
            self.property = property
            self.spelled = spelled
            isASCII = spelled.utf8.allSatisfy { $0 < 0x80 }
            self.head = head
        }

        /// Whether a change of `changed`, a property of the watched object, concerns this watch.
        func covers(_ changed: String) -> Bool { property == nil || property == changed }

        /// The path a change of `changed` is reported under: the watched key path, or for a
        /// watch of the whole object, its path with the property after it.
        func path(of changed: String) -> String { property == nil ? spelled + "." + changed : spelled }
    }

    private var byObject: [String: WatchGroups<PropertyWatch>] = [:]
    /// Each watched @State's spelled path, by its view's path and then its name: a view that goes
    /// takes the watches of its state with it (`forgetEndedTargets`).
    private var byState: [String: [String: WatchGroups<String>]] = [:]
    private var byView: [String: WatchGroups<Void>] = [:]
    private var lifecycle = WatchGroups<Void>()
    /// The watches of every commit (`commits: true`).
    private var commitWatchers = WatchGroups<Void>()
    /// The watches that want every view's `_printChanges` line (`printChanges: true`, SPEC §10.1).
    private var printsChanges: Set<WatchKey> = []

    /// Whether a watch of every view's `_printChanges` line is open: only then are there lines to make.
    var printsAnyChanges: Bool { !printsChanges.isEmpty }

    /// What each watch registered, to take it out again, and the bytes of its spelled targets.
    private var registrations: [WatchKey: (targets: [WatchTarget], lifecycle: Bool, commits: Bool, bytes: Int)] = [:]
    /// The bytes of spelled targets each connection's watches hold (`watchTargetBytes`).
    private var targetBytes: [Int: Int] = [:]
    /// Each connection's watch ids, so that closing it does not look at anyone else's.
    private var byConnection: [Int: Set<Int>] = [:]
    /// Index entries taken out so far: what the tests hold removal proportional to.
    private(set) var removalSteps = 0
    /// How many watches the last commit's notifications were for.
    private var lastReach = 0
    /// The watches with more than one target, whose targets may overlap (`login` and
    /// `login.email`, a view and one of its @State): only their changes are checked for a path
    /// given twice, which SPEC §11.1 merges.
    private var severalTargets: Set<WatchKey> = []

    /// Watches made in a turn while commits of that turn waited to be published, each with the
    /// version its response gave: they are not told of commits at or before it as those go out
    /// (SPEC §11.3; a resumed one has them in its replay). Empty but for the turn that made them.
    private var heldBack: [WatchKey: Int] = [:]

    func count(connection: Int) -> Int { byConnection[connection]?.count ?? 0 }

    /// Keeps the commits through `version` from `key` as they are published (`heldBack`).
    func holdBack(_ key: WatchKey, through version: Int) { heldBack[key] = version }

    /// The turn's commits are published: the watches it made take every commit from now on.
    func endHoldBack() { if !heldBack.isEmpty { heldBack.removeAll() } }

    /// The UTF-8 bytes of the targets `connection`'s watches spelled, together.
    func targetBytes(connection: Int) -> Int { targetBytes[connection] ?? 0 }

    /// The bytes a watch of `targets` counts against `watchTargetBytes`.
    static func bytes(of targets: [(target: WatchTarget, spelled: String)]) -> Int {
        targets.reduce(0) { $0 + $1.spelled.utf8.count }
    }

    /// Every connection's watches together.
    var count: Int { registrations.count }

    func contains(_ key: WatchKey) -> Bool { registrations[key] != nil }

    /// Whether some watch wants every commit, even one that changed nothing (`schema/register`).
    var watchesCommits: Bool { !commitWatchers.isEmpty }

    func add(
        _ key: WatchKey, targets: [(target: WatchTarget, spelled: String)], lifecycle wantsLifecycle: Bool, commits wantsCommits: Bool,
        printChanges wantsPrintChanges: Bool = false
    ) {
        var head: [UInt8]?
        /// A property watch's entry; its path the very string the watch before it used, when they
        /// spell it with the same bytes (a fan-out then tells them apart from a new path without
        /// reading it). Not `==`, which equates canonically equivalent spellings: each watcher is
        /// told the bytes it sent (SPEC §11.2).
        func propertyWatch(_ object: String, _ property: String?, _ spelled: String) -> PropertyWatch {
            if head == nil { head = ServerNotification.didChangeHead(watch: key.watch) }
            if let previous = byObject[object]?.lastEntry?.spelled, previous.hasSameUTF8(as: spelled) {
                return PropertyWatch(property: property, spelled: previous, head: head!)
            }
            return PropertyWatch(property: property, spelled: spelled, head: head!)
        }
        for (target, spelled) in targets {
            switch target {
            case .object(let object):
                byObject[object, default: WatchGroups()].append(propertyWatch(object, nil, spelled), for: key)
            case .property(let object, let property):
                byObject[object, default: WatchGroups()].append(propertyWatch(object, property, spelled), for: key)
            case .state(let view, let variable): byState[view, default: [:]][variable, default: WatchGroups()].append(spelled, for: key)
            case .view(let path):
                // A view named twice is one target: its events go out once.
                guard byView[path]?.contains(key) != true else { continue }
                byView[path, default: WatchGroups()].append((), for: key)
            }
        }
        if wantsLifecycle { lifecycle.append((), for: key) }
        if wantsCommits { commitWatchers.append((), for: key) }
        if wantsPrintChanges { printsChanges.insert(key) }
        if targets.count > 1 { severalTargets.insert(key) }
        let bytes = Self.bytes(of: targets)
        registrations[key] = (targets.map(\.target), wantsLifecycle, wantsCommits, bytes)
        targetBytes[key.connection, default: 0] += bytes
        byConnection[key.connection, default: []].insert(key.watch)
    }

    func remove(_ key: WatchKey) {
        guard let registration = registrations.removeValue(forKey: key) else { return }
        severalTargets.remove(key)
        printsChanges.remove(key)
        targetBytes[key.connection, default: 0] -= registration.bytes
        if targetBytes[key.connection] == 0 { targetBytes[key.connection] = nil }
        if byConnection[key.connection]?.remove(key.watch) != nil, byConnection[key.connection]?.isEmpty == true {
            byConnection[key.connection] = nil
        }
        for target in registration.targets {
            removalSteps += 1
            switch target {
            case .object(let object), .property(let object, _): Self.remove(key, from: object, in: &byObject)
            case .state(let view, let variable): removeState(key, of: view, variable)
            case .view(let path): Self.remove(key, from: path, in: &byView)
            }
        }
        if registration.lifecycle {
            removalSteps += 1
            lifecycle.remove(key)
        }
        if registration.commits {
            removalSteps += 1
            commitWatchers.remove(key)
        }
    }

    /// Takes the watches of `commit`'s destroyed objects, and of the @State of its unmounted views,
    /// out of the index: a key path target stays with what it resolved to (SPEC §11.1). A
    /// destroyed object told its watches (`endedTargets`), and its id is never used again; a view
    /// mounted again at the path of one that went is another view, with state of its own.
    func forgetEndedTargets(of commit: Commit) {
        for change in commit.changes {
            switch change {
            case .objectDestroyed(let object, _, _, _): byObject[object] = nil
            case .viewUnmounted(let view, _): forgetState(of: view, unmountedAt: commit.version.rawValue)
            default: continue
            }
        }
    }

    /// Takes the watches of `view`'s @State out of the index, but those made later in the turn
    /// than its unmount (`heldBack` through its version or after): they resolved to the view
    /// mounted at its path since.
    private func forgetState(of view: String, unmountedAt version: Int) {
        guard !heldBack.isEmpty, let groups = byState[view] else {
            byState[view] = nil
            return
        }
        for (variable, group) in groups {
            var ended: [WatchKey] = []
            group.forEach { key, _ in if (heldBack[key] ?? 0) < version { ended.append(key) } }
            for key in ended { removeState(key, of: view, variable) }
        }
    }

    /// Takes `key` out of the watches of `view`'s @State `variable`, and the group and the view's
    /// entry with it once empty. A watch lists a target once per spelling, and a view that went
    /// took its groups with it: the group may already be gone.
    private func removeState(_ key: WatchKey, of view: String, _ variable: String) {
        guard byState[view]?[variable]?.remove(key) == true, byState[view]?[variable]?.isEmpty == true else { return }
        byState[view]?[variable] = nil
        if byState[view]?.isEmpty == true { byState[view] = nil }
    }

    func removeAll(connection: Int) {
        guard let watches = byConnection[connection] else { return }
        for watch in watches { remove(WatchKey(connection: connection, watch: watch)) }
    }

    /// Takes `key`'s entries out of `index[name]`, and the entry itself once nobody is left.
    private static func remove<Entry>(_ key: WatchKey, from name: String, in index: inout [String: WatchGroups<Entry>]) {
        // A watch lists a target once per spelling: the group may already be gone.
        guard index[name]?.remove(key) == true, index[name]?.isEmpty == true else { return }
        index[name] = nil
    }

    /// The notification lines `commit` produces, per connection; with `only`, for that watch alone.
    /// With no watch at all, it is not asked (`Server.publish`).
    /// `cause` is what made the commit, for watches of every commit. `printLines` are the
    /// `_printChanges` lines of views that do not declare one, by the index of their change
    /// (`printLines(of:in:)`), for the watches that asked for every view's.
    func notifications(
        for commit: Commit, cause: @autoclosure () -> CommitCause?, only: WatchKey? = nil, printLines: [Int: String] = [:]
    ) -> FanOut {
        if only == nil, commitWatchers.isEmpty, severalTargets.isEmpty, heldBack.isEmpty, commit.changes.count == 1,
            case .property(let object, _, let property, let value) = commit.changes[0]
        {
            return fanOut(ofProperty: property, of: object, value, version: commit.version.rawValue)
        }
        var pending: [WatchKey: Pending] = [:]
        // Sized for as many watches as the last commit reached: a fan-out to the same watchers
        // again does not grow its table eight times over (650 instructions a delivery at 100).
        pending.reserveCapacity(lastReach)
        defer { if only == nil { lastReach = pending.count } }
        func add(_ key: WatchKey, _ body: (inout Pending, WatchStamp) -> Void) {
            guard only == nil || only == key else { return }
            if only == nil, !heldBack.isEmpty, let through = heldBack[key], commit.version.rawValue <= through { return }
            body(&pending[key, default: Pending()], WatchStamp(watch: key.watch, version: commit.version.rawValue))
        }
        let mayOverlap = !severalTargets.isEmpty
        /// The paths given so far to each watch whose targets may overlap, each spelling once (SPEC §11.1).
        var given: [WatchKey: Set<String>] = [:]
        /// Whether `key` is still to be given a change under `path`.
        func isNew(_ path: String, for key: WatchKey) -> Bool {
            guard severalTargets.contains(key) else { return true }
            return given[key, default: []].insert(path).inserted
        }
        let watchesViews = !byView.isEmpty
        /// The line `key` gets for the change at `index`: the declared one, or for a watch of every
        /// view's line, the one computed for it.
        func line(_ printed: String?, at index: Int, for key: WatchKey) -> String? {
            guard printed == nil, !printLines.isEmpty, printsChanges.contains(key) else { return printed }
            return printLines[index]
        }
        for (index, change) in commit.changes.enumerated() {
            switch change {
            case .property(let object, _, let property, let value):
                var encoding = ChangeEncoding(value: value)
                byObject[object]?.forEach { key, entry in
                    guard entry.covers(property), only == nil || only == key else { return }
                    let path = entry.path(of: property)
                    guard !mayOverlap || isNew(path, for: key) else { return }
                    let change = encoding.encoded(path: path)
                    add(key) { pending, _ in pending.changes.append(change) }
                }
            case .state(let view, let variable, let value):
                var encoding = ChangeEncoding(value: value)
                byState[view]?[variable]?.forEach { key, spelled in
                    guard only == nil || only == key, !mayOverlap || isNew(spelled, for: key) else { return }
                    let change = encoding.encoded(path: spelled)
                    add(key) { pending, _ in pending.changes.append(change) }
                }
                if watchesViews {
                    let path = view + "." + variable
                    for key in viewWatchers(of: view) where (only == nil || only == key) && (!mayOverlap || isNew(path, for: key)) {
                        let change = encoding.encoded(path: path)
                        add(key) { pending, _ in pending.changes.append(change) }
                    }
                }
            case .viewUpdated(let view, let reasons, let lines, let printed):
                guard watchesViews else { continue }
                let body = Array(lines)
                for key in viewWatchers(of: view) {
                    let printed = line(printed, at: index, for: key)
                    add(key) { pending, stamp in
                        pending.events.append(.didUpdate(stamp, path: view, reasons: reasons, body: body, printChanges: printed))
                    }
                }
            case .viewMounted(let view, let reason, let lines, let printed):
                guard watchesViews else { continue }
                let body = Array(lines)
                for key in viewWatchers(of: view) {
                    let printed = line(printed, at: index, for: key)
                    add(key) { pending, stamp in
                        pending.events.append(.didMount(stamp, path: view, reason: reason.rawValue, body: body, printChanges: printed))
                    }
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
                lifecycle.forEach { key, _ in add(key) { pending, stamp in pending.events.append(.objectDidCreate(stamp, event)) } }
            case .objectDestroyed(let object, let type, let owner, let reason):
                // Each watch once: with the targets it loses, if it had any on the object.
                var ended: [WatchKey: [String]] = [:]
                byObject[object]?.forEach { key, entry in ended[key, default: []].append(entry.spelled) }
                for (key, targets) in ended {
                    let event = ObjectEvent(object: object, type: type, owner: owner, reason: reason.rawValue, endedTargets: targets)
                    add(key) { pending, stamp in pending.events.append(.objectDidDestroy(stamp, event)) }
                }
                let event = ObjectEvent(object: object, type: type, owner: owner, reason: reason.rawValue)
                lifecycle.forEach { key, _ in
                    if ended[key] == nil { add(key) { pending, stamp in pending.events.append(.objectDidDestroy(stamp, event)) } }
                }
            }
        }
        if !commitWatchers.isEmpty {
            let summary = CommitSummary(cause: cause(), counts: Self.counts(of: commit))
            commitWatchers.forEach { key, _ in add(key) { pending, stamp in pending.events.append(.didCommit(stamp, summary)) } }
        }
        // Sorted with their notes, so that each watch's notes are not looked up again.
        var output = FanOut(watches: pending.count)
        var tails = DidChangeTails(version: commit.version.rawValue)
        for (key, notes) in pending.sorted(by: { $0.key < $1.key }) {
            notes.write(WatchStamp(watch: key.watch, version: commit.version.rawValue), tails: &tails, to: key.connection, into: &output)
        }
        return output
    }

    /// A commit of one property change and nothing else, the usual write, to watches that each
    /// have one target: each watch of the property gets one `graph/didChange` of one change, in
    /// watch order, written out directly rather than noted per watch in a table, sorted and
    /// written from it (a fan-out's delivery cost half as much again that way). A watch's line is
    /// its own head, made when it registered, and the commit's shared tail: nothing is encoded
    /// per watch.
    private func fanOut(ofProperty property: String, of object: String, _ value: JSON?, version: Int) -> FanOut {
        guard let watches = byObject[object] else { return FanOut() }
        var output = FanOut()
        var tails = DidChangeTails(version: version)
        var encoding = ChangeEncoding(value: value)
        var reach = 0
        // The path told last and its tail. The watches of one property report its change under
        // the path they spelled, most often the same one, so each that spells the path told last
        // takes the tail from here: through the encoding's and the tails' memos it cost a delivery
        // some 90 instructions of copies and comparisons (callgrind).
        // Told apart with `==` only when both are ASCII: comparing bytes cost a delivery some 130
        // instructions more (callgrind). A whole object's watch is told its spelling with the
        // property after it, which is ASCII too (a property's name is an identifier).
        var told: (path: String, tail: SharedBytes, isASCII: Bool)?
        func tell(_ key: WatchKey, _ entry: PropertyWatch) {
            guard entry.covers(property) else { return }
            let tail: SharedBytes
            if entry.property != nil, entry.isASCII, told?.isASCII == true, told?.path == entry.spelled, let last = told?.tail {
                tail = last
            } else {
                let path = entry.path(of: property)
                tail = tails.tail(for: encoding.encoded(path: path))
                told = (path, tail, entry.isASCII)
            }
            if reach == 0 {
                // Room for every watch's line, as long as this one's, before the first is written.
                let copied = tail.count < FanOut.sharedMinimum ? tail.count : 0
                output = FanOut(watches: watches.count, textBytes: entry.head.count + copied)
            }
            output.write(to: key.connection, head: { $0.writeRaw(entry.head) }, tail: tail)
            reach += 1
        }
        if watches.isInKeyOrder {
            watches.forEach(tell)
        } else {
            var receivers: [(key: WatchKey, entry: PropertyWatch)] = []
            watches.forEach { receivers.append(($0, $1)) }
            for (key, entry) in receivers.sorted(by: { $0.key < $1.key }) { tell(key, entry) }
        }
        lastReach = reach
        return output
    }

    /// The `_printChanges` lines of the views `commit` evaluated that do not declare one and that
    /// a watch of every view's line covers, by the index of their change; `line` gives one from a
    /// view's path, its reasons and whether it is a new identity. Asked while the graph is as the
    /// commit left it (for a replayed commit, as it is now). A view that appeared through an id
    /// change gets one line, its mount's: the `@identity` update after it prints nothing more.
    func printLines(of commit: Commit, line: (String, [String], Bool) -> String?) -> [Int: String] {
        var lines: [Int: String] = [:]
        var renewed: Set<String> = []
        func wanted(_ view: String) -> Bool { viewWatchers(of: view).contains(where: printsChanges.contains) }
        for (index, change) in commit.changes.enumerated() {
            switch change {
            case .viewMounted(let view, let reason, _, nil) where wanted(view):
                if reason == .identity { renewed.insert(view) }
                lines[index] = line(view, [], true)
            case .viewUpdated(let view, let reasons, _, nil) where !renewed.contains(view) && wanted(view):
                lines[index] = line(view, reasons, false)
            default: break
            }
        }
        return lines
    }

    /// How many of each kind of change `commit` made, for `graph/didCommit`.
    private static func counts(of commit: Commit) -> CommitSummary.Counts {
        var counts = CommitSummary.Counts()
        for change in commit.changes {
            switch change {
            case .property, .state: counts.values += 1
            case .viewUpdated: counts.rendered += 1
            case .viewMounted: counts.mounted += 1
            case .viewUnmounted: counts.unmounted += 1
            case .objectCreated: counts.created += 1
            case .objectDestroyed: counts.destroyed += 1
            case .diagnostic: counts.diagnostics += 1
            }
        }
        return counts
    }

    /// The watches on `view` or on any of its ancestors, each once: a watch of `/App` and of
    /// `/App/V` is told of `/App/V` once (SPEC §11.1).
    private func viewWatchers(of view: String) -> [WatchKey] {
        var keys: [WatchKey] = []
        var groups = 0
        for prefix in ViewPathPrefixes.of(view) {
            let before = keys.count
            byView[prefix]?.forEach { key, _ in keys.append(key) }
            if keys.count > before { groups += 1 }
        }
        guard groups > 1 else { return keys }
        var seen = Set<WatchKey>(minimumCapacity: keys.count)
        return keys.filter { seen.insert($0).inserted }
    }

    /// One watch's share of a commit: its changed values first (one `graph/didChange`), then its events.
    private struct Pending {
        var changes: [EncodedValueChange] = []
        var events: [ServerNotification] = []

        func write(_ stamp: WatchStamp, tails: inout DidChangeTails, to connection: Int, into output: inout FanOut) {
            if !changes.isEmpty {
                output.write(
                    to: connection, head: { ServerNotification.writeDidChangeHead(watch: stamp.watch, into: &$0) },
                    tail: tails.tail(for: changes))
            }
            guard !events.isEmpty else { return }
            output.write(to: connection) { text in for event in events { event.write(into: &text) } }
        }
    }

    /// One changed value's encodings for the watches of one change: watches that spell the path
    /// alike (nearly always all of them, and they come one after another) share one encoding.
    private struct ChangeEncoding {
        let value: JSON?
        private var last: (path: String, change: EncodedValueChange)?

        init(value: JSON?) { self.value = value }

        mutating func encoded(path: String) -> EncodedValueChange {
            // Compared in place: `if let last` copied the pair, a retain and a release of each. By
            // bytes: a path canonically equivalent to the last is still another client's spelling.
            if last?.path.hasSameUTF8(as: path) == true, let change = last?.change { return change }
            let change = EncodedValueChange(ValueChange(path: path, value: value))
            last = (path, change)
            return change
        }
    }

    /// The `graph/didChange` tails of one commit: watches that got the same encoded changes (the
    /// same objects, told apart by identity) share one tail, so a fan-out encodes the line once and
    /// every connection sends the same bytes (`SharedBytes`).
    private struct DidChangeTails {
        let version: Int
        private var last: (changes: [EncodedValueChange], tail: SharedBytes)?

        init(version: Int) { self.version = version }

        mutating func tail(for changes: [EncodedValueChange]) -> SharedBytes {
            // The count compared in place first, as in `ChangeEncoding`: this runs for every watch.
            if last?.changes.count == changes.count, let tail = last?.tail,
                zip(last?.changes ?? [], changes).allSatisfy({ $0 === $1 })
            {
                return tail
            }
            let tail = SharedBytes(ServerNotification.didChangeTail(version: version, changes: changes))
            last = (changes, tail)
            return tail
        }

        /// The tail of one change: no array of one for each watch that gets the same.
        mutating func tail(for change: EncodedValueChange) -> SharedBytes {
            if last?.changes.count == 1, last?.changes[0] === change, let tail = last?.tail { return tail }
            return tail(for: [change])
        }
    }
}

/// A commit's notifications for every connection they go to, in the order each is sent: runs of
/// `text`, which holds what is written for one watch only (a line's head, events), and tails
/// shared by every watch that got the same changes. A watcher costs its head and a reference.
struct FanOut {
    enum Part {
        case text(Range<Int>)
        case shared(SharedBytes)
    }

    /// A part and the connection it goes to.
    struct Delivery {
        let connection: Int
        var part: Part
    }

    private(set) var text: JSONWriter
    /// Each connection's parts, one connection after another. Not tuples: an array of tuples
    /// was destroyed element by element through the runtime's generic tuple destroy, some 50
    /// instructions a delivery (callgrind).
    private(set) var parts: [Delivery] = []

    /// Room for `watches` watches' parts and `textBytes` of text each; none, and no allocation,
    /// for a commit nobody watches.
    init(watches: Int = 0, textBytes: Int = 64) {
        // Not `reserveCapacity(0)`, which is not free (some 110 instructions a commit).
        if watches > 0 { parts.reserveCapacity(2 * watches) }
        text = JSONWriter(capacity: textBytes * watches)
    }

    var isEmpty: Bool { parts.isEmpty }

    /// Writes into `text` for `connection`; consecutive writes for one connection are one run.
    mutating func write(to connection: Int, _ body: (inout JSONWriter) -> Void) {
        let start = text.count
        body(&text)
        guard text.count > start else { return }
        if let last = parts.last, last.connection == connection, case .text(let run) = last.part, run.upperBound == start {
            parts[parts.count - 1].part = .text(run.lowerBound..<text.count)
        } else {
            parts.append(Delivery(connection: connection, part: .text(start..<text.count)))
        }
    }

    /// Tails shorter than this are copied into `text`: a copy of a few hundred bytes costs less
    /// than splicing a reference into the connection's output and its own iovec (callgrind,
    /// docs/benchmarks.md), and a large one costs each watcher a copy and its memory.
    static let sharedMinimum = 1024

    /// Writes a line for `connection`: its head, written by `head`, and the shared `tail` after
    /// it, copied into the head's run of text when shorter than `sharedMinimum`.
    mutating func write(to connection: Int, head: (inout JSONWriter) -> Void, tail: SharedBytes) {
        let copies = tail.count < Self.sharedMinimum
        write(to: connection) { text in
            head(&text)
            if copies { text.writeRaw(tail.bytes) }
        }
        if !copies { parts.append(Delivery(connection: connection, part: .shared(tail))) }
    }

    /// Everything sent to `connection`, as one line of bytes (a resumed watch's replay, tests).
    func bytes(for connection: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        for delivery in parts where delivery.connection == connection {
            switch delivery.part {
            case .text(let run): text.withBytes(in: run) { bytes += $0 }
            case .shared(let shared): bytes += shared.bytes
            }
        }
        return bytes
    }
}

/// A view path and its ancestors' paths, `/App` first; brackets around ids may hold `/`.
enum ViewPathPrefixes {
    static func of(_ path: String) -> [String] {
        EmbeddedJSONScanner.topLevelIndices(of: "/", in: path).dropFirst().map { String(path[..<$0]) } + [path]
    }
}

/// The watches on one thing, each with its entries in the order it registered them. A watch's
/// entries are added and taken out in one step whoever else watches the same thing: the
/// last group moves into the hole (watches are reported sorted by key, so their order here
/// does not show), and a watch's own entries stay in order.
struct WatchGroups<Entry> {
    private var keys: [WatchKey] = []
    private var groups: [[Entry]] = []
    private var positions: [WatchKey: Int] = [:]

    var isEmpty: Bool { keys.isEmpty }

    /// How many watches there are.
    var count: Int { keys.count }

    /// Whether the watches come in the order of their keys, as they do unless one was taken out.
    var isInKeyOrder: Bool { zip(keys, keys.dropFirst()).allSatisfy { $0 < $1 } }

    /// The entry added last, if its watch is still here.
    var lastEntry: Entry? { groups.last?.last }

    func contains(_ key: WatchKey) -> Bool { positions[key] != nil }

    mutating func append(_ entry: Entry, for key: WatchKey) {
        if let position = positions[key] {
            groups[position].append(entry)
            return
        }
        positions[key] = keys.count
        keys.append(key)
        groups.append([entry])
    }

    /// Takes out every entry of `key`; false when it had none.
    @discardableResult
    mutating func remove(_ key: WatchKey) -> Bool {
        guard let position = positions.removeValue(forKey: key) else { return false }
        let last = keys.count - 1
        if position != last {
            keys.swapAt(position, last)
            groups.swapAt(position, last)
            positions[keys[position]] = position
        }
        keys.removeLast()
        groups.removeLast()
        return true
    }

    /// Each entry with its watch, a watch's entries in the order they were added.
    func forEach(_ body: (WatchKey, Entry) -> Void) {
        // By index, each entry handed over where it is: `for entry in` copied each, and a fan-out
        // to 100 watches made 100 copies of their heads and paths.
        for group in groups.indices {
            for position in groups[group].indices { body(keys[group], groups[group][position]) }
        }
    }
}
