import MilieuJSON
import MilieuProtocol

/// Pictures of what the daemon tells, as Graphviz DOT (rendered with `dot -Tsvg`): the view tree
/// with what ties its views and objects together, a view's environment scope, and a commit's
/// cause and effect. Each edge is
/// styled by its kind, and every node and edge carries a `class` naming its kind, so a drawing
/// can be read, and checked, without its layout.
public enum Graphviz {
    /// The view tree from `root`: each view (its name, `@State`, first body line and how often
    /// its body was evaluated) under its
    /// parent; the objects views hold, an edge from the view labelled with the wrapper (an owning
    /// `@StateObject`/`@State` bold, `@ObservedObject` dashed, `@EnvironmentObject`/`@Environment`
    /// dotted); each binding from the view that owns its source to its reader; and what a view
    /// provides to its subtree.
    public static func tree(_ root: ViewSnapshot) -> String {
        var graph = DOTGraph(name: "tree")
        func object(_ id: String, _ type: String) {
            graph.node(id, label: "\(id)\n\(type)", attributes: ["shape": "ellipse", "class": "object"])
        }
        func visit(_ view: ViewSnapshot) {
            var label = view.name + (view.id.map { "[\($0.jsonText)]" } ?? "")
            for (name, value) in view.state { label += "\n\(name) = \(value.jsonText)" }
            if let first = view.body.first { label += "\n“\(first)”" }
            label += "\nevaluated \(view.evaluations)×, last v\(view.lastEvaluated)"
            graph.node(view.path, label: label, attributes: ["shape": "box", "style": "rounded", "class": "view"])
            for (name, held) in view.objects {
                guard let held else { continue }
                object(held.object, held.type)
                graph.edge(view.path, held.object, label: "\(name) (\(held.wrapper))", attributes: Self.style(ofWrapper: held.wrapper))
            }
            for (name, source, _) in view.bindings {
                guard let source else { continue }  // `.constant(...)`: no source to draw
                let owner = Self.view(ofKeyPath: source) ?? source
                graph.edge(owner, view.path, label: "$\(name)", attributes: ["color": "blue", "class": "binding"])
            }
            for (type, provided) in view.provides.environmentObjects.sortedMembers + view.provides.observables.sortedMembers {
                guard let provided = provided.stringValue else { continue }
                object(provided, type)
                graph.edge(
                    view.path, provided, label: "provides", attributes: ["color": "darkgreen", "style": "dotted", "class": "provides"])
            }
            for child in view.children ?? [] {
                visit(child)
                graph.edge(view.path, child.path, label: nil, attributes: ["class": "child"])
            }
        }
        visit(root)
        return graph.text
    }

    /// A commit's cause-and-effect graph (`graph/explain`): the cause, the attributes it wrote
    /// (old → new), the views it evaluated in order with their reasons, and the effects.
    public static func explanation(_ explained: GraphExplainRequest.Result) -> String {
        var graph = DOTGraph(name: "v\(explained.version)")
        for node in explained.nodes {
            let detail = node.detail
            switch node.kind {
            case .cause:
                let ops = (detail["ops"]?.arrayValue ?? []).compactMap { op in op["path"]?.stringValue ?? op["method"]?.stringValue }
                let who = [detail["client"]?.stringValue, detail["pid"].map { "pid \($0.jsonText)" }].compactMap { $0 }
                let label = ([detail["method"]?.stringValue ?? "?"] + ops + who).joined(separator: "\n")
                graph.node(
                    node.id, label: label, attributes: ["shape": "box", "style": "filled", "fillcolor": "lightyellow", "class": "cause"])
            case .attribute:
                let name =
                    detail["path"]?.stringValue ?? detail["object"]?.stringValue ?? detail["key"]?.stringValue ?? detail["view"]?
                    .stringValue ?? "?"
                var label = "\(name)\n(\(detail["attribute"]?.stringValue ?? "attribute"))"
                if let new = detail["new"] { label += "\n\(detail["old"]?.jsonText ?? "…") → \(new.jsonText)" }
                graph.node(node.id, label: label, attributes: ["shape": "ellipse", "class": "attribute"])
            case .view:
                let reasons = (detail["reasons"]?.arrayValue ?? []).compactMap(\.stringValue).joined(separator: ", ")
                let label = "\(detail["order"]?.jsonText ?? "?"). \(detail["path"]?.stringValue ?? "?")\n\(reasons)"
                graph.node(node.id, label: label, attributes: ["shape": "box", "style": "rounded,bold", "class": "view"])
            case .effect:
                let subject = detail["path"]?.stringValue ?? detail["object"]?.stringValue ?? ""
                let label =
                    "\(detail["effect"]?.stringValue ?? "effect") \(subject)\n\(detail["reason"]?.stringValue ?? detail["message"]?.stringValue ?? "")"
                graph.node(node.id, label: label, attributes: ["shape": "note", "class": "effect"])
            }
        }
        for edge in explained.edges {
            var attributes = ["class": edge.kind.rawValue]
            switch edge.kind {
            case .wrote: attributes["style"] = "bold"
            case .invalidated: attributes["color"] = "red"
            case .parent: attributes["style"] = "dashed"
            case .caused: attributes["style"] = "dotted"
            }
            graph.edge(edge.from, edge.to, label: edge.reason, attributes: attributes)
        }
        return graph.text
    }

