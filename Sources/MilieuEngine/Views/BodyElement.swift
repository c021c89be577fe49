import MilieuJSON
import MilieuProtocol

/// One element of a view's body (SPEC §6.3): what SwiftUI's view builder holds, without layout.
/// Parsed once per declaration (`BodyParser`) and shared by every view mounted from it.
indirect enum BodyElement: Sendable {
    /// `"Signed in as {session.user}"`: a line with key paths in braces.
    case template(Template)
    /// `{"text": expression}`: `Text(expression)`, a line.
    case text(TypeExpression)
    /// `{"view": declaration}`: a child view written in the body, mounted and unmounted by the
    /// body's evaluations; its identity is its place in the body (and its id).
    case child(BodyChild)
    /// `{"if": condition, "then": [...], "else": [...]}`: each branch's views are their own
    /// identities; the branch not taken is not evaluated and reads nothing.
    case branch(TypeExpression, then: [BodyElement], else: [BodyElement], pointer: String)
    /// `{"forEach": array, "id": "self" | member, "as": name, "content": [...]}`.
    case rows(Rows)
    /// `{"let": name, "be": expression}`: a local for the elements after it.
    case local(TypeExpression)
    /// `Button`, `TextField`, `SecureField`, `Toggle`, `Stepper`, `Picker`, `NavigationLink`.
    case control(ControlDeclaration)
    /// `{"disabled": condition, "content": [...]}`: `.disabled(condition)` on that content; a
    /// control is enabled only when no enclosing `disabled` is true (SwiftUI ands `isEnabled`).
    case disabled(TypeExpression, [BodyElement], pointer: String)
    /// `{"transformEnvironment": key, "as": name, "to": expression, "content": [...]}`:
    /// `.transformEnvironment(\.key) { name in name = expression }` on that content: its views see
    /// the value they would inherit, transformed (`as` names it in `to`).
    case transform(key: String, to: TypeExpression, [BodyElement], pointer: String)
    /// `{"sheet": binding, "content": [...]}`, `fullScreenCover` and `alert`: content shown while
    /// the bound value is true; its views mount `presented` and unmount `dismissed`.
    case presentation(Presentation)
}

/// A child view written in a body.
struct BodyChild: Sendable {
    let declaration: ViewDeclaration
    /// Its literal values (`ValueExpression.literal`), kept with it.
    let literals: ViewLiterals
}

/// `ForEach`: its content once per element, each view in it identified by the element's id.
struct Rows: Sendable {
    let elements: TypeExpression
    /// nil: the element itself is its id (`id: \.self`); else the member holding it.
    let idMember: String?
    /// The element's name in the content (`as`): a read of its id through an object is the reason `todo.id`.
    let element: String
    let content: [BodyElement]
    let pointer: String
}

struct Presentation: Sendable {
    enum Style: String, Sendable { case sheet, fullScreenCover, alert }
    let style: Style
    let isPresented: BindingExpression
    let content: [BodyElement]
}

/// What a control writes through: `"vm.email"` (`$vm.email`, a key path from the view) or
/// `{"constant": expression}` (`.constant(v)`, which cannot be written).
enum BindingExpression: Sendable {
    case path(String, ReadPath)
    case constant(TypeExpression)
}

/// A control in a body: its kind, its label and what using it does.
struct ControlDeclaration: Sendable {
    enum Kind: String, Sendable, CaseIterable {
        case button, textField, secureField, toggle, stepper, picker, navigationLink
        /// The member of the control's JSON that holds what it binds (nil: it runs steps).
        var bindingMember: String? {
            switch self {
            case .textField, .secureField: "text"
            case .toggle: "isOn"
            case .stepper: "value"
            case .picker: "selection"
            case .button, .navigationLink: nil
            }
        }
        /// The SwiftUI name a body line shows.
        var swiftName: String {
            switch self {
            case .button: "Button"
            case .textField: "TextField"
            case .secureField: "SecureField"
            case .toggle: "Toggle"
            case .stepper: "Stepper"
            case .picker: "Picker"
            case .navigationLink: "NavigationLink"
            }
        }
    }

    enum Use: Sendable {
        /// A button's action.
        case run([ActionStep])
        case bind(BindingExpression)
        /// A navigation link's destination, shown once the link is tapped.
        case navigate([BodyElement])
    }

