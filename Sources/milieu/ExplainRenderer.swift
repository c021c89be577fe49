import MilieuJSON
import MilieuProtocol

/// A commit's cause and effect (`graph/explain`) as indented text: the cause, each attribute it
/// wrote, the views each re-rendered (and their children, through `@self`) with their reasons,
/// and the effects under the view they happened under; and `why`, one view's chain back to
/// the cause.
struct ExplainRenderer {
    let style: Style

    /// The whole commit, from its cause down.
    func render(_ explained: GraphExplainRequest.Result) -> String {
        let graph = ExplainedGraph(explained)
        var lines = ["\(style.bold("v\(explained.version)"))  \(cause(explained.cause))"]
        var shown = Set<String>()
        let roots = graph.nodes.filter { $0.kind == .attribute && graph.incoming($0.id).isEmpty || graph.isFromCause($0) }
        for attribute in roots where attribute.kind == .attribute {
            lines.append("  ✎ \(self.attribute(attribute))")
            for edge in graph.outgoing(attribute.id, .invalidated) { view(edge.to, depth: 2, in: graph, shown: &shown, into: &lines) }
        }
        // Views nothing here invalidated (a mount's first evaluation, a new identity) and effects of the cause.
        for node in graph.nodes where node.kind == .view && graph.incoming(node.id).isEmpty {
            view(node.id, depth: 1, in: graph, shown: &shown, into: &lines)
        }
        for edge in graph.outgoing("cause", .caused) { lines.append("  " + effect(graph.node(edge.to))) }
        if explained.nodes.isEmpty { lines.append("  (nothing changed that anyone can see: a registration, or what a view provides)") }
        return lines.joined(separator: "\n")
    }

    /// Why `path` was evaluated in this commit: its chain of edges back to the cause, innermost first.
    func why(_ path: String, in explained: GraphExplainRequest.Result) -> String? {
        let graph = ExplainedGraph(explained)
        guard let view = graph.nodes.first(where: { $0.kind == .view && $0.detail["path"]?.stringValue == path }) else { return nil }
        var lines = ["\(style.bold(path)) re-rendered at \(style.bold("v\(explained.version)")) because:"]
        var current = view
        var depth = 1
        var seen = Set<String>()
        while seen.insert(current.id).inserted, let edge = graph.incoming(current.id).first {
            let indent = String(repeating: "  ", count: depth)
            let from = graph.node(edge.from)
            switch edge.kind {
            case .parent:
                lines.append("\(indent)\(edge.reason ?? "@self"): its parent \(from.detail["path"]?.stringValue ?? "?") re-rendered")
            case .invalidated:
                lines.append("\(indent)\(edge.reason ?? "?"): \(attribute(from))")
            case .wrote, .caused:
                lines.append("\(indent)\(cause(explained.cause))")
            }
            current = from
            depth += 1
        }
        if current.kind == .attribute, explained.cause != nil {
            lines.append(String(repeating: "  ", count: depth) + cause(explained.cause))
        }
        if graph.incoming(view.id).isEmpty { lines.append("  it is new here: \(reasons(view))") }
        return lines.joined(separator: "\n")
    }

    /// Why `path` was *not* evaluated in this commit (issue #30, item 4: seed 000 asks why
    /// LoginView1 keeps its text): its parent re-rendered and its inputs compared equal (and a
    /// `@StateObject` it holds was kept), or its parent did not re-render and it read nothing the
    /// commit wrote. `view` is its `graph/get` snapshot; `reads`, what its last evaluation read.
    func whyNot(_ path: String, in explained: GraphExplainRequest.Result, view: JSON, reads: ViewDependenciesRequest.Result) -> String {
        let graph = ExplainedGraph(explained)
        let version = explained.version
        var lines = ["\(style.bold(path)) did not re-render at \(style.bold("v\(version)")):"]
        let parent = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? ""
        let rendered = graph.nodes.filter { $0.kind == .view }
        if let parentNode = rendered.first(where: { $0.detail["path"]?.stringValue == parent }) {
            let inputs = (view["inputs"]?.objectValue ?? [:]).map(\.key) + (view["bindings"]?.objectValue ?? [:]).map(\.key)
            let given = inputs.isEmpty ? "it takes none" : "it takes " + inputs.joined(separator: ", ")
            lines.append(
                "  its parent \(parent) re-rendered (\(reasons(parentNode))) and wrote it again, but its inputs compared equal "
                    + "(\(given)), so its body was not evaluated")
            for (name, held) in view["objects"]?.objectValue ?? [:] where held["wrapper"]?.stringValue == "stateObject" {
                lines.append(
                    "  @StateObject \(name) kept \(held["object"]?.stringValue ?? "its object"): a StateObject is made once for the "
                        + "view's identity, and the initializer the parent's body runs again is ignored")
            }
            return lines.joined(separator: "\n")
        }
        lines.append(
            parent.isEmpty
                ? "  it is the root: only what it read re-renders it"
                : "  its parent \(parent) did not re-render, and it read nothing v\(version) wrote")
        let read = reads.dependencies.map { dependency in "\(describe(dependency.source)) (\(dependency.reasons.joined(separator: ", ")))" }
        let evaluated = view["lastEvaluated"]?.intValue.map { $0 > version ? style.dim(" as of its last evaluation, v\($0)") : "" } ?? ""
        lines.append("    it read\(evaluated): " + (read.isEmpty ? "nothing" : read.joined(separator: ", ")))
        let wrote = graph.nodes.filter { $0.kind == .attribute }.map(attribute)
        lines.append("    v\(version) wrote: " + (wrote.isEmpty ? "nothing a view reads" : wrote.joined(separator: ", ")))
        return lines.joined(separator: "\n")
    }

