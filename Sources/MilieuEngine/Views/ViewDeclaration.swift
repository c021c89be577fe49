import MilieuJSON
import MilieuProtocol

/// A value in a view declaration: a literal, or a reference re-evaluated on every
/// re-render of the parent (`{"$parent": "x.y"}`, `{"$input": "x"}`), or a new object made
/// at every evaluation of the parent (`{"$new": {"type": "T", "init": {...}}}`, rule 18).
indirect enum ValueExpression: Sendable {
    /// The n-th of the literals a view was declared with. A declaration is shared by views
    /// that differ only in their literals (`DeclarationCache`), so each view keeps its own.
    case literal(Int)
    /// A literal inside a `$new`, kept in the declaration itself: `DeclarationCache` compares a
    /// `$new` whole, as it does every expression.
    case constant(JSON)
    case parent(ReadPath)
    case input(String)
    case new(ObjectInitializer)
    /// `{"$expr": expression}` in a view written in a body: an expression of the parent's body
    /// language (SPEC §6.2), over the parent's variables and the locals where the view is written.
    case computed(TypeExpression)
    /// `{"$closure": {"params"?: [name], "steps": [step]}}`, an input of a view written in a body:
    /// a closure the parent passes (`Row(onTap: { count += 1 })`), whose steps run in the parent.
    case closure(ViewClosure)

    /// The key of `json` if it is written as an expression: an object of one member whose key
    /// starts with `$`. Anything else is a literal.
    static func expressionKey(_ json: JSON) -> String? {
        guard case .object(let object) = json, object.count == 1, object[0].key.hasPrefix("$") else { return nil }
        return object[0].key
    }

    var isNew: Bool { if case .new = self { true } else { false } }

    /// Parses `json`; a literal is recorded in `literals`, at `field`, and refers to its place there.
    /// `$new` is allowed where a view keeps or receives a value (`state`, `inputs`), `$closure` where
    /// it receives one (`inputs`). `$expr` and `$closure` are compiled with `scope`, the body
    /// language of the parent where the view is written.
    init(
        _ json: JSON, field: @autoclosure () -> String, literals: inout DeclarationLiterals, allowsNew: Bool = false,
        allowsClosure: Bool = false, scope: ExpressionCompiler? = nil
    ) throws(EngineError) {
        if let key = Self.expressionKey(json), case .object(let object) = json {
            if key == "$closure" {
                guard allowsClosure else {
                    throw .invalidDeclaration(field: field(), reason: "$closure is a closure a parent passes to an input (a let)")
                }
                guard let scope else {
                    throw .invalidDeclaration(field: field(), reason: "$closure is for a view written in its parent's body")
                }
                self = .closure(try ViewClosure(object[0].value, field: field(), scope: scope))
                return
            }
            if key == "$expr" {
                guard var compiler = scope else {
                    throw .invalidDeclaration(field: field(), reason: "$expr is for a view written in its parent's body")
                }
                do {
                    self = .computed(
                        try compiler.compile(object[0].value, at: RequestPointer("/" + field().replacing(".", with: "/")), depth: 1).0)
                } catch {
                    throw .invalidDeclaration(field: field(), reason: error.data["reason"]?.stringValue ?? error.message)
                }
                return
            }
            if key == "$new" {
                guard allowsNew else {
                    throw .invalidDeclaration(
                        field: field(), reason: "$new makes an object for a @State or an input; it cannot be used here")
                }
                self = .new(try ObjectInitializer(new: object[0].value, field: field() + ".$new"))
                return
            }
            switch (key, object[0].value) {
            case ("$parent", .string(let path)):
                let members = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
                guard isIdentifier(members[0]), !members.contains(where: \.isEmpty) else {
                    throw .invalidDeclaration(field: field(), reason: "\"$parent\": \"\(path)\" is not a key path")
                }
                self = .parent(try ReadPath(members))
                return
            case ("$input", .string(let name)):
                guard isIdentifier(name) else {
                    throw .invalidDeclaration(field: field(), reason: "\"$input\": \"\(name)\" is not an input name")
                }
                self = .input(name)
                return
            case ("$literal", let value):
                self = .literal(literals.record(value, at: field()))
                return
            case ("$parent", _), ("$input", _):
                throw .invalidDeclaration(field: field(), reason: "\(key) takes a string")
            default:
                throw .invalidDeclaration(
                    field: field(), reason: "\(key) is not an expression; use $parent, $input, $literal, $new, $expr or $closure")
            }
        }
        if allowsNew, let type = Self.forgottenNew(json) {
            throw .invalidDeclaration(
                field: field(),
                reason: "\(json.jsonText) is a plain JSON object, not a \(type): write {\"$new\": \(json.jsonText)} to make one "
                    + "(or {\"$literal\": …} to keep the object as it is)")
        }
        self = .literal(literals.record(json, at: field()))
    }

    /// The type `json` names when it reads as a `$new` whose `$new` was left out: an object of
    /// `type` (a type name: a capital first) and at most `init` (issue #30: it mounted, and the
    /// body showed the object where the model was meant).
    private static func forgottenNew(_ json: JSON) -> String? {
        guard case .object(let object) = json, case .string(let type)? = object["type"], type.first?.isUppercase == true,
            object.keys.allSatisfy({ $0 == "type" || $0 == "init" })
        else { return nil }
        return type
    }
}

