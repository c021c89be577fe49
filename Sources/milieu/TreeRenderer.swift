import MilieuJSON
import MilieuProtocol

/// Draws a `view/tree` result as a tree: each view with its wrappers, the objects it
/// holds, what it provides, and its body.
///
///     /App  evaluated once, last v1, retained
///     │   @State login: Login#3
///     │   provides .environment(Login#3)
///     └── Container  evaluated 3 times, last v7
///             @State toggle = false
///             body │ toggle: false
struct TreeRenderer {
    let style: Style

    func render(_ root: ViewSnapshot) -> String {
        var lines: [String] = []
        draw(root, connector: "", childPrefix: "", isRoot: true, into: &lines)
        return lines.joined(separator: "\n")
    }

    private func draw(_ node: ViewSnapshot, connector: String, childPrefix: String, isRoot: Bool, into lines: inout [String]) {
        let children = node.children ?? []
        let title = isRoot ? node.path : displayName(node)
        var notes = [evaluations(node)]
        if node.retained { notes.append("retained") }
        if let left = node.childCount, left > 0 { notes.append(left == 1 ? "1 child not shown" : "\(left) children not shown") }
        lines.append(connector + style.bold(title) + "  " + style.dim(notes.joined(separator: ", ")))
        let detailPrefix = childPrefix + (children.isEmpty ? "    " : "│   ")
        for detail in details(node) { lines.append(detailPrefix + detail) }
        for (index, child) in children.enumerated() {
            let last = index == children.count - 1
            draw(
                child, connector: childPrefix + (last ? "└── " : "├── "), childPrefix: childPrefix + (last ? "    " : "│   "),
                isRoot: false, into: &lines)
        }
    }

    /// How often the body was evaluated and in which version last: the counts of `view/tree`.
    private func evaluations(_ node: ViewSnapshot) -> String {
        let times = node.evaluations == 1 ? "once" : "\(node.evaluations) times"
        return "evaluated \(times), last v\(node.lastEvaluated)"
    }

    /// `Name`, or `Name[id]` for a view with an explicit identity.
    private func displayName(_ node: ViewSnapshot) -> String {
        guard let id = node.id else { return node.name }
        return "\(node.name)[\(id.jsonText)]"
    }

    private func details(_ node: ViewSnapshot) -> [String] {
        var lines: [String] = []
        for (name, value) in node.inputs { lines.append("\(style.magenta("let")) \(name) = \(value.jsonText)") }
        for (name, value) in node.state { lines.append("\(style.magenta("@State")) \(name) = \(value.jsonText)") }
        for binding in node.bindings {
            let value = binding.value?.jsonText ?? "<secure>"
            lines.append("\(style.magenta("@Binding")) \(binding.name) → \(binding.source ?? ".constant(…)") = \(value)")
        }
        for (name, held) in node.objects {
            guard let held else {
                lines.append("\(style.magenta("@Environment")) \(name): nil (optional, no ancestor provides one)")
                continue
            }
            lines.append("\(style.magenta(wrapperName(held.wrapper, type: held.type))) \(name): \(style.cyan(held.object))")
        }
        for (key, value) in node.environment {
            lines.append("\(style.magenta("@Environment(\\.\(key))")) = \(value.jsonText)")
        }
        for (objects, modifier) in [(node.provides.environmentObjects, ".environmentObject"), (node.provides.observables, ".environment")] {
            for (_, object) in objects { lines.append("\(style.green("provides")) \(modifier)(\(object.stringValue ?? "?"))") }
        }
        for (key, value) in node.provides.environment {
            lines.append("\(style.green("provides")) \\.\(key) = \(value.jsonText)")
        }
        for (index, line) in node.body.enumerated() {
            lines.append((index == 0 ? "body " : "     ") + style.dim("│") + " " + line)
        }
        return lines
    }

    private func wrapperName(_ wrapper: String, type: String) -> String {
        switch wrapper {
        case "stateObject": "@StateObject"
        case "observedObject": "@ObservedObject"
        case "environmentObject": "@EnvironmentObject"
        case "state": "@State"
        case "environment": "@Environment(\(type).self)"
        case "input": "let"
        default: wrapper
        }
    }
}
