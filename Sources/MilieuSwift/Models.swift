import MilieuJSON
import SwiftSyntax

/// A class as a type declaration (SPEC §9.3): an `ObservableObject`'s `@Published` and plain
/// properties, an `@Observable` class's properties (`@ObservationIgnored` ones untracked), its
/// computed properties as getters, its methods as actions, and the `init` its views call.
struct ModelTranslator {
    let program: Program
    let declared: Program.Declared<ClassDeclSyntax>

    private var node: ClassDeclSyntax { declared.node }
    private var unit: SourceUnit { declared.unit }

    func translate() -> JSON? {
        let name = node.name.text
        let observable = Program.hasAttribute(node.attributes, "Observable")
        var properties: [JSONObject.Member] = []
        var computed: [JSONObject.Member] = []
        var actions: [JSONObject.Member] = []
        var names: Set<String> = []
        var methods: [String: FunctionDeclSyntax] = [:]
        var getters: [(String, PatternBindingSyntax, TypeSyntax)] = []
        let defaults = initDefaults
        for member in node.memberBlock.members {
            if let variable = member.decl.as(VariableDeclSyntax.self) {
                if variable.modifiers.contains(where: { $0.name.text == "static" }) {
                    // `static let shared = Store()`: one value for the type, not a property of each object.
                    let names = variable.bindings.map { "\(name).\($0.pattern.trimmedDescription)" }.joined(separator: ", ")
                    program.unsupported(Place(unit, variable), "static \(names)")
                    continue
                }
                for binding in variable.bindings {
                    guard let property = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text else { continue }
                    program.reportObservers(of: binding, "\(name).\(property)", in: unit)
                    if !binding.isStored {
                        names.insert(property)
                        if let type = binding.typeAnnotation?.type {
                            getters.append((property, binding, type))
                        } else {
                            program.report(Place(unit, binding), .warning, "\(name).\(property) has no type; a computed property needs one")
                        }
                        continue
                    }
                    if let declaration = storedProperty(property, binding, variable, observable: observable, defaults: defaults) {
                        properties.append((property, declaration))
                        names.insert(property)
                    }
                }
            } else if let function = member.decl.as(FunctionDeclSyntax.self) {
                methods[function.name.text] = function
            }
        }
        for forwarded in forwardedProperties() {
            guard let index = properties.firstIndex(where: { $0.key == forwarded }), case .object(var spec) = properties[index].value else {
                continue
            }
            spec["forwards"] = true
            properties[index].value = .object(spec)
        }
        let scope = NameScope(role: .model, names: names, methods: methods)
        for (property, binding, type) in getters {
            guard let get = getter(binding, scope: scope) else { continue }
            computed.append((property, ["type": TypeMapper(program: program, unit: unit).type(type), "get": get]))
        }
        for (methodName, function) in methods.sorted(by: { $0.key < $1.key }) {
            // A helper that returns a value is written into what calls it; the rest are actions.
            if function.signature.returnClause != nil, function.modifiers.contains(where: { $0.name.text == "private" }) { continue }
            if let action = action(function, scope: scope) { actions.append((methodName, action)) }
        }
        var declaration: JSONObject = [
            "name": .string(name), "style": observable ? "observable" : "observableObject",
            "properties": .object(JSONObject(uniqueMembers: properties)),
        ]
        if !computed.isEmpty { declaration["computed"] = .object(JSONObject(uniqueMembers: computed)) }
        if !actions.isEmpty { declaration["actions"] = .object(JSONObject(uniqueMembers: actions)) }
        return .object(declaration)
    }

