import MilieuJSON
import SwiftSyntax

/// Everything the files declare, by name, and the diagnostics so far. Later files replace what
/// earlier ones declare under the same name (an edited view loaded again), with a note.
final class Program {
    var units: [SourceUnit] = []
    var diagnostics: [SourceDiagnostic] = []
    /// `ObservableObject` and `@Observable` classes, in the order they are declared.
    private(set) var models: [String: Declared<ClassDeclSyntax>] = [:]
    private(set) var modelOrder: [String] = []
    /// Structs that conform to `View`.
    private(set) var views: [String: Declared<StructDeclSyntax>] = [:]
    /// Value types: other structs (records) and enums, by their simple name.
    private(set) var structs: [String: Declared<StructDeclSyntax>] = [:]
    private(set) var enums: [String: Declared<EnumDeclSyntax>] = [:]
    /// Functions declared in `extension View`: custom modifiers.
    private(set) var viewModifiers: [String: Declared<FunctionDeclSyntax>] = [:]
    /// Functions at the top level.
    private(set) var functions: [String: Declared<FunctionDeclSyntax>] = [:]
    /// `@main struct …: App`.
    private(set) var apps: [Declared<StructDeclSyntax>] = []
    /// `#Preview { … }`, with its name when it has one.
    private(set) var previews: [(name: String?, body: Declared<ClosureExprSyntax>)] = []
    /// How many views have been written into bodies so far (`SwiftTranslator.maxViewInstances`).
    var viewInstances = 0

    /// A declaration and where it is.
    struct Declared<Node: SyntaxProtocol> {
        let node: Node
        let unit: SourceUnit
        var place: Place { Place(unit, node) }
    }

    func report(_ place: Place, _ severity: SourceDiagnostic.Severity, _ message: String) {
        // A note said once is enough: `roundedField()` on every field is one fact. A view written
        // in two places is translated twice: what it says is said once.
        if severity == .note, diagnostics.contains(where: { $0.severity == .note && $0.message == message }) { return }
        let diagnostic = place.diagnostic(severity, message)
        if diagnostics.contains(diagnostic) { return }
        diagnostics.append(diagnostic)
    }

    /// A construct Milieu does not model: a warning that names it, never a silent guess.
    func unsupported(_ place: Place, _ what: String) {
        report(place, .warning, "\(what) is not modelled and is left out (\(place.text))")
    }

    /// Each observer (`didSet`, `willSet`) of the stored property `member` (`Type.name`), which
    /// `binding` declares, as not modelled: the property is kept, what the observer does is not run.
    func reportObservers(of binding: PatternBindingSyntax, _ member: String, in unit: SourceUnit) {
        for observer in binding.observers ?? [] { unsupported(Place(unit, binding), "the \(observer) of \(member)") }
    }

    // MARK: - Collecting

    func collect() {
        for unit in units {
            let elisions = ElisionFinder(viewMode: .sourceAccurate)
            elisions.walk(unit.tree)
            for node in elisions.found {
                report(
                    Place(unit, node), .error,
                    "code is left out here (\(Place(unit, node).text)): the program is not whole; write what the article elides")
            }
            for item in unit.tree.statements { collect(item.item, unit) }
        }
    }

    private func collect(_ item: CodeBlockItemSyntax.Item, _ unit: SourceUnit) {
        switch item {
        case .decl(let decl):
            if let node = decl.as(ClassDeclSyntax.self) {
                collectClass(node, unit)
            } else if let node = decl.as(StructDeclSyntax.self) {
                collectStruct(node, unit)
            } else if let node = decl.as(EnumDeclSyntax.self) {
                add(node.name.text, Declared(node: node, unit: unit), to: &enums)
            } else if let node = decl.as(ExtensionDeclSyntax.self) {
                collectExtension(node, unit)
            } else if let node = decl.as(FunctionDeclSyntax.self) {
                add(node.name.text, Declared(node: node, unit: unit), to: &functions)
            } else if let node = decl.as(MacroExpansionDeclSyntax.self) {
                collectMacro(node.macroName.text, node.arguments, node.trailingClosure, Place(unit, node), unit)
            } else if decl.is(ImportDeclSyntax.self) {
                return
            } else {
                unsupported(Place(unit, decl), "a top-level declaration of this kind")
            }
        case .expr(let expr):
            if let node = expr.as(MacroExpansionExprSyntax.self) {
                collectMacro(node.macroName.text, node.arguments, node.trailingClosure, Place(unit, node), unit)
            } else {
                unsupported(Place(unit, expr), "a top-level expression")
            }
        case .stmt(let stmt):
            unsupported(Place(unit, stmt), "a top-level statement")
        @unknown default:
            unsupported(Place(unit, item), "this top-level item")
        }
    }