    let kind: Kind
    let label: TypeExpression
    let use: Use
    /// A stepper's bounds (`in: 0...10`), a picker's choices.
    let range: (min: Int, max: Int)?
    let step: Int
    let options: TypeExpression?
    /// Where it is in the declaration: a navigation link's presented flag is kept by it.
    let pointer: String
}

/// Parses a body: one expression compiler for all of it, so that a `let` is seen by the elements
/// after it and a `forEach` element by its content; child views are named by their place.
struct BodyParser {
    private var compiler: ExpressionCompiler
    private let variables: [(name: String, kind: ExpressionCompiler.ViewVariableKind)]
    private let limits: ExpressionLimits
    private let templates: TemplateCache
    /// How many child views of each name the body writes so far: the second `Row` is `Row_2`.
    private var written: [String: Int] = [:]
    private let view: () -> String

    /// The limits of one body: more nodes than a getter, since it is a whole view.
    static let limits = ExpressionLimits(maxDepth: 32, maxNodes: 8192)

    init(
        variables: [(name: String, kind: ExpressionCompiler.ViewVariableKind)], templates: TemplateCache,
        view: @escaping () -> String
    ) {
        self.variables = variables
        self.limits = Self.limits
        self.compiler = ExpressionCompiler(role: .view(variables: variables, writes: false), limits: Self.limits)
        self.templates = templates
        self.view = view
    }

    mutating func parse(_ json: JSON) throws(EngineError) -> [BodyElement] {
        guard case .array(let items) = json else {
            throw .invalidDeclaration(field: "body", reason: "body is an array of body elements", view: view())
        }
        return try elements(items, at: RequestPointer("/body"))
    }

    private mutating func elements(_ items: [JSON], at pointer: RequestPointer) throws(EngineError) -> [BodyElement] {
        let locals = compiler.localDepth
        defer { compiler.unbind(to: locals) }
        var parsed: [BodyElement] = []
        parsed.reserveCapacity(items.count)
        for (index, item) in items.enumerated() { parsed.append(try element(item, at: pointer.element(index))) }
        return parsed
    }

    private static let forms = [
        "text", "view", "if", "forEach", "let", "disabled", "transformEnvironment", "sheet", "fullScreenCover", "alert",
    ]

