import MilieuJSON
import MilieuProtocol

/// What Tab offers, read from the live graph: command names, view paths from `view/tree`,
/// key paths through views' variables and objects' properties, actions, types, scenes.
struct Completer {
    let link: Link
    /// What the schema says of values: `set <path> ` offers a property's `oneOf` values.
    let schema: SchemaHelp

    func complete(before: String, word: String) -> LineEditor.Completion {
        let words = ArgumentScanner.words(in: before[...])
        guard let first = words.first else {
            let names = CommandCatalog.commands.map(\.name) + CommandCatalog.aliases.keys.sorted()
            return .candidates(names.filter { $0.hasPrefix(word) }.map { .init(text: $0, terminal: true) })
        }
        guard let spec = CommandCatalog.spec(named: String(first)), !spec.kinds.isEmpty else { return .candidates([]) }
        let kind = spec.kinds[min(words.count - 1, spec.kinds.count - 1)]
        if spec.name == "watch", word.hasPrefix("-") { return terminal(["--commits", "--lifecycle"], matching: word) }
        switch kind {
        case .commandName: return terminal(CommandCatalog.commands.map(\.name), matching: word)
        case .typeName: return terminal(typeNames(), matching: word)
        case .watchNumber: return terminal(link.watches.records.map { String($0.number) }, matching: word)
        case .json:
            if spec.name == "mount" || spec.name == "provide" {
                let start = before.firstIndex(of: "{").map { String(before[$0...]) } ?? ""
                return .candidates(
                    JSONCompletion.candidates(
                        before: start, word: word, provideChanges: spec.name == "provide", typeNames: typeNames))
            }
            guard spec.name == "set", words.count == 2 else { return .candidates([]) }
            return terminal(schema.values(for: String(words[1])), matching: word)
        case .scene:
            if word.contains("/") || word.hasSuffix(".json") { return .fileNames }
            return terminal(SceneLibrary.embedded.map(\.name), matching: word)
        case .viewPath: return .candidates(GraphIndex(link: link).viewPaths(matching: word))
        case .keyPath, .keyOrViewPath: return .candidates(GraphIndex(link: link).keyPaths(matching: word, actions: false))
        case .actionPath: return .candidates(GraphIndex(link: link).keyPaths(matching: word, actions: true))
        }
    }

    private func terminal(_ names: [String], matching word: String) -> LineEditor.Completion {
        .candidates(names.filter { $0.hasPrefix(word) }.map { .init(text: $0, terminal: true) })
    }

    private func typeNames() -> [String] {
        ((try? link.request(SchemaTypesRequest()))?.types ?? []).map(\.name)
    }
}

/// One look at the graph for one completion: the view tree, and objects on demand.
private struct GraphIndex {
    let link: Link
    /// Every mounted view by canonical path, in tree order.
    let views: [(path: String, node: ViewSnapshot)]

    init(link: Link) {
        self.link = link
        var views: [(path: String, node: ViewSnapshot)] = []
        func walk(_ node: ViewSnapshot) {
            views.append((node.path, node))
            for child in node.children ?? [] { walk(child) }
        }
        if let root = try? link.tree(path: nil, depth: nil) { walk(root) }
        self.views = views
    }

    private func node(_ path: String) -> ViewSnapshot? { views.first { $0.path == path }?.node }

    /// Views whose path continues `word` by one segment; when `word` is a view, its children too.
    func viewPaths(matching word: String) -> [LineEditor.Candidate] {
        let typedDepth = max(1, Self.depth(word))
        let isView = node(word) != nil
        return views.filter { view in
            let depth = Self.depth(view.path)
            return view.path.hasPrefix(word) && (depth == typedDepth || (isView && depth == typedDepth + 1))
        }.map { .init(text: $0.path, terminal: ($0.node.children ?? []).isEmpty) }
    }

    private static func depth(_ path: String) -> Int { PathSyntax.topLevelIndices(of: "/", in: path).count }

