import MilieuClient
import MilieuJSON
import MilieuProtocol

/// The compact form of each notification: one line saying what happened, at which
/// version, plus the new body lines of a view.
///
///     v7  /App/Container.toggle = true
///     v7  ↻ /App/Container  _toggle
///           │ toggle: true
///     v7  + Login#6 created (construct)  owner /App/Container/LoginView2.loginVM
struct NotificationRenderer {
    let style: Style
    /// Tags each line with its watch number when more than one watch is open.
    let watches: WatchBook

    /// The notification's lines; nil when it shows nothing (a console watch's event without a
    /// `_printChanges` line).
    func render(_ notification: ClientNotification) -> String? {
        if let record = watches.record(daemonID: notification.watch), record.console { return consoleLine(notification) }
        let version = notification.version.map { "v\($0)" } ?? "v?"
        let head = style.dim(version) + "  "
        let indent = String(repeating: " ", count: version.count + 2)
        var lines: [String]
        switch notification.decoded {
        case .didChange(_, let changes)?: lines = self.changes(changes)
        case .didUpdate(_, let path, let reasons, let body, let printed)?:
            lines = ["\(style.blue("↻")) \(style.bold(path))  \(style.yellow(reasons.joined(separator: ", ")))"] + self.body(body)
            if let printed { lines.append(printed) }
        case .didMount(_, let path, let reason, let body, let printed)?:
            lines = ["\(style.green("+")) \(style.bold(path)) mounted\(self.reason(reason, usual: "mounted"))"] + self.body(body)
            if let printed { lines.append(printed) }
        case .didUnmount(_, let path, let reason)?:
            lines = ["\(style.magenta("−")) \(style.bold(path)) unmounted\(self.reason(reason, usual: "unmounted"))"]
        case .objectDidCreate(_, let event)?:
            lines = ["\(style.green("+")) \(event.object) created (\(event.reason))\(owner(event))"]
        case .objectDidDestroy(_, let event)?:
            lines = ["\(style.magenta("−")) \(event.object) destroyed (\(event.reason))\(owner(event))"]
            if !event.endedTargets.isEmpty { lines.append(ended(event, watch: notification.watch)) }
        case .diagnostic(_, let diagnostic)?: lines = self.diagnostic(diagnostic)
        case .didCommit(_, let summary)?: lines = [commit(summary)]
        case .connectionDropped(_, let message, _)?: lines = [style.yellow("connection dropped: ") + message]
        case nil: lines = ["\(notification.method) \(JSON.object(notification.params).jsonText)"]
        }
        if let tag = watchTag(notification.watch), !lines.isEmpty { lines[0] += "  " + style.dim(tag) }
        return lines.enumerated().map { ($0.offset == 0 ? head : indent) + $0.element }.joined(separator: "\n")
    }

    /// What a console watch shows: the `_printChanges` line alone, as Xcode's console prints it.
    private func consoleLine(_ notification: ClientNotification) -> String? {
        switch notification.decoded {
        case .didUpdate(_, _, _, _, let printed)?, .didMount(_, _, _, _, let printed)?: printed
        case .connectionDropped(_, let message, _)?: style.yellow("connection dropped: ") + message
        default: nil
        }
    }

    private func changes(_ changes: [ValueChange]) -> [String] {
        guard !changes.isEmpty else { return ["(no changes)"] }
        return changes.map { change in
            let path = style.cyan(change.path)
            guard let value = change.value else { return "\(path) changed \(style.dim("<secure>"))" }
            return "\(path) = \(value.jsonText)"
        }
    }

    /// `w1: Login#15 is gone (replaced): login.email covers nothing now; watching nothing`.
    private func ended(_ event: ObjectEvent, watch: Int?) -> String {
        let record = watches.record(daemonID: watch)
        let name = record.map { "w\($0.number)" } ?? "watch \(watch.map(String.init) ?? "?")"
        let targets = event.endedTargets.joined(separator: ", ")
        let verb = event.endedTargets.count == 1 ? "covers" : "cover"
        var line = "\(style.yellow(name + ":")) \(event.object) is gone (\(event.reason)): \(targets) \(verb) nothing now"
        if record?.noteEnded(event.endedTargets) == true { line += "; " + style.yellow("watching nothing") }
        return line
    }

    /// `● graph/set login.email  by milieu, connection 3, pid 4242: 1 value, 1 view re-rendered`.
    private func commit(_ summary: CommitSummary) -> String {
        let counts = summary.counts
        let effects = [
            (counts.values, "value", "values"), (counts.rendered, "view re-rendered", "views re-rendered"),
            (counts.mounted, "mounted", "mounted"), (counts.unmounted, "unmounted", "unmounted"),
            (counts.created, "object created", "objects created"), (counts.destroyed, "object destroyed", "objects destroyed"),
            (counts.diagnostics, "diagnostic", "diagnostics"),
        ].filter { $0.0 > 0 }.map { "\($0.0) \($0.0 == 1 ? $0.1 : $0.2)" }
        let what = effects.isEmpty ? "no change" : effects.joined(separator: ", ")
        guard let cause = summary.cause else { return "\(style.blue("●")) (cause not kept across the restart): \(what)" }
        let by = [cause.client, "connection \(cause.connection)", cause.pid.map { "pid \($0)" }].compactMap { $0 }
        guard cause.method != CommitCause.connectionClosed else {
            return "\(style.blue("●")) connection \(cause.connection) closed: \(what)"
        }
        var paths = cause.operations.compactMap(\.path)
        if cause.method == GraphTransactionRequest.name {
            paths = cause.operations.map { op in [op.method, op.path].compactMap { $0 }.joined(separator: " ") }
            if cause.moreOperations > 0 { paths.append("… \(cause.moreOperations) more") }
        }
        let request = ([style.bold(cause.method)] + (paths.isEmpty ? [] : [paths.joined(separator: "; ")])).joined(separator: " ")
        return "\(style.blue("●")) \(request)  \(style.dim("by " + by.joined(separator: ", "))): \(what)"
    }

    private func body(_ lines: [String]) -> [String] {
        lines.map { "  \(style.dim("│")) \($0)" }
    }

    private func diagnostic(_ diagnostic: Diagnostic) -> [String] {
        [
            "\(style.yellow("⚠ " + diagnostic.kind)) \(diagnostic.path)", "  " + diagnostic.message,
            "  ignored: \(diagnostic.ignored.jsonText)", "  " + style.yellow("hint: ") + diagnostic.hint,
        ]
    }

    private func reason(_ reason: String, usual: String) -> String {
        reason == usual ? "" : " (\(reason))"
    }

    private func owner(_ event: ObjectEvent) -> String {
        guard let owner = event.owner else { return "" }
        return "  " + style.dim("owner \(owner)")
    }

    private func watchTag(_ id: Int?) -> String? {
        guard let id else { return nil }
        guard let record = watches.record(daemonID: id) else { return "[watch \(id)]" }
        // Only the user's own watches are told apart: a console watch shows bare lines.
        return watches.records.count(where: { !$0.console }) > 1 ? "[w\(record.number)]" : nil
    }

}
