import MilieuEngine
import MilieuJSON
import MilieuProtocol

extension GraphExplainRequest: ServerMethod {
    func perform(in server: Server, session: ClientSession) throws(RPCError) -> Reply {
        Reply(result: try server.explain(Version(version)).wire)
    }
}

extension Server {
    /// The cause-and-effect graph of commit `version`, from what the history holds of it: its
    /// changes, why the engine queued each view, and what made it. Only versions in the history
    /// window can be explained; older ones are `Compacted`.
    func explain(_ version: Version) throws(RPCError) -> GraphExplainRequest.Result {
        guard version <= graph.version else {
            throw .invalidParams(field: "/version", "version \(version) has not happened: the graph is at version \(graph.version)")
        }
        guard let (commit, cause) = history.entry(version) else {
            throw .compacted(oldest: history.oldest?.rawValue ?? graph.version.rawValue + 1, requested: version.rawValue - 1)
        }
        var builder = ExplainGraphBuilder(cause: cause?.cause)
        builder.addChanges(commit.changes, replaced: commit.replaced, registry: graph.registry)
        builder.addInvalidations(commit.invalidations)
        return GraphExplainRequest.Result(version: version.rawValue, cause: cause?.cause, nodes: builder.nodes, edges: builder.edges)
    }
}

/// Builds a commit's cause-and-effect graph (SPEC §9.19). Secure values appear as `<secure>`
/// (rule 13): the history keeps none.
struct ExplainGraphBuilder {
    private(set) var nodes: [ExplainNode] = []
    private(set) var edges: [ExplainEdge] = []
    private var attributes: [ViewDependency.Source: String] = [:]
    /// What views provide to their subtrees that changed, by the providing view's path.
    private var provided: [String: String] = [:]
    /// Evaluated views by path, with their reasons.
    private var views: [String: (id: String, reasons: [String])] = [:]
    private let causeID: String?

    static let secure: JSON = "<secure>"

    init(cause: CommitCause?) {
        guard let cause else {
            causeID = nil
            return
        }
        causeID = "cause"
        nodes.append(ExplainNode(id: "cause", kind: .cause, detail: cause.wire.objectValue ?? [:]))
    }

    /// Attributes and views first, in the commit's order, then the effects, each linked to the
    /// evaluated view it happened under, or else to the cause. A written value's `old` is the one
    /// the engine recorded the transaction replacing (`replaced`), left out when it is not known.
    mutating func addChanges(_ changes: Commit.Changes, replaced: ReplacedValues, registry: TypeRegistry) {
        var effects: [(detail: JSONObject, underView: String?)] = []
        var written = 0
        func old() -> JSON?? {
            defer { written += 1 }
            return replaced[written]
        }
        for change in changes {
            switch change {
            case .property(let object, let type, let property, let value):
                var detail: JSONObject = [
                    "attribute": "property", "object": .string(object), "type": .string(type), "property": .string(property),
                    "path": .string(object + "." + property), "new": value ?? Self.secure,
                ]
                if registry[type]?.model.computed.contains(where: { $0.name == property }) == true { detail["computed"] = true }
                if let old = old() { detail["old"] = old ?? Self.secure }
                addAttribute(.property(object: object, property: property), detail)
            case .state(let view, let variable, let value):
                var detail: JSONObject = [
                    "attribute": "state", "view": .string(view), "variable": .string(variable), "path": .string(view + "." + variable),
                    "new": value,
                ]
                if let old = old() { detail["old"] = old ?? Self.secure }
                addAttribute(.state(view: view, variable: variable), detail)
            case .viewUpdated(let view, let reasons, let body, _):
                let id = "v\(views.count)"
                views[view] = (id, reasons)
                nodes.append(
                    ExplainNode(
                        id: id, kind: .view,
                        detail: [
                            "path": .string(view), "reasons": .array(reasons.map(JSON.string)), "order": .int(views.count - 1),
                            "body": .array(body.map(JSON.string)),
                        ]))
            case .viewMounted(let view, let reason, _, _):
                effects.append((["effect": "mounted", "path": .string(view), "reason": .string(reason.rawValue)], Self.parent(of: view)))
            case .viewUnmounted(let view, let reason):
                effects.append((["effect": "unmounted", "path": .string(view), "reason": .string(reason.rawValue)], Self.parent(of: view)))
            case .objectCreated(let object, let type, let owner, let reason):
                effects.append(
                    (Self.objectEffect("objectCreated", object, type, owner, reason.rawValue), owner.flatMap(Self.view(ofOwner:))))
            case .objectDestroyed(let object, let type, let owner, let reason):
                effects.append(
                    (Self.objectEffect("objectDestroyed", object, type, owner, reason.rawValue), owner.flatMap(Self.view(ofOwner:))))
            case .diagnostic(let kind, let message, let view, _, _, _):
                effects.append(
                    (["effect": "diagnostic", "diagnostic": .string(kind), "path": .string(view), "message": .string(message)], view))
            }
        }
        for (index, effect) in effects.enumerated() {
            let id = "e\(index)"
            nodes.append(ExplainNode(id: id, kind: .effect, detail: effect.detail))
            if let under = effect.underView, let view = views[under] {
                edges.append(ExplainEdge(from: view.id, to: id, kind: .caused))
            } else if let causeID {
                edges.append(ExplainEdge(from: causeID, to: id, kind: .caused))
            }
        }
    }