    private mutating func element(_ json: JSON, at pointer: RequestPointer) throws(EngineError) -> BodyElement {
        if case .string(let text) = json { return .template(try templates.template(text)) }
        // Controls first: a text field's `text` member is not a `text` element.
        guard case .object(let object) = json,
            let form = ControlDeclaration.Kind.allCases.first(where: { object[$0.rawValue] != nil })?.rawValue
                ?? Self.forms.first(where: { object[$0] != nil })
        else {
            let known = Self.forms + ControlDeclaration.Kind.allCases.map(\.rawValue)
            throw invalid(pointer, "a body element is a template string or an object with one of " + known.joined(separator: ", "))
        }
        switch form {
        case "text":
            try only(object, ["text"], at: pointer)
            return .text(try expression(object["text"], at: pointer.member("text")))
        case "view":
            try only(object, ["view"], at: pointer)
            return .child(try child(object["view"] ?? .null, at: pointer.member("view")))
        case "if":
            try only(object, ["if", "then", "else"], at: pointer)
            let condition = try expression(object["if"], at: pointer.member("if"))
            let then = try elements(try array(object["then"], at: pointer.member("then")), at: pointer.member("then"))
            let otherwise = try object["else"].map { json throws(EngineError) in
                try elements(try array(json, at: pointer.member("else")), at: pointer.member("else"))
            }
            return .branch(condition, then: then, else: otherwise ?? [], pointer: pointer.description)
        case "forEach":
            try only(object, ["forEach", "id", "as", "content"], at: pointer)
            let elements = try expression(object["forEach"], at: pointer.member("forEach"))
            var idMember: String?
            switch object["id"] {
            case nil, .string("self")?: idMember = nil
            case .string(let member)? where isIdentifier(member): idMember = member
            default: throw invalid(pointer.member("id"), "id is \"self\" (id: \\.self) or the member that identifies an element")
            }
            let locals = compiler.localDepth
            var element = "$element"
            if let name = object["as"] {
                guard case .string(let name) = name, isIdentifier(name) else { throw invalid(pointer.member("as"), "as names the element") }
                element = name
            }
            compiler.bind(element)
            let content = try self.elements(try array(object["content"], at: pointer.member("content")), at: pointer.member("content"))
            compiler.unbind(to: locals)
            return .rows(Rows(elements: elements, idMember: idMember, element: element, content: content, pointer: pointer.description))
        case "let":
            try only(object, ["let", "be"], at: pointer)
            guard case .string(let name)? = object["let"], isIdentifier(name) else {
                throw invalid(pointer.member("let"), "a local's name is an identifier")
            }
            let value = try expression(object["be"], at: pointer.member("be"))
            compiler.bind(name)
            return .local(value)
        case "disabled":
            try only(object, ["disabled", "content"], at: pointer)
            let condition = try expression(object["disabled"], at: pointer.member("disabled"))
            let content = try elements(try array(object["content"], at: pointer.member("content")), at: pointer.member("content"))
            return .disabled(condition, content, pointer: pointer.description)
        case "transformEnvironment":
            try only(object, ["transformEnvironment", "as", "to", "content"], at: pointer)
            guard case .string(let key)? = object["transformEnvironment"], isIdentifier(key) else {
                throw invalid(pointer.member("transformEnvironment"), "the environment key to transform, as \"fontScale\"")
            }
            guard case .string(let name)? = object["as"], isIdentifier(name) else {
                throw invalid(pointer.member("as"), "as names the value inherited, which to reads")
            }
            // `to` sees the inherited value as a local after the body's own, as the walk passes it.
            let locals = compiler.localDepth
            compiler.bind(name)
            let value = try expression(object["to"], at: pointer.member("to"))
            compiler.unbind(to: locals)
            let content = try elements(try array(object["content"], at: pointer.member("content")), at: pointer.member("content"))
            return .transform(key: key, to: value, content, pointer: pointer.description)
        case "sheet", "fullScreenCover", "alert":
            try only(object, [form, "content"], at: pointer)
            let binding = try self.binding(object[form], at: pointer.member(form))
            let content = try elements(try array(object["content"], at: pointer.member("content")), at: pointer.member("content"))
            return .presentation(
                Presentation(style: Presentation.Style(rawValue: form) ?? .sheet, isPresented: binding, content: content))
        default:
            return .control(try control(ControlDeclaration.Kind(rawValue: form) ?? .button, object, at: pointer))
        }
    }

    private mutating func control(
        _ kind: ControlDeclaration.Kind, _ object: JSONObject, at pointer: RequestPointer
    ) throws(EngineError) -> ControlDeclaration {
        let label = try expression(object[kind.rawValue], at: pointer.member(kind.rawValue))
        var range: (min: Int, max: Int)?
        var step = 1
        var options: TypeExpression?
        let use: ControlDeclaration.Use
        switch kind {
        case .button:
            try only(object, ["button", "action"], at: pointer)
            use = .run(try actionSteps(object["action"] ?? [], at: pointer.member("action")))
        case .navigationLink:
            try only(object, ["navigationLink", "destination"], at: pointer)
            use = .navigate(
                try elements(try array(object["destination"], at: pointer.member("destination")), at: pointer.member("destination")))
        default:
            let member = kind.bindingMember ?? "text"
            switch kind {
            case .stepper:
                try only(object, ["stepper", "value", "in", "step"], at: pointer)
                if let bounds = object["in"] {
                    guard case .array(let pair) = bounds, pair.count == 2, let low = pair[0].intValue, let high = pair[1].intValue,
                        low <= high
                    else { throw invalid(pointer.member("in"), "in is [min, max], integers with min <= max") }
                    range = (low, high)
                }
                if let by = object["step"] {
                    guard let value = by.intValue, value > 0 else { throw invalid(pointer.member("step"), "step is a positive integer") }
                    step = value
                }
            case .picker:
                try only(object, ["picker", "selection", "options"], at: pointer)
                options = try object["options"].map { json throws(EngineError) in try expression(json, at: pointer.member("options")) }
            default:
                try only(object, [kind.rawValue, member], at: pointer)
            }
            use = .bind(try binding(object[member], at: pointer.member(member)))
        }
        return ControlDeclaration(
            kind: kind, label: label, use: use, range: range, step: step, options: options, pointer: pointer.description)
    }