    /// Key paths continuing `word`: a view's variables, an object's properties (and its
    /// actions, for `call`), a value's members; at the start, `/App`'s variables and object ids.
    func keyPaths(matching word: String, actions: Bool) -> [LineEditor.Candidate] {
        let found = startOfKeyPaths(matching: word, actions: actions)
        // A complete path to an object or a view: go on to what is inside it.
        guard found.count == 1, found[0].text == word, !found[0].terminal else { return found }
        let inside = members(of: word, actions: actions).map {
            LineEditor.Candidate(text: word + "." + Self.spell($0.name), terminal: $0.terminal)
        }
        return inside.isEmpty ? found : inside
    }

    private func startOfKeyPaths(matching word: String, actions: Bool) -> [LineEditor.Candidate] {
        if let (base, member) = PathSyntax.splitLastMember(word) {
            return members(of: base, actions: actions).filter { $0.name.hasPrefix(member) }.map {
                .init(text: base + "." + Self.spell($0.name), terminal: $0.terminal)
            }
        }
        if word.hasPrefix("/") {
            var found = viewPaths(matching: word).map { LineEditor.Candidate(text: $0.text, terminal: false) }
            if node(word) != nil {
                found += members(of: word, actions: actions).map { .init(text: word + "." + Self.spell($0.name), terminal: $0.terminal) }
            }
            return found
        }
        var names = (node("/App").map { variables(of: $0, actions: actions) } ?? []).map(\.name)
        names += objectIDs()
        if "/App".hasPrefix(word) { names.append("/App") }
        return names.filter { $0.hasPrefix(word) }.map { .init(text: $0, terminal: false) }
    }

    private func members(of base: String, actions: Bool) -> [(name: String, terminal: Bool)] {
        if PathSyntax.isViewPath(base) { return node(base).map { variables(of: $0, actions: actions) } ?? [] }
        guard let value = try? link.request(GraphGetRequest(path: base)) else { return [] }
        if let typeName = value["type"]?.stringValue, value["object"] != nil, value["values"] != nil {
            return objectMembers(typeName, actions: actions)
        }
        switch value {
        case .object(let members) where !actions: return members.map { ($0.key, Self.isScalar($0.value)) }
        case .array(let items) where !actions: return items.indices.map { (String($0), Self.isScalar(items[$0])) }
        default: return []
        }
    }

    /// A view's variables; for `call`, only those holding objects.
    private func variables(of node: ViewSnapshot, actions: Bool) -> [(name: String, terminal: Bool)] {
        var found: [(name: String, terminal: Bool)] = []
        for (name, _) in node.objects { found.append((name, false)) }
        guard !actions else { return found }
        for (name, value) in node.inputs { found.append((name, Self.isScalar(value))) }
        for (name, value) in node.state { found.append((name, Self.isScalar(value))) }
        for binding in node.bindings { found.append((binding.name, Self.isScalar(binding.value ?? .null))) }
        for (name, _) in node.environment { found.append((name, true)) }
        return found.sorted { $0.name < $1.name }
    }

    /// A type's properties (for `call`, only references to other objects) and actions.
    private func objectMembers(_ typeName: String, actions: Bool) -> [(name: String, terminal: Bool)] {
        let types = (try? link.request(SchemaTypesRequest()))?.types ?? []
        guard let type = types.first(where: { $0.name == typeName }) else { return [] }
        var found: [(name: String, terminal: Bool)] = []
        for property in type.properties {
            let name = property.name
            let propertyType = property.type
            let isReference = propertyType.hasPrefix("@")
            let isLeaf = !isReference && !propertyType.hasPrefix("[") && !propertyType.hasPrefix("{") && !propertyType.hasPrefix("json")
            if !actions || isReference { found.append((name, isLeaf)) }
        }
        if actions {
            for action in type.actions { found.append((action.name, true)) }
        }
        return found
    }

    private func objectIDs() -> [String] {
        var ids: [String] = []
        for view in views {
            for (_, held) in view.node.objects {
                if let id = held?.object, !ids.contains(id) { ids.append(id) }
            }
        }
        return ids
    }

    private static func isScalar(_ value: JSON) -> Bool {
        switch value {
        case .array, .object: false
        default: true
        }
    }

    /// A member as written in a key path: a name as is, anything else as a JSON string.
    private static func spell(_ name: String) -> String {
        let simple =
            name.first.map { $0.isLetter || $0 == "_" || $0.isNumber } ?? false
            && name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
        return simple ? name : JSON.string(name).jsonText
    }
}
