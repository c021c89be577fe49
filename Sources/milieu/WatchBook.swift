import MilieuClient
import MilieuJSON
import MilieuProtocol

/// A watch the user made, kept across reconnects: its targets, its id on the current
/// connection, and the last version shown for it (where a resumed watch starts again) with
/// the daemon instance that version is of.
final class WatchRecord {
    /// The number the user sees (`w1`), stable across reconnects, unlike the daemon's id.
    let number: Int
    let paths: [String]
    let views: [String]
    let lifecycle: Bool
    /// Every commit, with what made it (`milieu monitor`).
    let commits: Bool
    /// Every view's `_printChanges` line, declared or not (`--print-changes`).
    let printChanges: Bool
    /// A console watch: it shows its views' `_printChanges` lines and nothing else, as Xcode's
    /// console does (`load` opens one).
    let console: Bool
    /// The view targets not mounted when the watch was made: it covers them once they are.
    var notMounted: [String] = []
    /// The key path targets whose object was destroyed: they cover nothing any more.
    private(set) var endedTargets: Set<String> = []
    /// The daemon's id for this watch on the current connection; nil while disconnected.
    var daemonID: Int?
    /// Every notification of this watch up to this version has been shown.
    var lastShown: Int
    /// The daemon instance whose versions `lastShown` counts in: the one the watch was last made on.
    private(set) var instance: String
    /// The version after `lastShown` whose notifications are being shown (a version's come one
    /// after another), and how many of them have been: a connection that breaks in the middle
    /// of it resumes from `lastShown`, and the replay's first `shown` of it are not shown again.
    private var partial: (version: Int, shown: Int)?
    /// What the replay of a resumed watch repeats: that many notifications (at least one) of that version.
    private var repeated: (version: Int, count: Int)?

    init(
        number: Int, paths: [String], views: [String], lifecycle: Bool, commits: Bool, printChanges: Bool, console: Bool,
        daemonID: Int, version: Int, instance: String
    ) {
        self.number = number
        self.paths = paths
        self.views = views
        self.lifecycle = lifecycle
        self.commits = commits
        self.printChanges = printChanges
        self.console = console
        self.daemonID = daemonID
        self.lastShown = version
        self.instance = instance
    }

    /// The version to resume from after a break on `daemon` (`sinceVersion`): the last one shown
    /// whole, with what was shown of the next left out of the replay. Nil when `daemon` is not the
    /// instance the watch was last made on: its versions are not this watch's, so it starts again.
    /// Each watch keeps its own instance, so a reconnect cut short after some watches started
    /// again on a new daemon starts the rest again on the next try.
    func resumeFrom(on daemon: String) -> Int? {
        guard daemon == instance else { return nil }
        // A try that broke before its replay leaves `repeated` as it set it, for the next.
        if let partial { repeated = (partial.version, partial.shown) }
        partial = nil
        return lastShown
    }

    /// The watch starts again from what `daemon` has now, not from a replay.
    func restart(at version: Int, on daemon: String) {
        lastShown = version
        instance = daemon
        partial = nil
        repeated = nil
    }

    /// Whether `version`'s next notification is to be shown, noting it as shown if it is: not
    /// when the replay of a resumed watch repeats what was shown before the break.
    func admit(version: Int) -> Bool {
        if let (repeatedVersion, count) = repeated {
            repeated = nil
            if version == repeatedVersion {
                if count > 1 { repeated = (version, count - 1) }
                return false
            }
        }
        if let partial, partial.version == version {
            self.partial = (version, partial.shown + 1)
        } else if version > lastShown {
            // A version's notifications come together: the one before it was shown whole.
            if let partial { lastShown = max(lastShown, partial.version) }
            partial = (version, 1)
        }
        return true
    }

    /// Every notification up to `version` has been received and shown.
    func caughtUp(to version: Int) {
        lastShown = max(lastShown, version)
        if let partial, partial.version <= version { self.partial = nil }
    }

    /// A `watch` request for the same targets, resumed after `sinceVersion` if given.
    func request(sinceVersion: Int? = nil) -> WatchRequest {
        WatchRequest(
            paths: paths, views: views, lifecycle: lifecycle, commits: commits, printChanges: printChanges, sinceVersion: sinceVersion)
    }

    /// The targets as the user would type them: `login /App --lifecycle`.
    var targetsText: String {
        let text = (paths + views + (lifecycle ? ["--lifecycle"] : []) + (commits ? ["--commits"] : [])).joined(separator: " ")
        return console ? text + " (_printChanges lines)" : text
    }

    /// Notes that `targets` cover nothing any more (their object was destroyed); true when the
    /// watch is left watching nothing at all.
    func noteEnded(_ targets: [String]) -> Bool {
        endedTargets.formUnion(targets)
        return views.isEmpty && !lifecycle && !commits && paths.allSatisfy(endedTargets.contains)
    }
}

/// The user's watches, by number.
final class WatchBook {
    private(set) var records: [WatchRecord] = []
    private var nextNumber = 1

    var isEmpty: Bool { records.isEmpty }

    func add(
        paths: [String], views: [String], lifecycle: Bool, commits: Bool, printChanges: Bool = false, console: Bool = false,
        daemonID: Int, version: Int, instance: String
    ) -> WatchRecord {
        let record = WatchRecord(
            number: nextNumber, paths: paths, views: views, lifecycle: lifecycle, commits: commits, printChanges: printChanges,
            console: console, daemonID: daemonID, version: version, instance: instance)
        nextNumber += 1
        records.append(record)
        return record
    }

    func record(number: Int) -> WatchRecord? { records.first { $0.number == number } }

    func record(daemonID: Int?) -> WatchRecord? {
        guard let daemonID else { return nil }
        return records.first { $0.daemonID == daemonID }
    }

    func remove(_ record: WatchRecord) { records.removeAll { $0 === record } }

    /// Whether `notification` is to be shown, noting it as shown if it is (`WatchRecord.admit`).
    func admit(_ notification: ClientNotification) -> Bool {
        guard let record = record(daemonID: notification.watch), let version = notification.version else { return true }
        return record.admit(version: version)
    }

    /// Every notification up to `version` has been received and shown, for every watch
    /// on the current connection.
    func caughtUp(to version: Int) {
        for record in records where record.daemonID != nil { record.caughtUp(to: version) }
    }

    /// The connection is gone, and with it the daemon's ids.
    func detachAll() {
        for record in records { record.daemonID = nil }
    }
}
