import MilieuJSON

/// Draws a `view/tree` result as a tree: each view with its wrappers, the objects it
/// holds, what it provides, and its body.
///
///     /App  v1 retained
///     │   @State login: Login#3
///     │   provides .environment(Login#3)
///     └── Container  v2
///             @State toggle = false
///             body │ toggle: false
struct TreeRenderer {
    let style: Style

    func render(_ root: JSON) -> String {
        var lines: [String] = []
        draw(root, connector: "", childPrefix: "", isRoot: true, into: &lines)
        return lines.joined(separator: "\n")
    }

    private func draw(_ node: JSON, connector: String, childPrefix: String, isRoot: Bool, into lines: inout [String]) {
        let children = node["children"]?.arrayValue ?? []
        let title = isRoot ? (node["path"]?.stringValue ?? "?") : displayName(node)
        var notes: [String] = []
        if let version = node["version"]?.intValue { notes.append("v\(version)") }
        if node["retained"] == true { notes.append("retained") }
        lines.append(connector + style.bold(title) + (notes.isEmpty ? "" : "  " + style.dim(notes.joined(separator: " "))))
        let detailPrefix = childPrefix + (children.isEmpty ? "    " : "│   ")
        for detail in details(node) { lines.append(detailPrefix + detail) }
        for (index, child) in children.enumerated() {
            let last = index == children.count - 1
            draw(
                child, connector: childPrefix + (last ? "└── " : "├── "), childPrefix: childPrefix + (last ? "    " : "│   "),
                isRoot: false, into: &lines)
        }
    }

    /// `Name`, or `Name[id]` for a view with an explicit identity.
    private func displayName(_ node: JSON) -> String {
        let name = node["name"]?.stringValue ?? "?"
        guard let id = node["id"] else { return name }
        return "\(name)[\(id.jsonText)]"
    }

    private func details(_ node: JSON) -> [String] {
        var lines: [String] = []
        for (name, value) in node["inputs"]?.objectValue ?? [:] { lines.append("\(style.magenta("let")) \(name) = \(value.jsonText)") }
        for (name, value) in node["state"]?.objectValue ?? [:] { lines.append("\(style.magenta("@State")) \(name) = \(value.jsonText)") }
        for (name, binding) in node["bindings"]?.objectValue ?? [:] {
            let source = binding["source"]?.stringValue ?? "?"
            let value = binding["redacted"] == true ? "<secure>" : (binding["value"]?.jsonText ?? "null")
            lines.append("\(style.magenta("@Binding")) \(name) → \(source) = \(value)")
        }
        for (name, held) in node["objects"]?.objectValue ?? [:] {
            guard held != .null else {
                lines.append("\(style.magenta("@Environment")) \(name): nil (optional, no ancestor provides one)")
                continue
            }
            let object = held["object"]?.stringValue ?? "?"
            let type = held["type"]?.stringValue ?? "?"
            lines.append("\(style.magenta(wrapperName(held["wrapper"]?.stringValue, type: type))) \(name): \(style.cyan(object))")
        }
        for (key, value) in node["environment"]?.objectValue ?? [:] {
            lines.append("\(style.magenta("@Environment(\\.\(key))")) = \(value.jsonText)")
        }
        let provides = node["provides"]
        for (member, modifier) in [("environmentObjects", ".environmentObject"), ("observables", ".environment")] {
            for (_, object) in provides?[member]?.objectValue ?? [:] {
                lines.append("\(style.green("provides")) \(modifier)(\(object.stringValue ?? "?"))")
            }
        }
        for (key, value) in provides?["environment"]?.objectValue ?? [:] {
            lines.append("\(style.green("provides")) \\.\(key) = \(value.jsonText)")
        }
        let body = (node["body"]?.arrayValue ?? []).map { $0.stringValue ?? $0.jsonText }
        for (index, line) in body.enumerated() {
            lines.append((index == 0 ? "body " : "     ") + style.dim("│") + " " + line)
        }
        return lines
    }

    private func wrapperName(_ wrapper: String?, type: String) -> String {
        switch wrapper {
        case "stateObject": "@StateObject"
        case "observedObject": "@ObservedObject"
        case "environmentObject": "@EnvironmentObject"
        case "state": "@State"
        case "environment": "@Environment(\(type).self)"
        case "input": "let"
        default: wrapper ?? "?"
        }
    }
}