/// A closure a parent passes a child (`onTap: { count += 1 }`, `onPick: { n in picked = n }`): its
/// parameters and steps, compiled as the parent's control actions are, seeing the parent's
/// variables and the locals where the child is written, then the parameters.
struct ViewClosure: Sendable {
    let parameters: [String]
    let steps: [ActionStep]

    /// `{"params"?: [name], "steps": [step]}`, compiled in `scope`, the parent's body language.
    init(_ json: JSON, field: String, scope: ExpressionCompiler) throws(EngineError) {
        guard case .object(let spec) = json, let stepsJSON = spec["steps"] else {
            throw .invalidDeclaration(field: field, reason: "$closure takes {\"params\"?: [names], \"steps\": [steps]}")
        }
        try rejectUnknownKeys(spec, allowed: ["params", "steps"], field: "\(field).$closure")
        var parameters: [String] = []
        if let listed = spec["params"] {
            guard case .array(let names) = listed, let all = Optional(names.compactMap(\.stringValue)), all.count == names.count,
                all.allSatisfy(isIdentifier), Set(all).count == all.count
            else {
                throw .invalidDeclaration(field: "\(field).$closure.params", reason: "params is an array of distinct parameter names")
            }
            parameters = all
        }
        guard case .view(let variables, _) = scope.role else {
            throw .invalidDeclaration(field: field, reason: "$closure is for a view written in its parent's body")
        }
        var actions = ExpressionCompiler(role: .view(variables: variables, writes: true), limits: scope.limits)
        for name in scope.localNames + parameters { actions.bind(name) }
        do {
            steps = try actions.compileSteps(
                stepsJSON, at: RequestPointer("/" + field.replacing(".", with: "/") + "/$closure/steps"), depth: 1)
        } catch {
            throw .invalidDeclaration(field: field, reason: error.data["reason"]?.stringValue ?? error.message)
        }
        self.parameters = parameters
    }
}

/// How a `@StateObject`, a constructed `@ObservedObject` or a `$new` object is made: a type and
/// initial property values.
struct ObjectInitializer: Sendable {
    var type: String
    var arguments: [(name: String, value: ValueExpression)]
    /// `let vm = T(...); _vm = StateObject(wrappedValue: vm)`: built at every evaluation of the
    /// parent and thrown away after the first (seed 001 case 2), where the autoclosure builds nothing.
    var eager = false

    init(type: String, arguments: [(name: String, value: ValueExpression)], eager: Bool = false) {
        self.type = type
        self.arguments = arguments
        self.eager = eager
    }

    /// `{"type": "T", "init": {...}}` inside `$new`: init values are `$parent`, `$input` or constants.
    init(new spec: JSON, field: String) throws(EngineError) {
        guard case .object(let object) = spec, case .string(let type)? = object["type"] else {
            throw .invalidDeclaration(field: field, reason: "$new takes {\"type\": \"TypeName\", \"init\": {...}}")
        }
        try rejectUnknownKeys(object, allowed: ["type", "init"], field: field)
        var arguments: [(name: String, value: ValueExpression)] = []
        if let initValues = object["init"] {
            guard case .object(let entries) = initValues else {
                throw .invalidDeclaration(field: "\(field).init", reason: "init is an object of property: value")
            }
            for (name, value) in entries {
                var constant = DeclarationLiterals()
                switch try ValueExpression(value, field: "\(field).init.\(name)", literals: &constant) {
                case .literal: arguments.append((name, .constant(constant.values[0])))
                case let expression: arguments.append((name, expression))
                }
            }
        }
        self.init(type: type, arguments: arguments)
    }

}

/// An `@Environment(T.self)` variable: an `@Observable` object found by type (rule 17).
struct EnvironmentObservable: Sendable {
    var type: String
    /// `var p: Prefs?`: reads null when no ancestor provides one, rather than failing.
    var optional: Bool
}