    /// A button's steps: compiled as an action of the view, seeing the body's locals where it is written.
    private func actionSteps(_ json: JSON, at pointer: RequestPointer) throws(EngineError) -> [ActionStep] {
        var actions = ExpressionCompiler(role: .view(variables: variables, writes: true), limits: limits)
        for name in compiler.localNames { actions.bind(name) }
        do {
            return try actions.compileSteps(json, at: pointer, depth: 1)
        } catch {
            throw declarationError(error)
        }
    }

    private func binding(_ json: JSON?, at pointer: RequestPointer) throws(EngineError) -> BindingExpression {
        switch json {
        case .string(let path)?:
            let members = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard isIdentifier(members[0]), !members.contains(where: \.isEmpty) else {
                throw invalid(pointer, "a binding is a key path from the view, as \"vm.email\" for $vm.email")
            }
            guard let kind = variables.first(where: { $0.name == members[0] })?.kind else {
                throw invalid(pointer, "the view has no variable \(members[0]) to bind")
            }
            switch kind {
            case .state, .binding: break
            // `@Bindable var vm` is an input holding an object: `$vm.email` binds its property. An
            // input holding a value is refused when written (`ReadOnly`), as in `graph/set`.
            case .object where members.count > 1, .input where members.count > 1: break
            default: throw invalid(pointer, "$\(path) is not a binding: bind a @State, a @Binding or an object's property")
            }
            return .path(path, try ReadPath(members))
        case .object(let object)? where object.count == 1 && object["constant"] != nil:
            var constant = compiler
            do {
                return .constant(try constant.compile(object["constant"] ?? .null, at: pointer.member("constant"), depth: 1).0)
            } catch {
                throw declarationError(error)
            }
        default:
            throw invalid(pointer, "a binding is a key path string, as \"isOn\" for $isOn, or {\"constant\": value}")
        }
    }

    private mutating func child(_ json: JSON, at pointer: RequestPointer) throws(EngineError) -> BodyChild {
        guard case .object(let object) = json else { throw invalid(pointer, "a view in a body is an object with its \"name\"") }
        guard case .string(let name)? = object["name"], isIdentifier(name) else { throw invalid(pointer, viewNameProblem(object["name"])) }
        let count = (written[name] ?? 0) + 1
        written[name] = count
        var literals = DeclarationLiterals()
        let declaration = try ViewDeclaration(
            json: json, templates: templates, literals: &literals,
            placement: .body(slotName: count == 1 ? name : "\(name)_\(count)", scope: compiler))
        return BodyChild(declaration: declaration, literals: ViewLiterals(literals.values))
    }

    private mutating func expression(_ json: JSON?, at pointer: RequestPointer) throws(EngineError) -> TypeExpression {
        guard let json else { throw invalid(pointer, "an expression is required here") }
        do {
            return try compiler.compile(json, at: pointer, depth: 1).0
        } catch {
            throw declarationError(error)
        }
    }

    private func array(_ json: JSON?, at pointer: RequestPointer) throws(EngineError) -> [JSON] {
        guard case .array(let items)? = json else { throw invalid(pointer, "an array of body elements") }
        return items
    }

    private func only(_ object: JSONObject, _ allowed: [String], at pointer: RequestPointer) throws(EngineError) {
        for key in object.keys where !allowed.contains(key) {
            throw invalid(pointer.member(key), "unknown member \"\(key)\"; this element has " + allowed.joined(separator: ", "))
        }
    }

    private func invalid(_ pointer: RequestPointer, _ reason: String) -> EngineError {
        .invalidDeclaration(field: Self.field(pointer.description), reason: reason, view: view())
    }

    /// A compile error of the expression language (`InvalidParams` at a pointer) as a declaration's.
    private func declarationError(_ error: EngineError) -> EngineError {
        guard error.kind == .invalidParams, let pointer = error.data["field"]?.stringValue else { return error }
        return .invalidDeclaration(field: Self.field(pointer), reason: error.data["reason"]?.stringValue ?? error.message, view: view())
    }

    /// `/body/2/if` as the dotted field of `InvalidDeclaration`: `body.2.if`.
    private static func field(_ pointer: String) -> String {
        String(pointer.dropFirst()).replacing("/", with: ".")
    }
}
