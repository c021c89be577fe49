import MilieuJSON
import MilieuProtocol

/// What the daemon's schema says about a value about to be typed, for Tab and the hints: a
/// property's `oneOf` values, its range and type, an action's parameters. The types are asked
/// for once (`schema/types`) and kept until `forget()` (a new connection, a `load`, a raw line
/// that may have registered types); the type of the object a path reaches, once per path.
final class SchemaHelp {
    let link: Link
    private var types: [String: TypeDescription]?
    private var typeOfObject: [String: String?] = [:]
    private var secretAt: [String: Bool?] = [:]

    init(link: Link) { self.link = link }

    /// Forgets what it learnt: the types may have changed, or the objects paths reach.
    func forget() {
        types = nil
        typeOfObject = [:]
        secretAt = [:]
    }

    /// The stored or computed property `path` names (`theme.colorScheme`), if the schema knows it.
    func property(at path: String) -> PropertyDescription? {
        guard let (base, name) = PathSyntax.splitLastMember(path), let type = type(ofObjectAt: base) else { return nil }
        return type.properties.first { $0.name == name }
    }

    /// The action `path` names (`session.start`), if the schema knows it.
    func action(at path: String) -> ActionDescription? {
        guard let (base, name) = PathSyntax.splitLastMember(path), let type = type(ofObjectAt: base) else { return nil }
        return type.actions.first { $0.name == name }
    }

    /// The values Tab offers after `set <path> `: a property's `oneOf` values, as JSON; for a
    /// string a bare word is enough (`set theme.colorScheme dark`), as `set` takes it.
    func values(for path: String) -> [String] {
        guard let oneOf = property(at: path)?.constraints.oneOf else { return [] }
        return oneOf.map { value in
            if case .string(let text) = value, ArgumentScanner.isBareWord(text), (try? JSON(parsing: text)) == nil { return text }
            return value.jsonText
        }
    }

    /// The hint after `set <path> `: `light | dark`, `<double 0.5..3>`, `<string>`; nil when
    /// the schema does not know the path (a `@State`'s type is its first value's).
    func valueHint(for path: String) -> String? {
        guard let property = property(at: path), !property.computed else { return nil }
        if !values(for: path).isEmpty { return values(for: path).joined(separator: " | ") }
        let constraints = property.constraints
        let range =
            switch (constraints.min, constraints.max) {
            case (let low?, let high?): " \(Self.number(low))..\(Self.number(high))"
            case (let low?, nil): " >= \(Self.number(low))"
            case (nil, let high?): " <= \(Self.number(high))"
            case (nil, nil): ""
            }
        return "<\(property.type)\(range)>"
    }

    /// The hint after `call <path> `: the action's parameters, `<user: string>`; nil for none.
    func argumentsHint(for path: String) -> String? {
        guard let action = action(at: path), !action.params.isEmpty else { return nil }
        return action.params.map { "<\($0)>" }.joined(separator: " ")
    }

    private func type(ofObjectAt base: String) -> TypeDescription? {
        loadTypes()
        if typeOfObject[base] == nil {
            let snapshot = try? link.request(GraphGetRequest(path: base))
            typeOfObject[base] = .some(snapshot?["object"] != nil ? snapshot?["type"]?.stringValue : nil)
        }
        return typeOfObject[base]?.flatMap { types?[$0] }
    }

    private func loadTypes() {
        guard types == nil else { return }
        types = Dictionary(((try? link.request(SchemaTypesRequest()))?.types ?? []).map { ($0.name, $0) }) { first, _ in first }
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}

/// The daemon's word on what a path reaches, for the history (`SecretLines`).
extension SchemaHelp: SecretOracle {
    /// `graph/get` of `path`: `Forbidden` for a secure value, wherever the path reaches it from.
    func reachesSecret(_ path: String) -> Bool? {
        if let known = secretAt[path] { return known }
        let answer: Bool?
        do {
            _ = try link.request(GraphGetRequest(path: path))
            answer = false
        } catch let error as RPCError where error.errorKind == .forbidden && error.data["reason"] == "secure" {
            answer = true
        } catch {
            answer = nil
        }
        secretAt[path] = .some(answer)
        return answer
    }

    var knownTypes: [TypeDescription] {
        loadTypes()
        return types.map { Array($0.values) } ?? []
    }

    /// `view/controls` of the view: whether its control labelled `label` is a `SecureField`.
    func isSecureControl(view: String, label: String) -> Bool? {
        guard let result = try? link.request(ViewControlsRequest(path: view)),
            let control = result.controls.first(where: { $0.label == label })
        else { return nil }
        return control.kind == "secureField"
    }
}