/// Where an `@ObservedObject` comes from (rule 5).
enum ObservedSource: Sendable {
    /// Made by the view itself: a new instance on every re-render of its parent.
    case construct(ObjectInitializer)
    /// Passed in (`$parent` or `$input`): the same object each time.
    case passed(ValueExpression)
    /// An existing object named by id.
    case object(String)
}

/// The parsed params of `view/mount` (protocol-contract.md): a view's name, identity,
/// wrappers, what it provides to its subtree and its body, with its literal values left out
/// (`ValueExpression.literal`). Shared by reference: every view mounted from a declaration of
/// the same shape, and every identity rebuilt from one, keeps the same one.
final class ViewDeclaration: Sendable {
    /// The parent's path as the client wrote it (`Graph.parentView` canonicalises it only when
    /// it is not a mounted path already); empty for the root.
    let parent: String
    /// The view's name in its path: its struct's name, or for the second view of one name written
    /// in a body, `Name_2` (each place in a body is its own identity).
    let name: String
    /// The struct's name: what `_printChanges` prints.
    let typeName: String
    /// Written in its parent's body (`{"view": ...}`): the parent's evaluations mount and unmount it.
    let inBody: Bool
    let id: ValueExpression?
    let inputs: [(name: String, value: ValueExpression)]
    /// The parameters of the view's own `init` that it keeps nowhere (`init(num: Int)`): evaluated
    /// for the initializers that read them (`$input`), never variables and never compared (`@self`
    /// compares what the struct stores).
    let arguments: [(name: String, value: ValueExpression)]
    let state: [(name: String, value: ValueExpression)]
    /// The types `stateTypes` gives `@State`s (`@State var name: String? = "kim"`); a `@State`
    /// not listed takes the kind of its initial value (`Graph.stateType(of:)`).
    let stateTypes: [(name: String, type: PropertyType)]
    let bindings: [(name: String, value: BindingSource)]
    let stateObjects: [(name: String, value: ObjectInitializer)]
    let observedObjects: [(name: String, value: ObservedSource)]
    let environmentObjects: [(name: String, value: String)]
    let environmentObservables: [(name: String, value: EnvironmentObservable)]
    /// Environment values: each variable with the key it reads (the same name in the array form).
    let environment: [(name: String, key: String)]
    /// What the view's body applies to its content (`provide`): its descendants see it, the view
    /// itself does not (rule 7).
    let provides: EnvironmentModifiers
    /// What the parent's body applies where it places this view (`modifiers`,
    /// `Child().environmentObject(x)`): the view and its descendants see it, its siblings do not.
    /// Key paths are relative to the parent.
    let modifiers: EnvironmentModifiers
    let body: [BodyElement]
    let retain: Bool
    /// `let _ = Self._printChanges()`: each evaluation says what changed, as SwiftUI prints it;
    /// the dynamic properties in the struct's order (nil: the view does not print).
    let printChanges: [String]?
    /// `.equatable()` (`EquatableView`): the inputs and bindings its `==` compares; when they are
    /// equal the parent's new values are dropped and the view is not evaluated (nil: compared
    /// memberwise, SwiftUI's default, where a closure never compares equal).
    let equatable: [String]?
    /// The dynamic properties in declaration order: every variable but the inputs (plain `let`s);
    /// what `printChanges: true` lists.
    let dynamicProperties: [String]
    /// How many variables the view declares. A mounted view holds them in declaration order
    /// (`ViewNode.variables`): inputs, state, bindings, state objects, observed objects,
    /// environment objects, environment observables, environment values.
    let variableCount: Int

    /// The members of a declaration. Matched by length first: a declaration is parsed or
    /// compared with the last one on every mount, and a chain of string comparisons per member adds up.
    enum Member: CaseIterable {
        case parent, name, id, inputs, arguments, state, stateTypes, bindings, stateObjects, observedObjects
        case environmentObjects, environment, provide, modifiers, body, retain, printChanges, equatable

        init?(_ key: String) {
            let match: Member?
            switch key.utf8.count {
            case 2: match = .id
            case 4: match = key == "body" ? .body : .name
            case 5: match = .state
            case 6: match = key == "parent" ? .parent : key == "inputs" ? .inputs : .retain
            case 7: match = .provide
            case 8: match = .bindings
            case 9: match = key == "modifiers" ? .modifiers : key == "equatable" ? .equatable : .arguments
            case 10: match = .stateTypes
            case 11: match = .environment
            case 12: match = key == "stateObjects" ? .stateObjects : .printChanges
            case 15: match = .observedObjects
            case 18: match = .environmentObjects
            default: match = nil
            }
            guard let match, key == match.name else { return nil }
            self = match
        }