    private func describe(_ source: ViewDependency.Source) -> String {
        switch source {
        case .property(let object, let property): "\(object).\(property)"
        case .state(let view, let variable): "\(view).\(variable)"
        case .object(let object, _): object
        case .environment(let key, let provider): "\\.\(key)" + (provider.map { " from \($0)" } ?? "")
        }
    }

    private func view(_ id: String, depth: Int, in graph: ExplainedGraph, shown: inout Set<String>, into lines: inout [String]) {
        let node = graph.node(id)
        let indent = String(repeating: "  ", count: depth)
        let path = node.detail["path"]?.stringValue ?? "?"
        guard shown.insert(id).inserted else {
            lines.append("\(indent)↻ \(path)  \(style.dim("(above)"))")
            return
        }
        lines.append("\(indent)↻ \(style.bold(path))  \(reasons(node))  \(style.dim("#\(node.detail["order"]?.jsonText ?? "?")"))")
        for edge in graph.outgoing(id, .caused) { lines.append("\(indent)  " + effect(graph.node(edge.to))) }
        for edge in graph.outgoing(id, .parent) { view(edge.to, depth: depth + 1, in: graph, shown: &shown, into: &lines) }
    }

    private func reasons(_ view: ExplainNode) -> String {
        (view.detail["reasons"]?.arrayValue ?? []).compactMap(\.stringValue).joined(separator: ", ")
    }

    private func cause(_ cause: CommitCause?) -> String {
        guard let cause else { return style.dim("(cause unknown: read back from the log, or the scene's load)") }
        let more = cause.moreOperations > 0 ? ["and \(cause.moreOperations) more"] : []
        let targets = (cause.operations.compactMap(\.path) + more).joined(separator: ", ")
        let who = ["connection \(cause.connection)", cause.pid.map { "pid \($0)" }, cause.client].compactMap { $0 }.joined(separator: ", ")
        return "\(cause.method)\(targets.isEmpty ? "" : " " + targets)  \(style.dim("(\(who))"))"
    }

    private func attribute(_ node: ExplainNode) -> String {
        let detail = node.detail
        let kind = detail["attribute"]?.stringValue ?? "attribute"
        switch kind {
        case "objectWillChange": return "\(detail["object"]?.stringValue ?? "?").objectWillChange"
        case "environment": return "environment \(detail["key"]?.stringValue ?? "?")"
        case "provided": return "what \(detail["view"]?.stringValue ?? "?") provides"
        default:
            let name = style.bold(detail["path"]?.stringValue ?? "?")
            guard let new = detail["new"] else { return name }
            let computed = detail["computed"] == true ? style.dim(" (computed)") : ""
            return "\(name)  \(detail["old"]?.jsonText ?? "…") → \(new.jsonText)\(computed)"
        }
    }

    private func effect(_ node: ExplainNode) -> String {
        let detail = node.detail
        let subject = detail["path"]?.stringValue ?? detail["object"]?.stringValue ?? ""
        let reason = detail["reason"]?.stringValue ?? detail["message"]?.stringValue ?? ""
        switch detail["effect"]?.stringValue {
        case "mounted": return style.green("+ \(subject) mounted (\(reason))")
        case "unmounted": return style.red("− \(subject) unmounted (\(reason))")
        case "objectCreated": return style.green("+ \(subject) created (\(reason))")
        case "objectDestroyed": return style.red("− \(subject) destroyed (\(reason))")
        default: return style.yellow("! \(detail["diagnostic"]?.stringValue ?? "diagnostic") \(subject): \(reason)")
        }
    }
}

/// A `graph/explain` result with its edges indexed by node.
private struct ExplainedGraph {
    let nodes: [ExplainNode]
    private let byID: [String: ExplainNode]
    private let edgesFrom: [String: [ExplainEdge]]
    private let edgesTo: [String: [ExplainEdge]]

    init(_ explained: GraphExplainRequest.Result) {
        nodes = explained.nodes
        byID = Dictionary(explained.nodes.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        edgesFrom = Dictionary(grouping: explained.edges, by: \.from)
        edgesTo = Dictionary(grouping: explained.edges, by: \.to)
    }

    func node(_ id: String) -> ExplainNode { byID[id] ?? ExplainNode(id: id, kind: .effect, detail: [:]) }
    func outgoing(_ id: String, _ kind: ExplainEdge.Kind) -> [ExplainEdge] { (edgesFrom[id] ?? []).filter { $0.kind == kind } }
    /// The edges into `id`, the cause's `wrote` left out.
    func incoming(_ id: String) -> [ExplainEdge] { (edgesTo[id] ?? []).filter { $0.kind != .wrote } }
    func isFromCause(_ node: ExplainNode) -> Bool { (edgesTo[node.id] ?? []).contains { $0.kind == .wrote } }
}