    private func collectMacro(
        _ name: String, _ arguments: LabeledExprListSyntax, _ closure: ClosureExprSyntax?, _ place: Place, _ unit: SourceUnit
    ) {
        guard name == "Preview", let closure else {
            unsupported(place, "the macro #\(name)")
            return
        }
        let title = arguments.first.flatMap { $0.expression.as(StringLiteralExprSyntax.self) }.flatMap(Self.literalText)
        previews.append((title, Declared(node: closure, unit: unit)))
    }

    private func collectClass(_ node: ClassDeclSyntax, _ unit: SourceUnit) {
        let name = node.name.text
        let isObservable = Self.hasAttribute(node.attributes, "Observable")
        let isObject = Self.inherits(node.inheritanceClause, "ObservableObject")
        guard isObservable || isObject else {
            report(
                Place(unit, node), .warning,
                "class \(name) is neither an ObservableObject nor @Observable: no view can observe it, and it is left out")
            return
        }
        if !models.keys.contains(name) { modelOrder.append(name) }
        add(name, Declared(node: node, unit: unit), to: &models)
        collectNested(node.memberBlock, unit)
    }

    /// Structs and enums declared inside a type, at any depth: `AppState.Activity.ActivityType`.
    private func collectNested(_ block: MemberBlockSyntax, _ unit: SourceUnit) {
        for member in block.members {
            if let nested = member.decl.as(StructDeclSyntax.self) {
                add(nested.name.text, Declared(node: nested, unit: unit), to: &structs)
                collectNested(nested.memberBlock, unit)
            }
            if let nested = member.decl.as(EnumDeclSyntax.self) { add(nested.name.text, Declared(node: nested, unit: unit), to: &enums) }
        }
    }

    private func collectStruct(_ node: StructDeclSyntax, _ unit: SourceUnit) {
        let name = node.name.text
        if Self.inherits(node.inheritanceClause, "App") {
            apps.append(Declared(node: node, unit: unit))
        } else if Self.inherits(node.inheritanceClause, "View") {
            add(name, Declared(node: node, unit: unit), to: &views)
        } else {
            add(name, Declared(node: node, unit: unit), to: &structs)
            collectNested(node.memberBlock, unit)
        }
    }

    private func collectExtension(_ node: ExtensionDeclSyntax, _ unit: SourceUnit) {
        guard node.extendedType.trimmedDescription == "View" else {
            unsupported(Place(unit, node), "an extension of \(node.extendedType.trimmedDescription)")
            return
        }
        for member in node.memberBlock.members {
            if let function = member.decl.as(FunctionDeclSyntax.self) {
                add(function.name.text, Declared(node: function, unit: unit), to: &viewModifiers)
            }
        }
    }

    private func add<Node>(_ name: String, _ declared: Declared<Node>, to table: inout [String: Declared<Node>]) {
        if let earlier = table[name] {
            report(declared.place, .note, "\(name) replaces the one declared in \(earlier.unit.name)")
        }
        table[name] = declared
    }

    // MARK: - Translating

    func translate() -> Translation {
        var types: [JSON] = []
        var typeNames: [String] = []
        for name in modelOrder {
            guard let declared = models[name] else { continue }
            if let type = ModelTranslator(program: self, declared: declared).translate() {
                types.append(type)
                typeNames.append(name)
            }
        }
        var views: [JSON] = []
        var roots: [String] = []
        for root in rootViews() {
            views.append(root)
            if case .string(let name)? = root["name"] { roots.append("/App/" + name) }
        }
        var scene: JSONObject = ["types": .array(types), "views": .array(views)]
        let files = units.map(\.name).joined(separator: ", ")
        scene["description"] = .string("Translated from \(files) by milieu translate.")
        return Translation(scene: .object(scene), diagnostics: diagnostics, typeNames: typeNames, roots: roots)
    }