        var name: String {
            switch self {
            case .parent: "parent"
            case .name: "name"
            case .id: "id"
            case .inputs: "inputs"
            case .arguments: "arguments"
            case .state: "state"
            case .stateTypes: "stateTypes"
            case .bindings: "bindings"
            case .stateObjects: "stateObjects"
            case .observedObjects: "observedObjects"
            case .environmentObjects: "environmentObjects"
            case .environment: "environment"
            case .provide: "provide"
            case .modifiers: "modifiers"
            case .body: "body"
            case .retain: "retain"
            case .printChanges: "printChanges"
            case .equatable: "equatable"
            }
        }
    }

    static let keys = Set(Member.allCases.map(\.name))

    /// Where a declaration is: mounted by `view/mount` or a scene, the scene's root, or written in
    /// a parent's body, where its `$expr`s are compiled in the parent's body language.
    enum Placement {
        case mounted
        case root
        case body(slotName: String, scope: ExpressionCompiler)
    }

    /// Parses a declaration, recording its literal values and where they are in `literals`, in
    /// the order they appear in `json`; the root view (`/App`, from a scene) has no parent and is named App.
    init(
        json: JSON, templates: TemplateCache = TemplateCache(), literals: inout DeclarationLiterals,
        placement: Placement = .mounted
    )
        throws(EngineError)
    {
        guard case .object(var object) = json else {
            throw .invalidDeclaration(field: "declaration", reason: "a view declaration is a JSON object")
        }
        let root: Bool
        var scope: ExpressionCompiler?
        var slotName: String?
        switch placement {
        case .mounted: root = false
        case .root:
            root = true
            try rejectUnknownKeys(object, allowed: Self.keys.subtracting(["parent", "name", "id", "modifiers"]), field: "app")
            object["parent"] = .string(KeyPath.appPath)
            object["name"] = "App"
        case .body(let slot, let compiler):
            root = false
            scope = compiler
            slotName = slot
            try rejectUnknownKeys(object, allowed: Self.keys.subtracting(["parent", "retain"]), field: "view")
            object["parent"] = ""
        }
        guard case .string(let parentText)? = object["parent"] else {
            throw .invalidDeclaration(field: "parent", reason: "a view declaration needs a string \"parent\" view path")
        }
        guard case .string(let name)? = object["name"], isIdentifier(name) else {
            throw .invalidDeclaration(field: "name", reason: viewNameProblem(object["name"]))
        }
        /// The view named in errors, built only when one is thrown.
        func view() -> String { parentText + "/" + (slotName ?? name) }
        var id: ValueExpression?
        var inputs: [(name: String, value: ValueExpression)] = []
        var arguments: [(name: String, value: ValueExpression)] = []
        var state: [(name: String, value: ValueExpression)] = []
        var stateTypes: [(name: String, type: PropertyType)] = []
        var bindings: [(name: String, value: BindingSource)] = []
        var stateObjects: [(name: String, value: ObjectInitializer)] = []
        var observedObjects: [(name: String, value: ObservedSource)] = []
        var environmentObjects: [(name: String, value: String)] = []
        var environmentObservables: [(name: String, value: EnvironmentObservable)] = []
        var environment: [(name: String, key: String)] = []
        var provides = EnvironmentModifiers()
        var modifiers = EnvironmentModifiers()
        var bodyJSON: JSON?
        var printsChanges: [String]?
        var equatable: [String]?
        var retain = false
        // One pass over the members: each is parsed by its key; an unknown key is an error.
        for (key, value) in object {
            switch Member(key) {
            case .parent, .name: continue
            case .id: id = try ValueExpression(value, field: "id", literals: &literals, scope: scope)
            case .inputs:
                inputs = try Self.members(value, key, view: view()) { v, f throws(EngineError) in
                    try ValueExpression(v, field: f(), literals: &literals, allowsNew: true, allowsClosure: true, scope: scope)
                }
            case .arguments:
                arguments = try Self.members(value, key, view: view()) { v, f throws(EngineError) in
                    try ValueExpression(v, field: f(), literals: &literals, scope: scope)
                }
            case .state:
                state = try Self.members(value, key, view: view()) { v, f throws(EngineError) in
                    try ValueExpression(v, field: f(), literals: &literals, allowsNew: true, scope: scope)
                }
            case .stateTypes:
                stateTypes = try Self.members(value, key, view: view()) { v, f throws(EngineError) in
                    try Self.stateType(v, field: f(), view: view())
                }.map { ($0.name, $0.value) }
            case .bindings:
                bindings = try Self.members(value, key, view: view()) { v, f throws(EngineError) in
                    if ValueExpression.expressionKey(v) == "$constant", case .object(let constant) = v {
                        return .constant(
                            try ValueExpression(constant[0].value, field: f() + ".$constant", literals: &literals, scope: scope))
                    }
                    guard case .parent(let read) = try ValueExpression(v, field: f(), literals: &literals) else {
                        throw .invalidDeclaration(
                            field: f(),
                            reason: "a binding is {\"$parent\": \"<state, binding or object.property>\"} or {\"$constant\": value}",
                            view: view())
                    }
                    return .parent(read.members)
                }
            case .stateObjects:
                stateObjects = try Self.members(value, key, view: view()) { v, f throws(EngineError) in
                    try Self.initializer(v, typeKey: "type", field: f(), view: view(), literals: &literals, scope: scope)
                }
            case .observedObjects:
                observedObjects = try Self.members(value, key, view: view()) { v, f throws(EngineError) in
                    try Self.observedSource(v, field: f(), view: view(), literals: &literals, scope: scope)
                }
            case .environmentObjects:
                environmentObjects = try Self.members(value, key, view: view()) { v, f throws(EngineError) in
                    guard case .string(let type) = v else {
                        throw .invalidDeclaration(field: f(), reason: "an environment object is named by its type", view: view())
                    }
                    return type
                }
            case .environment:
                (environment, environmentObservables) = try Self.environment(value, view: view())
            case .provide: provides = try EnvironmentModifiers(value, field: "provide", view: view())
            case .modifiers: modifiers = try EnvironmentModifiers(value, field: "modifiers", view: view())
            case .body: bodyJSON = value
            case .printChanges:
                switch value {
                case .bool(let flag): printsChanges = flag ? [] : nil
                case .array(let names) where names.allSatisfy({ $0.stringValue.map(isIdentifier) ?? false }):
                    printsChanges = names.compactMap(\.stringValue)
                default:
                    throw .invalidDeclaration(
                        field: "printChanges", reason: "printChanges is true, or the view's dynamic properties in the struct's order",
                        view: view())
                }
            case .equatable:
                guard case .array(let names) = value, let all = Optional(names.compactMap(\.stringValue)), all.count == names.count
                else {
                    throw .invalidDeclaration(
                        field: "equatable", reason: "equatable lists the inputs and bindings the view's == compares", view: view())
                }
                equatable = all
            case .retain:
                guard case .bool(let flag) = value else {
                    throw .invalidDeclaration(field: "retain", reason: "retain is true or false", view: view())
                }
                retain = flag
            case nil:
                try rejectUnknownKeys(
                    object, allowed: root ? Self.keys.subtracting(["id", "modifiers"]) : Self.keys, field: "declaration", view: view())
            }
        }
        var variables: [String] = []
        variables.reserveCapacity(
            inputs.count + state.count + bindings.count + stateObjects.count + observedObjects.count
                + environmentObjects.count + environmentObservables.count + environment.count)
        for (name, _) in inputs { variables.append(name) }
        for (name, _) in state { variables.append(name) }
        for (name, _) in bindings { variables.append(name) }
        for (name, _) in stateObjects { variables.append(name) }
        for (name, _) in observedObjects { variables.append(name) }
        for (name, _) in environmentObjects { variables.append(name) }
        for (name, _) in environmentObservables { variables.append(name) }
        for (name, _) in environment { variables.append(name) }
        try Self.checkVariables(variables, view: view())
        for (name, _) in stateTypes {
            guard let initial = state.first(where: { $0.name == name })?.value else {
                throw .invalidDeclaration(
                    field: "stateTypes.\(name)", reason: "the view has no @State \(name) to give a type", view: view())
            }
            if initial.isNew {
                throw .invalidDeclaration(
                    field: "stateTypes.\(name)", reason: "\(name) holds an object made with $new, whose type is its own", view: view())
            }
        }
        for (name, _) in arguments where inputs.contains(where: { $0.name == name }) {
            throw .invalidDeclaration(field: "arguments.\(name)", reason: "\(name) is an input already", view: view())
        }
        var body: [BodyElement] = []
        if let bodyJSON {
            if case .array(let lines) = bodyJSON, lines.allSatisfy({ if case .string = $0 { true } else { false } }) {
                // The usual body, lines of text: no expression compiler to build.
                body.reserveCapacity(lines.count)
                for case .string(let text) in lines { body.append(.template(try templates.template(text))) }
            } else {
                var kinds: [(name: String, kind: ExpressionCompiler.ViewVariableKind)] = []
                kinds.reserveCapacity(variables.count)
                for (name, value) in inputs { kinds.append((name, Self.isClosure(value, in: scope) ? .closure : .input)) }
                for (name, _) in state { kinds.append((name, .state)) }
                for (name, _) in bindings { kinds.append((name, .binding)) }
                for (name, _) in stateObjects { kinds.append((name, .object)) }
                for (name, _) in observedObjects { kinds.append((name, .object)) }
                for (name, _) in environmentObjects { kinds.append((name, .object)) }
                for (name, _) in environmentObservables { kinds.append((name, .object)) }
                for (name, _) in environment { kinds.append((name, .environment)) }
                let named = view()
                var parser = BodyParser(variables: kinds, templates: templates, view: { named })
                body = try parser.parse(bodyJSON)
            }
            for template in Self.templates(in: body) {
                for variable in template.variables where !variables.contains(variable) {
                    throw .invalidDeclaration(
                        field: "body", reason: "\"\(template.source)\" reads \(variable), which the view does not declare",
                        view: view())
                }
            }
        }
        if let printsChanges {
            for name in printsChanges where !variables.contains(name) {
                throw .invalidDeclaration(field: "printChanges", reason: "the view has no variable \(name)", view: view())
            }
        }
        for name in equatable ?? [] where !inputs.contains(where: { $0.name == name }) && !bindings.contains(where: { $0.name == name }) {
            throw .invalidDeclaration(field: "equatable", reason: "\(name) is not an input or a binding of the view", view: view())
        }
        self.parent = root || slotName != nil ? "" : parentText
        self.name = slotName ?? name
        self.typeName = name
        self.inBody = slotName != nil
        let dynamicProperties = Array(variables.dropFirst(inputs.count))
        self.dynamicProperties = dynamicProperties
        self.printChanges = printsChanges.map { $0.isEmpty ? dynamicProperties : $0 }
        self.equatable = equatable
        self.id = id
        self.inputs = inputs
        self.arguments = arguments
        self.state = state
        self.stateTypes = stateTypes
        self.bindings = bindings
        self.stateObjects = stateObjects
        self.observedObjects = observedObjects
        self.environmentObjects = environmentObjects
        self.environmentObservables = environmentObservables
        self.environment = environment
        self.provides = provides
        self.modifiers = modifiers
        self.body = body
        self.retain = retain
        self.variableCount = variables.count
    }