    /// What a view's environment holds (`view/environment`): each object in it, from the
    /// ancestor that provides it (`.environmentObject` dotted, `.environment(object)` dashed), and
    /// each environment value some view provides; the keys at their defaults are one note.
    public static func environment(_ result: ViewEnvironmentRequest.Result) -> String {
        var graph = DOTGraph(name: "environment")
        let view = result.path
        graph.node(view, label: view, attributes: ["shape": "box", "style": "rounded,bold", "class": "view"])
        func provider(_ path: String) {
            graph.node(path, label: path, attributes: ["shape": "box", "style": "rounded", "class": "provider"])
        }
        let slots = [("environmentObject", result.scope.environmentObjects), ("environment", result.scope.observables)]
        for (slot, objects) in slots {
            for provided in objects {
                provider(provided.provider)
                graph.node(
                    provided.object, label: "\(provided.object)\n\(provided.type)", attributes: ["shape": "ellipse", "class": "object"])
                let style = slot == "environmentObject" ? "dotted" : "dashed"
                graph.edge(provided.provider, provided.object, label: slot, attributes: ["style": style, "class": "provides"])
                graph.edge(provided.object, view, label: provided.type, attributes: ["class": "visible"])
            }
        }
        var defaults: [String] = []
        for value in result.scope.environment {
            guard let by = value.provider else {
                defaults.append("\(value.key) = \(value.value.jsonText)")
                continue
            }
            provider(by)
            let id = "\(by) \\.\(value.key)"
            graph.node(id, label: "\\.\(value.key) = \(value.value.jsonText)", attributes: ["shape": "note", "class": "value"])
            graph.edge(by, id, label: nil, attributes: ["style": "dashed", "class": "provides"])
            graph.edge(id, view, label: nil, attributes: ["class": "visible"])
        }
        if !defaults.isEmpty {
            graph.node(
                "defaults", label: "defaults\n" + defaults.joined(separator: "\n"), attributes: ["shape": "note", "class": "defaults"])
            graph.edge("defaults", view, label: nil, attributes: ["style": "dotted", "class": "visible"])
        }
        return graph.text
    }

    private static func style(ofWrapper wrapper: String) -> [String: String] {
        switch wrapper {
        case "stateObject", "state": ["style": "bold", "class": "owns"]
        case "environmentObject", "environment": ["style": "dotted", "class": "environment"]
        default: ["style": "dashed", "class": "observes"]
        }
    }

    /// The view of a key path such as `/App/Parent.isOn`; nil for one relative to `/App`.
    private static func view(ofKeyPath path: String) -> String? {
        guard path.hasPrefix("/"), let dot = EmbeddedJSONScanner.topLevelIndices(of: ".", in: path).first else { return nil }
        return String(path[..<dot])
    }
}

/// A DOT digraph written as it is built. Nodes get ids of their own (`n0`, `n1`, …): a DOT id
/// cannot hold every text (a backslash before a quote has no spelling in one), so the thing a
/// node stands for — a view path, an object id — is its `tooltip` (shown on hover in an SVG) and
/// starts its label; attribute values are escaped as DOT's escStrings.
struct DOTGraph {
    private var lines: [String]
    private var ids: [String: String] = [:]

    init(name: String) {
        lines = [
            "digraph \(Self.quoted(name)) {", "  rankdir=LR;", "  node [fontname=\"Helvetica\", fontsize=10];",
            "  edge [fontname=\"Helvetica\", fontsize=9];",
        ]
    }

    /// The node standing for `key`, with `label` and `attributes`; a node an edge named before is
    /// not declared again.
    mutating func node(_ key: String, label: String, attributes: [String: String]) {
        guard ids[key] == nil else { return }
        let id = "n\(ids.count)"
        ids[key] = id
        let all = attributes.merging(["label": label, "tooltip": key]) { given, _ in given }
        lines.append("  \(id) [\(Self.list(all))];")
    }

    mutating func edge(_ from: String, _ to: String, label: String?, attributes: [String: String]) {
        for key in [from, to] { node(key, label: key, attributes: [:]) }
        var all = attributes
        if let label { all["label"] = label }
        lines.append("  \(ids[from] ?? "") -> \(ids[to] ?? "") [\(Self.list(all))];")
    }

    var text: String { (lines + ["}"]).joined(separator: "\n") + "\n" }

    private static func list(_ attributes: [String: String]) -> String {
        attributes.sorted { $0.key < $1.key }.map { "\($0.key)=\(quoted($0.value))" }.joined(separator: ", ")
    }

    /// A quoted DOT escString: `"` and `\\` escaped, a line break as `\\n`.
    static func quoted(_ text: String) -> String {
        var quoted = "\""
        for character in text {
            switch character {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "\n": quoted += "\\n"
            case "\r": break
            default: quoted.append(character)
            }
        }
        return quoted + "\""
    }
}

extension JSONObject {
    /// Members sorted by key: a drawing comes out the same every time.
    fileprivate var sortedMembers: [(key: String, value: JSON)] { sorted { $0.key < $1.key }.map { ($0.key, $0.value) } }
}