    /// A stored property: its type (from the annotation, else the literal it starts from), default,
    /// and whether its writes are announced.
    /// `defaults` are the class's `initDefaults`.
    private func storedProperty(
        _ name: String, _ binding: PatternBindingSyntax, _ variable: VariableDeclSyntax, observable: Bool,
        defaults: [String: ExprSyntax]
    ) -> JSON? {
        let place = Place(unit, binding)
        let published = Program.hasAttribute(variable.attributes, "Published")
        let ignored = Program.hasAttribute(variable.attributes, "ObservationIgnored")
        // `init(name: String = "Guest") { self.name = name }`: made without the argument, the object
        // starts with the parameter's default, whatever the declaration starts it with.
        let initializer = defaults[name] ?? binding.initializer?.value
        // `var cancellable: AnyCancellable?`: the subscription `init` makes (see `forwardedProperties`), no data.
        if let annotation = binding.typeAnnotation?.type, annotation.trimmedDescription.contains("AnyCancellable") { return nil }
        // `@Published var inner = Inner()`: a new object of a class of the source, made with each object.
        if let initializer, let call = initializer.as(FunctionCallExprSyntax.self),
            let type = call.calledExpression.as(DeclReferenceExprSyntax.self)?.baseName.text, program.models[type] != nil
        {
            guard call.arguments.isEmpty else {
                program.unsupported(place, "\(type)(…) with arguments as the initial value of \(name) (\(type)() is read)")
                return nil
            }
            var declaration: JSONObject = [
                "type": .string("@\(type)"), "default": ["$new": ["type": .string(type)]],
            ]
            if !observable && !published { declaration["published"] = false }
            return .object(declaration)
        }
        if let initializer, let call = initializer.as(FunctionCallExprSyntax.self),
            call.calledExpression.trimmedDescription.hasPrefix("PassthroughSubject")
                || call.calledExpression.trimmedDescription.hasPrefix("CurrentValueSubject")
        {
            program.unsupported(place, "a Combine subject (\(name))")
            return nil
        }
        let mapper = TypeMapper(program: program, unit: unit)
        var declaration: JSONObject = [:]
        var defaultValue: JSON?
        if let initializer {
            let translator = ExpressionTranslator(program: program, unit: unit, scope: NameScope(role: .model, names: []))
            if let constant = translator.constant(initializer) {
                defaultValue = constant
            } else {
                program.unsupported(place, "the initial value of \(name) (only constants are read: literals, structs, enum cases)")
            }
        }
        if let annotation = binding.typeAnnotation?.type {
            declaration["type"] = mapper.type(annotation)
        } else if let initializer, defaultValue != nil {
            if let type = mapper.type(ofConstant: initializer) {
                declaration["type"] = type
            } else {
                program.report(place, .warning, "\(name) needs a type annotation; it is taken as json")
                declaration["type"] = "json"
            }
        } else if initializer != nil {
            program.report(place, .warning, "\(name) has no type annotation and an initial value that is not modelled; it is taken as json")
            declaration["type"] = "json"
        } else {
            program.report(place, .warning, "\(name) has neither a type nor an initial value; it is taken as json")
            declaration["type"] = "json"
        }
        if let defaultValue, defaultValue != .null { declaration["default"] = defaultValue }
        if !observable && !published { declaration["published"] = false }
        if observable && ignored { declaration["observationIgnored"] = true }
        return .object(declaration)
    }

    /// The default of the `init` parameter each property is assigned from (`self.name = name` with
    /// `name: String = "Guest"`), when the class has one `init`.
    private var initDefaults: [String: ExprSyntax] {
        let initializers = node.memberBlock.members.compactMap { $0.decl.as(InitializerDeclSyntax.self) }
        guard initializers.count == 1, let initializer = initializers.first else { return [:] }
        var assigned: [String: ExprSyntax] = [:]
        for (property, parameter) in Self.parameterAssignments(initializer) {
            if let value = parameter.defaultValue?.value { assigned[property] = value }
        }
        return assigned
    }

    /// The statements `self.x = p` (or `x = p`) of `initializer` that assign a property one of
    /// its parameters, each as the property and the parameter.
    static func parameterAssignments(_ initializer: InitializerDeclSyntax) -> [(property: String, parameter: FunctionParameterSyntax)] {
        guard let body = initializer.body else { return [] }
        let parameters = initializer.signature.parameterClause.parameters
        var found: [(property: String, parameter: FunctionParameterSyntax)] = []
        for statement in body.statements {
            guard let infix = statement.item.as(InfixOperatorExprSyntax.self), infix.operator.is(AssignmentExprSyntax.self),
                let target = infix.leftOperand.as(MemberAccessExprSyntax.self)?.declName.baseName.text
                    ?? infix.leftOperand.as(DeclReferenceExprSyntax.self)?.baseName.text,
                let source = infix.rightOperand.as(DeclReferenceExprSyntax.self)?.baseName.text,
                let parameter = parameters.first(where: { ($0.secondName ?? $0.firstName).text == source })
            else { continue }
            found.append((target, parameter))
        }
        return found
    }

    /// The properties whose object's `objectWillChange` an `init` forwards: `inner.objectWillChange
    /// .sink { [weak self] _ in self?.objectWillChange.send() }` (`.store(in:)` or an assignment
    /// around it). Any other statement of an `init` but `self.x = x` is reported: nothing else of
    /// it is modelled.
    private func forwardedProperties() -> [String] {
        var forwarded: [String] = []
        for member in node.memberBlock.members {
            guard let initializer = member.decl.as(InitializerDeclSyntax.self), let body = initializer.body else { continue }
            let parameters = Set(initializer.signature.parameterClause.parameters.map { ($0.secondName ?? $0.firstName).text })
            for statement in body.statements {
                let finder = ForwardingFinder(viewMode: .sourceAccurate)
                finder.walk(statement)
                if let property = finder.forwarded, finder.sendsOwnChange {
                    forwarded.append(property)
                    continue
                }
                if let infix = statement.item.as(InfixOperatorExprSyntax.self), infix.operator.is(AssignmentExprSyntax.self),
                    let source = infix.rightOperand.as(DeclReferenceExprSyntax.self)?.baseName.text, parameters.contains(source)
                {
                    continue  // `self.num = num`: the label views pass (`ViewInstantiator.initializerLabels`)
                }
                program.unsupported(Place(unit, statement), "this statement of \(node.name.text).init")
            }
        }
        return forwarded
    }