    /// Whether an input holds a closure: one written here, or the parent's own closure passed on
    /// (`{"$parent": "onTap"}`), which `scope`, the parent's body language, knows.
    private static func isClosure(_ value: ValueExpression, in scope: ExpressionCompiler?) -> Bool {
        switch value {
        case .closure: return true
        case .parent(let path) where path.members.count == 1:
            guard let scope, case .view(let variables, _) = scope.role else { return false }
            return variables.contains { $0.name == path.members[0] && $0.kind == .closure }
        default: return false
        }
    }

    /// The environment key that variable `index` of a view reads: environment values are the
    /// last variables, in declaration order.
    func environmentKey(ofVariable index: Int) -> String { environment[index - (variableCount - environment.count)].key }

    /// The type `stateTypes` gives the `@State` `name`, if any.
    func stateType(_ name: String) -> PropertyType? { stateTypes.first { $0.name == name }?.type }

    /// The state object `name` is made from.
    func stateObjectType(_ name: String) -> String? { stateObjects.first { $0.name == name }?.value.type }

    /// A `stateTypes` entry: a type of SPEC §5.2's declaration form that holds values, not objects
    /// (an object is held with `$new`).
    private static func stateType(_ json: JSON, field: String, view: @autoclosure () -> String) throws(EngineError) -> PropertyType {
        let type: PropertyType
        do {
            type = try PropertyType(declaration: json)
        } catch {
            throw .invalidDeclaration(field: field, reason: error.data["reason"]?.stringValue ?? error.message, view: view())
        }
        guard !type.holdsReference else {
            throw .invalidDeclaration(
                field: field, reason: "a @State that holds an object is declared with $new; a type here is a value type's", view: view())
        }
        return type
    }

