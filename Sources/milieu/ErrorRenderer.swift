import MilieuClient
import MilieuJSON
import MilieuProtocol

/// Turns every failure into loud text for people and a JSON object for `--json`: the
/// daemon's errors with the fields that name the culprit, and the fix when there is one.
///
///     error: EnvironmentObjectMissing
///       No ObservableObject of type Cart found. A View.environmentObject(_:) for Cart may be …
///       type      Cart
///       view      /App/Level1/Level2/CheckoutView  (variable cart)
///       searched  /App/Level1/Level2/CheckoutView → /App/Level1/Level2 → /App/Level1 → /App
///       fix       Provide a Cart on an ancestor …
struct ErrorRenderer {
    let style: Style

    func text(_ error: any Error) -> String {
        switch error {
        case let rpc as RPCError: return text(rpc)
        case let scene as SceneMountError:
            return text(scene.error) + "\n  " + style.red("while mounting \(scene.view), view \(scene.index) of the scene \(scene.scene)")
        case let command as CommandError:
            var text = style.boldRed("error: ") + style.red(command.message)
            if let usage = command.usage { text += "\n  usage: \(usage)" }
            return text
        default: return style.boldRed("error: ") + style.red("\(error)")
        }
    }

    func json(_ error: any Error) -> JSON {
        switch error {
        case let rpc as RPCError:
            return ["code": .int(rpc.code), "message": .string(rpc.message), "data": .object(rpc.data)]
        case let scene as SceneMountError:
            return json(scene.error)
        case let command as CommandError:
            return [
                "message": .string(command.message), "data": ["kind": "CommandError", "usage": command.usage.map(JSON.string) ?? .null],
            ]
        case let client as MilieuClientError:
            return ["message": .string(client.message), "data": ["kind": "ClientError", "reason": .string(client.code.description)]]
        default:
            return ["message": .string("\(error)"), "data": ["kind": "ClientError"]]
        }
    }

    private func text(_ error: RPCError) -> String {
        let kind = error.kind.isEmpty ? "error \(error.code)" : error.kind
        var lines = [style.boldRed("error: \(kind)"), "  " + style.red(error.message)]
        let rows = fields(of: error)
        let width = rows.map(\.label.count).max() ?? 0
        for row in rows {
            let label = row.label + String(repeating: " ", count: width - row.label.count)
            lines.append("  " + style.red(label) + "  " + (row.label == "fix" ? style.boldRed(row.value) : style.red(row.value)))
        }
        return lines.joined(separator: "\n")
    }

    /// The data fields worth showing, in a useful order, the hint last as the fix.
    private func fields(of error: RPCError) -> [(label: String, value: String)] {
        var rows: [(label: String, value: String)] = []
        var data = error.data
        data["kind"] = nil
        if error.errorKind == .environmentObjectMissing {
            if let type = data["type"] { rows.append(("type", show(type))) }
            if let view = data["view"] {
                let variable = data["variable"]?.stringValue.map { "  (variable \($0))" } ?? ""
                rows.append(("view", show(view) + variable))
            }
            if let searched = data["searched"]?.arrayValue {
                rows.append(("searched", searched.map(show).joined(separator: " → ")))
            }
            for key in ["type", "view", "variable", "searched"] { data[key] = nil }
        }
        let hint = data["hint"]
        data["hint"] = nil
        // Which op of a transaction failed: the one place that sends transactions, `load`,
        // names the view instead.
        data["op"] = nil
        for (key, value) in data { rows.append((key, show(value))) }
        if let hint { rows.append(("fix", show(hint))) }
        return rows
    }

    private func show(_ value: JSON) -> String { value.stringValue ?? value.jsonText }
}