    /// An edge into each evaluated view for each reason it reports, from what the engine saw give it.
    mutating func addInvalidations(_ invalidations: [Invalidation]) {
        for invalidation in invalidations {
            guard let view = views[invalidation.view], view.reasons.contains(invalidation.reason) else { continue }
            switch invalidation.source {
            case .attribute(let attribute):
                let from = attributes[attribute] ?? addAttribute(attribute, Self.detail(of: attribute))
                edges.append(ExplainEdge(from: from, to: view.id, kind: .invalidated, reason: invalidation.reason))
            case .parent(let parent):
                guard let parentView = views[parent] else { continue }
                edges.append(ExplainEdge(from: parentView.id, to: view.id, kind: .parent, reason: invalidation.reason))
            case .provider(let provider):
                let from = provided[provider] ?? addNode(["attribute": "provided", "view": .string(provider)])
                provided[provider] = from
                edges.append(ExplainEdge(from: from, to: view.id, kind: .invalidated, reason: invalidation.reason))
            }
        }
    }

    /// Adds an attribute node the cause wrote; returns its id.
    @discardableResult
    private mutating func addAttribute(_ attribute: ViewDependency.Source, _ detail: JSONObject) -> String {
        let id = addNode(detail)
        attributes[attribute] = id
        return id
    }

    private mutating func addNode(_ detail: JSONObject) -> String {
        let id = "a\(attributes.count + provided.count)"
        nodes.append(ExplainNode(id: id, kind: .attribute, detail: detail))
        if let causeID { edges.append(ExplainEdge(from: causeID, to: id, kind: .wrote)) }
        return id
    }

    /// The detail of an attribute no change of the commit names: an object's `objectWillChange`,
    /// an environment value.
    private static func detail(of attribute: ViewDependency.Source) -> JSONObject {
        switch attribute {
        case .property(let object, let property):
            ["attribute": "property", "object": .string(object), "property": .string(property), "path": .string(object + "." + property)]
        case .state(let view, let variable): ["attribute": "state", "view": .string(view), "variable": .string(variable)]
        case .object(let object, let type): ["attribute": "objectWillChange", "object": .string(object), "type": .string(type)]
        case .environment(let key, let provider):
            ["attribute": "environment", "key": .string(key), "provider": provider.map(JSON.string) ?? .null]
        }
    }

    private static func objectEffect(_ effect: String, _ object: String, _ type: String, _ owner: String?, _ reason: String) -> JSONObject {
        var detail: JSONObject = ["effect": .string(effect), "object": .string(object), "type": .string(type), "reason": .string(reason)]
        if let owner { detail["owner"] = .string(owner) }
        return detail
    }

    /// The path of a view's parent; nil for `/App`.
    private static func parent(of view: String) -> String? {
        let prefixes = ViewPathPrefixes.of(view)
        return prefixes.count > 1 ? prefixes[prefixes.count - 2] : nil
    }

    /// The view of an owner key path such as `/App/Shop.cart`.
    private static func view(ofOwner owner: String) -> String? {
        guard owner.hasPrefix("/"), let dot = EmbeddedJSONScanner.topLevelIndices(of: ".", in: owner).first else { return nil }
        return String(owner[..<dot])
    }
}