    /// `environment`: an array of value keys (`["colorScheme"]`), or an object of variables, each
    /// `{"key": k}` (`@Environment(\\.k)`) or `{"type": T, "optional"?: bool}` (`@Environment(T.self)`).
    private static func environment(
        _ value: JSON, view: @autoclosure () -> String
    ) throws(EngineError)
        -> ([(name: String, key: String)], [(name: String, value: EnvironmentObservable)])
    {
        switch value {
        case .array(let items):
            guard let names = Optional(items.compactMap(\.stringValue)), names.count == items.count, names.allSatisfy(isIdentifier)
            else {
                throw .invalidDeclaration(
                    field: "environment", reason: "environment is an array of key names or an object of variables", view: view())
            }
            return (names.map { ($0, $0) }, [])
        case .object(let entries):
            var values: [(name: String, key: String)] = []
            var observables: [(name: String, value: EnvironmentObservable)] = []
            for (name, spec) in entries {
                let field = "environment.\(name)"
                guard case .object(let object) = spec else {
                    throw .invalidDeclaration(
                        field: field, reason: "{\"type\": \"T\"} for @Environment(T.self), or {\"key\": \"k\"} for a value",
                        view: view())
                }
                if case .string(let key)? = object["key"], isIdentifier(key) {
                    try rejectUnknownKeys(object, allowed: ["key"], field: field, view: view())
                    values.append((name, key))
                } else if case .string(let type)? = object["type"] {
                    try rejectUnknownKeys(object, allowed: ["type", "optional"], field: field, view: view())
                    var optional = false
                    if let flag = object["optional"] {
                        guard case .bool(let value) = flag else {
                            throw .invalidDeclaration(field: "\(field).optional", reason: "optional is true or false", view: view())
                        }
                        optional = value
                    }
                    observables.append((name, EnvironmentObservable(type: type, optional: optional)))
                } else {
                    throw .invalidDeclaration(
                        field: field, reason: "{\"type\": \"T\"} for @Environment(T.self), or {\"key\": \"k\"} for a value",
                        view: view())
                }
            }
            return (values, observables)
        default:
            throw .invalidDeclaration(
                field: "environment", reason: "environment is an array of key names or an object of variables", view: view())
        }
    }

