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

    func render(_ notification: ClientNotification) -> String {
        let version = notification.version.map { "v\($0)" } ?? "v?"
        let head = style.dim(version) + "  "
        let indent = String(repeating: " ", count: version.count + 2)
        var lines: [String]
        switch notification.decoded {
        case .didChange(_, let changes)?: lines = self.changes(changes)
        case .didUpdate(_, let path, let reasons, let body)?:
            lines = ["\(style.blue("↻")) \(style.bold(path))  \(style.yellow(reasons.joined(separator: ", ")))"] + self.body(body)
        case .didMount(_, let path, let reason, let body)?:
            lines = ["\(style.green("+")) \(style.bold(path)) mounted\(self.reason(reason, usual: "mounted"))"] + self.body(body)
        case .didUnmount(_, let path, let reason)?:
            lines = ["\(style.magenta("−")) \(style.bold(path)) unmounted\(self.reason(reason, usual: "unmounted"))"]
        case .objectDidCreate(_, let event)?:
            lines = ["\(style.green("+")) \(event.object) created (\(event.reason))\(owner(event))"]
        case .objectDidDestroy(_, let event)?:
            lines = ["\(style.magenta("−")) \(event.object) destroyed (\(event.reason))\(owner(event))"]
        case .diagnostic(_, let diagnostic)?: lines = self.diagnostic(diagnostic)
        case .connectionDropped(_, let message, _)?: lines = [style.yellow("connection dropped: ") + message]
        case nil: lines = ["\(notification.method) \(JSON.object(notification.params).jsonText)"]
        }
        if let tag = watchTag(notification.watch), !lines.isEmpty { lines[0] += "  " + style.dim(tag) }
        return lines.enumerated().map { ($0.offset == 0 ? head : indent) + $0.element }.joined(separator: "\n")
    }

    private func changes(_ changes: [ValueChange]) -> [String] {
        guard !changes.isEmpty else { return ["(no changes)"] }
        return changes.map { change in
            let path = style.cyan(change.path)
            guard let value = change.value else { return "\(path) changed \(style.dim("<secure>"))" }
            return "\(path) = \(value.jsonText)"
        }
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
        return watches.records.count > 1 ? "[w\(record.number)]" : nil
    }

}
