import MilieuClient
import MilieuJSON

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
        let params = notification.params
        let version = notification.version.map { "v\($0)" } ?? "v?"
        let head = style.dim(version) + "  "
        let indent = String(repeating: " ", count: version.count + 2)
        var lines: [String]
        switch notification.method {
        case "graph/didChange": lines = changes(params)
        case "view/didUpdate":
            let reasons = (params["reasons"]?.arrayValue ?? []).compactMap(\.stringValue).joined(separator: ", ")
            lines = ["\(style.blue("↻")) \(style.bold(text(params["path"])))  \(style.yellow(reasons))"] + body(params)
        case "view/didMount":
            lines = ["\(style.green("+")) \(style.bold(text(params["path"]))) mounted\(reason(params, usual: "mounted"))"] + body(params)
        case "view/didUnmount":
            lines = ["\(style.magenta("−")) \(style.bold(text(params["path"]))) unmounted\(reason(params, usual: "unmounted"))"]
        case "object/didCreate":
            lines = ["\(style.green("+")) \(text(params["object"])) created (\(text(params["reason"])))\(owner(params))"]
        case "object/didDestroy":
            lines = ["\(style.magenta("−")) \(text(params["object"])) destroyed (\(text(params["reason"])))\(owner(params))"]
        case "diagnostic": lines = diagnostic(params)
        default: lines = ["\(notification.method) \(JSON.object(params).jsonText)"]
        }
        if let tag = watchTag(notification.watch), !lines.isEmpty { lines[0] += "  " + style.dim(tag) }
        return lines.enumerated().map { ($0.offset == 0 ? head : indent) + $0.element }.joined(separator: "\n")
    }

    private func changes(_ params: JSONObject) -> [String] {
        let changes = params["changes"]?.arrayValue ?? []
        guard !changes.isEmpty else { return ["(no changes)"] }
        return changes.map { change in
            let path = style.cyan(text(change["path"]))
            if change["redacted"] == true { return "\(path) changed \(style.dim("<secure>"))" }
            return "\(path) = \(change["value"]?.jsonText ?? "null")"
        }
    }

    private func body(_ params: JSONObject) -> [String] {
        (params["body"]?.arrayValue ?? []).map { "  \(style.dim("│")) \($0.stringValue ?? $0.jsonText)" }
    }

    private func diagnostic(_ params: JSONObject) -> [String] {
        var lines = ["\(style.yellow("⚠ " + text(params["kind"]))) \(text(params["path"]))"]
        if let message = params["message"]?.stringValue { lines.append("  " + message) }
        if let ignored = params["ignored"] { lines.append("  ignored: \(ignored.jsonText)") }
        if let hint = params["hint"]?.stringValue { lines.append("  " + style.yellow("hint: ") + hint) }
        return lines
    }

    private func reason(_ params: JSONObject, usual: String) -> String {
        let reason = text(params["reason"])
        return reason == usual ? "" : " (\(reason))"
    }

    private func owner(_ params: JSONObject) -> String {
        guard let owner = params["owner"]?.stringValue else { return "" }
        return "  " + style.dim("owner \(owner)")
    }

    private func watchTag(_ id: Int?) -> String? {
        guard let id else { return nil }
        guard let record = watches.record(daemonID: id) else { return "[watch \(id)]" }
        return watches.records.count > 1 ? "[w\(record.number)]" : nil
    }

    private func text(_ value: JSON?) -> String { value?.stringValue ?? value?.jsonText ?? "?" }
}