    /// Every template of a body, branches and rows included.
    static func templates(in body: [BodyElement]) -> [Template] {
        var found: [Template] = []
        func walk(_ elements: [BodyElement]) {
            for element in elements {
                switch element {
                case .template(let template): found.append(template)
                case .branch(_, let then, let otherwise, _):
                    walk(then)
                    walk(otherwise)
                case .rows(let rows): walk(rows.content)
                case .disabled(_, let content, _), .transform(_, _, let content, _): walk(content)
                case .presentation(let presentation): walk(presentation.content)
                case .control(let control): if case .navigate(let destination) = control.use { walk(destination) }
                case .text, .child, .local: break
                }
            }
        }
        walk(body)
        return found
    }

    private static func checkVariables(_ variables: [String], view: @autoclosure () -> String) throws(EngineError) {
        for (index, name) in variables.enumerated() {
            guard isIdentifier(name) else {
                throw .invalidDeclaration(field: name, reason: "\"\(name)\" is not a variable name", view: view())
            }
            guard name != "env" else {
                throw .invalidDeclaration(field: name, reason: "env is reserved: reasons use env.<key>", view: view())
            }
            // A view has a handful of variables: a scan is cheaper than building a set.
            guard !variables[..<index].contains(name) else {
                throw .invalidDeclaration(field: name, reason: "the variable \(name) is declared twice", view: view())
            }
        }
    }

    private static func observedSource(
        _ v: JSON, field f: String, view: String, literals: inout DeclarationLiterals, scope: ExpressionCompiler?
    )
        throws(EngineError) -> ObservedSource
    {
        if case .object(let spec) = v, spec["construct"] != nil {
            return .construct(try initializer(v, typeKey: "construct", field: f, view: view, literals: &literals, scope: scope))
        }
        if case .object(let spec) = v, spec.count == 1, case .string(let id)? = spec["object"] { return .object(id) }
        let expression = try ValueExpression(v, field: f, literals: &literals, scope: scope)
        if case .literal = expression {} else { return .passed(expression) }
        throw .invalidDeclaration(
            field: f, reason: "an observed object is {\"construct\": Type}, {\"$parent\": var} or {\"object\": id}", view: view)
    }

