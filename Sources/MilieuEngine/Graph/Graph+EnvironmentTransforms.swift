import MilieuJSON

/// An environment value that combines with what a view inherits rather than replacing it
/// (SPEC §6.3): `.transformEnvironment(\.key) { value in … }` around content in a parent's body,
/// and `.disabled(c)`, which SwiftUI writes as `isEnabled = isEnabled && !c` — so an inner
/// `.disabled(false)` cannot enable what an outer `.disabled(true)` turned off.
struct PlacedTransform {
    enum Rule {
        /// `to`, over the place's locals and then the inherited value.
        case transform(TypeExpression)
        /// `disabled`'s condition: the key is `isEnabled`.
        case disabled(TypeExpression)
    }

    let key: String
    let rule: Rule
    /// The locals of the parent's body where the content is written (a row's element).
    let locals: [JSON]
    /// Where it is written in the body: with `locals`, what tells two transforms apart.
    let pointer: String

    static let isEnabled = "isEnabled"
}

extension Graph {
    /// `value`, as the view inherits it, transformed by `transform`, which `writer`'s body wrote:
    /// evaluated over `writer`'s variables as they are now, untracked (the writer's body evaluation
    /// tracked them when it placed the view).
    func transformed(_ value: JSON, by transform: PlacedTransform, writer: ViewNode) throws(EngineError) -> JSON {
        switch transform.rule {
        case .disabled(let condition):
            let (off, _) = try evaluate(condition, in: writer, nil, transform.locals)
            return .bool(value != false && off != true)
        case .transform(let expression):
            let (new, secret) = try evaluate(expression, in: writer, nil, transform.locals + [value])
            let field = "transformEnvironment \(transform.pointer)"
            guard !secret else {
                throw .invalidDeclaration(
                    field: field, reason: "it reads a secure value, which an environment value would show to every view",
                    view: writer.path)
            }
            return try checkedEnvironmentValue(transform.key, new, field: field, view: writer.path)
        }
    }

    /// What `transforms` (outermost first) make of `value` for `key`.
    func transformed(
        _ value: JSON, key: String, through transforms: [PlacedTransform], writer: ViewNode
    ) throws(EngineError) -> JSON {
        var value = value
        for transform in transforms where transform.key == key { value = try transformed(value, by: transform, writer: writer) }
        return value
    }

    /// The values a view's place gives the keys its transforms transform: what its environment
    /// holds there, before its own modifiers.
    func transformResults(_ transforms: [PlacedTransform], parent: ViewNode) throws(EngineError) -> [String: JSON] {
        var results: [String: JSON] = [:]
        for key in Set(transforms.map(\.key)) {
            let inherited = try contentEnvironmentValue(key, of: parent).value
            results[key] = try transformed(inherited, key: key, through: transforms, writer: parent)
        }
        return results
    }

    /// Gives a view the transforms of its new place. When what they give it differs from what they
    /// gave at its last placement, the views of its subtree that read those keys see the new values
    /// (`env.<key>`, caused by the parent).
    func setPlacedTransforms(_ node: ViewNode, _ transforms: [PlacedTransform]) throws(EngineError) {
        guard let parent = node.parent, !(transforms.isEmpty && node.placedTransforms.isEmpty) else { return }
        let results = try transformResults(transforms, parent: parent)
        let old = (node.placedTransforms, node.transformResults)
        guard !Self.same(old.0, transforms) || old.1 != results else { return }
        journal.record(.placedTransforms(node, old: old.0, results: old.1))
        node.placedTransforms = transforms
        node.transformResults = results
        let changed = Set(results.keys).union(old.1.keys).filter { results[$0] != old.1[$0] }
        guard !changed.isEmpty else { return }
        try refreshEnvironmentValues(in: node.subtree, keys: changed, writer: parent)
    }

    private static func same(_ a: [PlacedTransform], _ b: [PlacedTransform]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.pointer == $1.pointer && $0.locals == $1.locals }
    }

    /// The value of `key` that `node`'s body content inherits: what its body provides, else what it sees.
    func contentEnvironmentValue(_ key: String, of node: ViewNode) throws(EngineError) -> (provider: ViewSerial?, value: JSON) {
        if let value = node.provided.environment[key] { return (node.serial, value) }
        return try environmentValue(key, for: node)
    }

    /// Whether `node`'s controls may be used: `isEnabled` in its environment, which every
    /// `disabled` around its place, or an ancestor's, turns off.
    func isEnabled(_ node: ViewNode) throws(EngineError) -> Bool {
        try environmentValue(PlacedTransform.isEnabled, for: node).value != false
    }
}