    /// The views mounted under `/App`: each `#Preview`'s content and each `@main` app; without
    /// either, each view no other view uses.
    private func rootViews() -> [JSON] {
        var roots: [JSON] = []
        var names: Set<String> = []
        func add(_ declaration: JSON?) {
            guard var object = declaration?.objectValue, case .string(var name)? = object["name"] else { return }
            var suffix = 2
            let base = name
            while names.contains(name) {
                name = "\(base)_\(suffix)"
                suffix += 1
            }
            names.insert(name)
            object["name"] = .string(name)
            object["parent"] = "/App"
            object["retain"] = true
            roots.append(.object(object))
        }
        for preview in previews { add(RootTranslator(program: self).preview(preview.body)) }
        for app in apps { add(RootTranslator(program: self).app(app)) }
        if roots.isEmpty {
            // Without a preview, the views no other view uses are the program's top: each is mounted.
            let names = views.keys.sorted()
            let top = names.filter { name in
                !names.contains { other in other != name && (views[other]?.node.memberBlock.description.contains(name + "(") ?? false) }
            }
            for name in top {
                guard let declared = views[name] else { continue }
                report(
                    declared.place, .note,
                    "no #Preview or @main App: \(name), which no other view uses, is mounted at /App/\(name) (add #Preview { \(name)() } to choose)"
                )
                add(RootTranslator(program: self).plain(name, declared))
            }
            if top.isEmpty, let unit = units.first {
                report(
                    Place(unit, unit.tree), .note,
                    "no #Preview, @main App or View: the types are declared and no view is mounted; add #Preview { SomeView() }")
            }
        }
        return roots
    }

    // MARK: - Syntax helpers

    static func hasAttribute(_ attributes: AttributeListSyntax, _ name: String) -> Bool {
        attribute(attributes, name) != nil
    }

    static func attribute(_ attributes: AttributeListSyntax, _ name: String) -> AttributeSyntax? {
        for element in attributes {
            if case .attribute(let attribute) = element, attribute.attributeName.trimmedDescription == name { return attribute }
        }
        return nil
    }

    static func inherits(_ clause: InheritanceClauseSyntax?, _ name: String) -> Bool {
        clause?.inheritedTypes.contains { $0.type.trimmedDescription == name || $0.type.trimmedDescription == "SwiftUI." + name } ?? false
    }

    /// The text of a string literal without interpolations, or nil.
    static func literalText(_ literal: StringLiteralExprSyntax) -> String? {
        var text = ""
        for segment in literal.segments {
            guard case .stringSegment(let piece) = segment else { return nil }
            text += piece.content.text
        }
        return Self.unescaped(text)
    }

    /// A string literal's escapes as the characters they stand for.
    static func unescaped(_ text: String) -> String {
        guard text.contains("\\") else { return text }
        var result = ""
        var escaping = false
        for character in text {
            if escaping {
                switch character {
                case "n": result.append("\n")
                case "t": result.append("\t")
                case "r": result.append("\r")
                case "0": result.append("\0")
                default: result.append(character)
                }
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else {
                result.append(character)
            }
        }
        return result
    }
}

/// Finds `...` written for code an article leaves out: a `...` alone on its line, which the
/// parser takes for an operator (`Button { … } label: { … }`, then `...`, then `Text(…)`).
final class ElisionFinder: SyntaxVisitor {
    private(set) var found: [Syntax] = []

    override func visit(_ token: TokenSyntax) -> SyntaxVisitorContinueKind {
        if token.text == "...", token.leadingTrivia.contains(where: \.isNewline),
            token.trailingTrivia.isEmpty || token.nextToken(viewMode: .sourceAccurate)?.leadingTrivia.contains(where: \.isNewline) == true
        {
            found.append(Syntax(token))
        }
        return .visitChildren
    }
}