    /// A computed property's getter: one expression, or `return` after `let`s, written out.
    private func getter(_ binding: PatternBindingSyntax, scope: NameScope) -> JSON? {
        let translator = ExpressionTranslator(program: program, unit: unit, scope: scope)
        let statements: CodeBlockItemListSyntax
        switch binding.accessorBlock?.accessors {
        case .getter(let body)?: statements = body
        case .accessors(let accessors)?:
            guard let get = accessors.first(where: { $0.accessorSpecifier.text == "get" })?.body else { return nil }
            statements = get.statements
        case nil: return nil
        @unknown default: return nil
        }
        guard statements.count == 1, let only = statements.first else {
            program.unsupported(Place(unit, binding), "a getter of more than one statement")
            return nil
        }
        if let returned = only.item.as(ReturnStmtSyntax.self), let value = returned.expression { return translator.expression(value) }
        if let value = only.item.as(ExprSyntax.self) { return translator.expression(value) }
        program.unsupported(Place(unit, binding), "this getter")
        return nil
    }

    /// A method as an action: its parameters and its statements as steps.
    private func action(_ function: FunctionDeclSyntax, scope: NameScope) -> JSON? {
        var scope = scope
        scope.readsClock = true
        var parameters: [JSON] = []
        let mapper = TypeMapper(program: program, unit: unit)
        for parameter in function.signature.parameterClause.parameters {
            let name = (parameter.secondName ?? parameter.firstName).text
            scope.substitutions[name] = ["arg": .string(name)]
            parameters.append(["name": .string(name), "type": mapper.type(parameter.type)])
        }
        guard let body = function.body else { return nil }
        var translator = ExpressionTranslator(program: program, unit: unit, scope: scope)
        let steps = translator.steps(body.statements)
        var action: JSONObject = ["steps": .array(steps)]
        if !parameters.isEmpty { action["parameters"] = .array(parameters) }
        return .object(action)
    }
}

/// Swift types as Milieu's (SPEC §5.2): `String` is `string`, `[Int]` is `{"array": "int"}`, a
/// struct of the source is a record of its fields, an enum of the source `string` when no case
/// has associated values and `json` when one does, anything else `json`, a class of the source a
/// reference.
struct TypeMapper {
    let program: Program
    let unit: SourceUnit

    /// The type `syntax` names; a name the source does not declare is `json`, with a note.
    func type(_ syntax: TypeSyntax, depth: Int = 0) -> JSON {
        mapped(syntax, depth: depth) { unknown in
            program.report(
                Place(unit, unknown), .note, "\(unknown.trimmedDescription) is not declared in the source; its values are taken as json")
            return "json"
        } ?? "json"
    }

    /// The type `syntax` names, or nil (and nothing reported) when it names a type the source
    /// does not declare: for a `@State`, whose first value then says what it holds.
    func knownType(_ syntax: TypeSyntax) -> JSON? { mapped(syntax, depth: 0) { _ in nil } }

    /// The type of a struct or enum the source declares, by name.
    func type(named name: String) -> JSON? { named(name, depth: 0) }

    /// The type of a constant written without an annotation, as Swift infers it: a literal's,
    /// a struct's (`Point(x: 1, y: 2)`), an enum's named with its case (`ActivityType.cleared`),
    /// an array's whose elements are all of one such type (`[2, 3, 5]` is `[int]`); nil when
    /// the value alone does not say.
    func type(ofConstant expr: ExprSyntax) -> JSON? {
        let translator = ExpressionTranslator(program: program, unit: unit, scope: NameScope(role: .view, names: []))
        switch translator.literal(expr) {
        case .string?: return "string"
        case .int?: return "int"
        case .double?: return "double"
        case .bool?: return "bool"
        case .null?, .array?, .object?: return nil
        case nil: break
        }
        if let array = expr.as(ArrayExprSyntax.self), let first = array.elements.first {
            guard let element = type(ofConstant: first.expression),
                array.elements.allSatisfy({ type(ofConstant: $0.expression) == element })
            else { return nil }
            return ["array": element]
        }
        let called = expr.as(FunctionCallExprSyntax.self)?.calledExpression ?? expr
        if let type = called.as(DeclReferenceExprSyntax.self)?.baseName.text, program.structs[type] != nil {
            return self.type(named: type)
        }
        if let base = called.as(MemberAccessExprSyntax.self)?.base?.as(DeclReferenceExprSyntax.self)?.baseName.text,
            program.enums[base] != nil
        {
            return self.type(named: base)
        }
        return nil
    }