    /// An object of `name: spec` members, each parsed by `parse`, which is handed the spec and
    /// its field (`state.count`) to name in errors; the field is only built when one is thrown.
    private static func members<T>(
        _ value: JSON, _ key: String, view: @autoclosure () -> String,
        _ parse: (JSON, () -> String) throws(EngineError) -> T
    ) throws(EngineError) -> [(name: String, value: T)] {
        guard case .object(let entries) = value else {
            throw .invalidDeclaration(field: key, reason: "\(key) is an object of name: declaration", view: view())
        }
        var result: [(name: String, value: T)] = []
        result.reserveCapacity(entries.count)
        for (name, spec) in entries { result.append((name, try parse(spec, { "\(key).\(name)" }))) }
        return result
    }

    private static func initializer(
        _ spec: JSON, typeKey: String, field: String, view: String, literals: inout DeclarationLiterals, scope: ExpressionCompiler?
    )
        throws(EngineError) -> ObjectInitializer
    {
        guard case .object(let object) = spec, case .string(let type)? = object[typeKey] else {
            throw .invalidDeclaration(field: field, reason: "needs {\"\(typeKey)\": \"TypeName\"}", view: view)
        }
        try rejectUnknownKeys(
            object, allowed: typeKey == "type" ? [typeKey, "init", "eager"] : [typeKey, "init"], field: field, view: view)
        var eager = false
        if let flag = object["eager"] {
            guard case .bool(let value) = flag else {
                throw .invalidDeclaration(field: "\(field).eager", reason: "eager is true or false", view: view)
            }
            eager = value
        }
        var arguments: [(name: String, value: ValueExpression)] = []
        if let initValues = object["init"] {
            guard case .object(let entries) = initValues else {
                throw .invalidDeclaration(field: "\(field).init", reason: "init is an object of property: value", view: view)
            }
            for (name, value) in entries {
                arguments.append((name, try ValueExpression(value, field: "\(field).init.\(name)", literals: &literals, scope: scope)))
            }
        }
        return ObjectInitializer(type: type, arguments: arguments, eager: eager)
    }
}

/// The environment modifiers a declaration applies: `.environmentObject(x)`, `.environment(x)`
/// and `.environment(\\.key, v)`, as a view's `provide` (inside its body) or `modifiers` (where
/// its parent uses it). Objects are key paths; values are literal JSON.
struct EnvironmentModifiers: Sendable {
    var objects: [String] = []
    var observables: [String] = []
    var environment: [(key: String, value: JSON)] = []

    var isEmpty: Bool { objects.isEmpty && observables.isEmpty && environment.isEmpty }

    init() {}

    /// `{"environmentObjects"?: [keyPath], "observables"?: [keyPath], "environment"?: {key: value}}`
    /// at `field` (`provide` or `modifiers`).
    init(_ json: JSON, field: String, view: @autoclosure () -> String) throws(EngineError) {
        guard case .object(let spec) = json else {
            throw .invalidDeclaration(field: field, reason: "\(field) is an object", view: view())
        }
        try rejectUnknownKeys(spec, allowed: Set(DeclarationMembers.provide), field: field, view: view())
        func keyPaths(_ key: String) throws(EngineError) -> [String] {
            guard let listed = spec[key] else { return [] }
            guard case .array(let items) = listed, let paths = Optional(items.compactMap(\.stringValue)), paths.count == items.count
            else {
                throw .invalidDeclaration(field: "\(field).\(key)", reason: "an array of key paths to objects", view: view())
            }
            return paths
        }
        objects = try keyPaths("environmentObjects")
        observables = try keyPaths("observables")
        if let values = spec["environment"] {
            guard case .object(let entries) = values else {
                throw .invalidDeclaration(field: "\(field).environment", reason: "an object of key: value", view: view())
            }
            environment = entries.members
        }
    }
}

/// What is wrong with a view's `name`, saying the real problem: none given, not a string, or a
/// name that is not a Swift identifier (`"My View"`: the space), with the identifier it could be.
func viewNameProblem(_ name: JSON?) -> String {
    guard let name else { return "a view declaration needs a \"name\", its struct's name, such as \"ContentView\"" }
    guard case .string(let text) = name else { return "a view's \"name\" is a string, its struct's name, not \(name.jsonText)" }
    let letters = text.filter { $0.isLetter || $0.isNumber || $0 == "_" }
    let example = letters.first?.isNumber == false && !letters.isEmpty ? "; \"\(letters)\" is one" : ""
    let culprit = text.first { !($0.isLetter || $0.isNumber || $0 == "_") }
    let why =
        text.isEmpty
        ? "it is empty" : culprit.map { $0 == " " ? "it has a space" : "it has \"\($0)\"" } ?? "it starts with a digit"
    return "a view's \"name\" is its struct's name, a Swift identifier (letters, digits and _, not a digit first): "
        + "\(name.jsonText) is not, \(why)\(example)"
}
