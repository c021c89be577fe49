import MilieuClient
import MilieuJSON

#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Where milieu's output goes. Results go to standard output and errors to standard
/// error; with `--json`, each result, error and notification is one JSON object on one
/// line of standard output: `{"result": ...}`, `{"error": ...}`, `{"method": ..., "params": ...}`.
/// Messages about the connection always go to standard error as text.
struct Console {
    let json: Bool
    let style: Style
    let errorStyle: Style

    func show(_ outcome: Outcome) {
        switch outcome {
        case .success(let text, let result):
            json ? write(JSON.object(["result": result]).jsonText, to: stdout) : write(text, to: stdout)
        case .failure(let text, let error):
            json ? write(JSON.object(["error": error]).jsonText, to: stdout) : write(text, to: stderr)
        case .quit:
            break
        }
    }

    func show(_ notifications: [ClientNotification], watches: WatchBook) {
        let renderer = NotificationRenderer(style: style, watches: watches)
        for notification in Self.inEvaluationOrder(notifications, watches: watches) {
            if json {
                // A console watch's events count only for their `_printChanges` lines.
                if watches.record(daemonID: notification.watch)?.console == true, notification.params["printChanges"] == nil {
                    continue
                }
                write(JSON.object(["method": .string(notification.method), "params": .object(notification.params)]).jsonText, to: stdout)
            } else if let text = renderer.render(notification) {
                write(text, to: stdout)
            }
        }
    }

    /// Xcode prints a `_printChanges` line as each body runs: parents before children. The daemon
    /// sends a version's mounts before its updates (SPEC §8.3), so the line of a child its parent's
    /// body mounted would come before the parent's. A console watch's lines of one version are put
    /// in the order the engine evaluates views — by depth, in the order sent within one depth —
    /// and everything else stays where it is.
    static func inEvaluationOrder(_ notifications: [ClientNotification], watches: WatchBook) -> [ClientNotification] {
        let printed = notifications.indices.filter { index in
            let notification = notifications[index]
            return notification.params["printChanges"] != nil && watches.record(daemonID: notification.watch)?.console == true
        }
        guard printed.count > 1 else { return notifications }
        func depth(_ notification: ClientNotification) -> Int {
            notification.params["path"]?.stringValue.map { $0.utf8.count(where: { $0 == UInt8(ascii: "/") }) } ?? 0
        }
        var ordered = notifications
        var start = printed.startIndex
        while start < printed.endIndex {
            let version = notifications[printed[start]].version
            var end = start
            while end < printed.endIndex, notifications[printed[end]].version == version { end += 1 }
            let group = printed[start..<end].enumerated().sorted { a, b in
                let (da, db) = (depth(notifications[a.element]), depth(notifications[b.element]))
                return da != db ? da < db : a.offset < b.offset
            }
            for (place, taken) in zip(printed[start..<end], group) { ordered[place] = notifications[taken.element] }
            start = end
        }
        return ordered
    }

    /// A message about the connection: lost, back, resumed.
    func status(_ text: String) { write(text, to: stderr) }

    private func write(_ text: String, to stream: UnsafeMutablePointer<FILE>) {
        if stream != stdout { fflush(stdout) }
        fputs(text + "\n", stream)
        fflush(stream)
    }
}