    private func mapped(_ syntax: TypeSyntax, depth: Int, unknown: (TypeSyntax) -> JSON?) -> JSON? {
        if let optional = syntax.as(OptionalTypeSyntax.self) {
            return mapped(optional.wrappedType, depth: depth, unknown: unknown).map { ["optional": $0] }
        }
        if let array = syntax.as(ArrayTypeSyntax.self) {
            return mapped(array.element, depth: depth, unknown: unknown).map { ["array": $0] }
        }
        let name = syntax.trimmedDescription.split(separator: ".").last.map(String.init) ?? ""
        switch name {
        case "String", "Character", "Date", "URL", "UUID": return "string"
        case "Int", "Int64", "Int32", "UInt": return "int"
        case "Double", "Float", "CGFloat": return "double"
        case "Bool": return "bool"
        default: break
        }
        if program.models[name] != nil { return .string("@\(name)?") }
        return named(name, depth: depth) ?? unknown(syntax)
    }

    /// A struct of the source as a record of its stored properties, an enum of the source.
    private func named(_ name: String, depth: Int) -> JSON? {
        if let value = program.structs[name] {
            guard depth < 8 else { return "json" }
            let translator = ExpressionTranslator(program: program, unit: unit, scope: NameScope(role: .view, names: []))
            var fields: [JSONObject.Member] = []
            for member in value.node.memberBlock.members {
                guard let variable = member.decl.as(VariableDeclSyntax.self),
                    !variable.modifiers.contains(where: { $0.name.text == "static" })
                else { continue }
                for binding in variable.bindings where binding.isStored {
                    guard let field = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text else { return "json" }
                    // A field without an annotation has its initial value's type. One whose value is
                    // not a constant (`let id = UUID()`) cannot be filled in where the struct is
                    // made, so the record is not known: json.
                    if let initial = binding.initializer?.value, translator.constant(initial) == nil { return "json" }
                    guard
                        let type = binding.typeAnnotation.map({ type($0.type, depth: depth + 1) })
                            ?? binding.initializer.flatMap({ type(ofConstant: $0.value) })
                    else { return "json" }
                    fields.append((field, type))
                }
            }
            return fields.isEmpty ? "json" : ["record": .object(JSONObject(uniqueMembers: fields))]
        }
        if let declared = program.enums[name] {
            let payload = declared.node.memberBlock.members.contains { member in
                member.decl.as(EnumCaseDeclSyntax.self)?.elements.contains { $0.parameterClause != nil } ?? false
            }
            return payload ? "json" : "string"
        }
        return nil
    }
}

/// Finds `x.objectWillChange.sink { … self.objectWillChange.send() … }` in a statement: the
/// property `x` whose announcements it forwards, and whether the closure sends the object's own.
private final class ForwardingFinder: SyntaxVisitor {
    private(set) var forwarded: String?
    private(set) var sendsOwnChange = false

    override func visit(_ node: MemberAccessExprSyntax) -> SyntaxVisitorContinueKind {
        guard node.declName.baseName.text == "objectWillChange", let base = node.base else { return .visitChildren }
        let property =
            base.as(DeclReferenceExprSyntax.self)?.baseName.text
            ?? base.as(MemberAccessExprSyntax.self).flatMap { $0.base?.trimmedDescription == "self" ? $0.declName.baseName.text : nil }
        if let property, property != "self" {
            forwarded = forwarded ?? property
        } else if node.parent?.as(MemberAccessExprSyntax.self)?.declName.baseName.text == "send" {
            sendsOwnChange = true  // `self?.objectWillChange.send()`, `self.objectWillChange.send()`
        }
        return .visitChildren
    }
}

extension PatternBindingSyntax {
    /// The observers (`didSet`, `willSet`) of a stored property; nil when it has none, or has a
    /// getter (a computed property).
    var observers: [String]? {
        guard case .accessors(let accessors)? = accessorBlock?.accessors else { return nil }
        let names = accessors.map(\.accessorSpecifier.text)
        return names.allSatisfy { $0 == "didSet" || $0 == "willSet" } ? names : nil
    }

    /// Whether it is a stored property: no accessors, or observers only, which are not run.
    var isStored: Bool { accessorBlock == nil || observers != nil }
}
