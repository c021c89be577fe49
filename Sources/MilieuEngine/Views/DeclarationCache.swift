import MilieuJSON

/// The declaration of the last mount, shared with the next one when the two differ only in
/// their literal values: a list mounts row after row that differ only in id and initial state,
/// and comparing a declaration with the last one costs a fraction of parsing it (and of
/// keeping a parsed copy per view).
final class DeclarationCache {
    private var last: Entry?

    /// A parsed declaration and what comparing the next one with it needs.
    private struct Entry {
        let declaration: ViewDeclaration
        /// The JSON it was parsed from, and where in it the literals were.
        let json: JSON
        let shape: Shape
        let literalCount: Int
    }

    /// Where a declaration's literals are, laid over its JSON: what must be identical in the
    /// next declaration, and where it may hold other literals.
    private indirect enum Shape {
        /// No literal inside: the next declaration's value must be identical.
        case fixed
        /// A literal: the next declaration may hold any literal here.
        case literal
        /// An object with literals inside: the same keys in the same order, each compared by
        /// its own shape (aligned with the members by index).
        case members([Shape])
    }

    /// The declaration `json` parses to, and its literal values in the order the declaration
    /// numbers them (`ValueExpression.literal`).
    func declaration(_ json: JSON, templates: TemplateCache) throws(EngineError) -> (ViewDeclaration, [JSON]) {
        if let last, let literals = Self.literals(of: json, shapedLike: last) { return (last.declaration, literals) }
        var literals = DeclarationLiterals()
        let declaration = try ViewDeclaration(json: json, templates: templates, literals: &literals)
        let positions = literals.positions.map { $0.split(separator: ".", omittingEmptySubsequences: false) }
        let shape = Self.shape(of: json, literalsAt: positions[...], depth: 0)
        // Shared only if a comparison would collect the literals in the parser's order, from the
        // places the parser found them (a key with a dot in it, say, makes the two disagree).
        last = nil
        let entry = Entry(declaration: declaration, json: json, shape: shape, literalCount: literals.values.count)
        if Self.literals(of: json, shapedLike: entry) == literals.values { last = entry }
        return (declaration, literals.values)
    }

    /// The shape of `json`, given the key paths (below `depth`) where the parser found literals.
    private static func shape(of json: JSON, literalsAt positions: ArraySlice<[Substring]>, depth: Int) -> Shape {
        if positions.contains(where: { $0.count == depth }) { return .literal }
        guard !positions.isEmpty, case .object(let object) = json else { return .fixed }
        return .members(
            object.members.map { key, value in
                shape(of: value, literalsAt: positions.filter { $0.count > depth && $0[depth] == key }, depth: depth + 1)
            })
    }

    /// The literals of `json` if it has the shape of the declaration `last` was parsed from: the
    /// same members in the same order, identical everywhere except at literal positions, where
    /// it holds literals too. They are collected in document order, the order the parser numbers them in.
    private static func literals(of json: JSON, shapedLike last: Entry) -> [JSON]? {
        var literals: [JSON] = []
        literals.reserveCapacity(last.literalCount)
        guard matches(json, last.json, last.shape, into: &literals), literals.count == last.literalCount else { return nil }
        return literals
    }

    private static func matches(_ new: JSON, _ old: JSON, _ shape: Shape, into literals: inout [JSON]) -> Bool {
        switch shape {
        case .fixed: return identical(new, old)
        case .literal: return literal(new, into: &literals)
        case .members(let shapes):
            guard case .object(let new) = new, case .object(let old) = old, new.count == old.count else { return false }
            // Members are compared through buffer pointers: iterating the arrays copied every
            // member (a retain and a release each), which cost a third of the comparison.
            return new.members.withUnsafeBufferPointer { new in
                old.members.withUnsafeBufferPointer { old in
                    shapes.withUnsafeBufferPointer { shapes in
                        new.indices.allSatisfy { index in
                            new[index].key == old[index].key && matches(new[index].value, old[index].value, shapes[index], into: &literals)
                        }
                    }
                }
            }
        }
    }

    /// At a literal position: `new` holds a literal (plain, or wrapped in `$literal`), collected.
    private static func literal(_ new: JSON, into literals: inout [JSON]) -> Bool {
        switch ValueExpression.expressionKey(new) {
        case nil:
            literals.append(new)
            return true
        case "$literal"?:
            guard case .object(let wrapper) = new else { return false }
            literals.append(wrapper[0].value)
            return true
        default: return false
        }
    }

    /// Equal, with object members in the same order (the parser keeps their order) and doubles bit for bit.
    private static func identical(_ new: JSON, _ old: JSON) -> Bool {
        switch new {
        case .null: if case .null = old { return true }
        case .bool(let a): if case .bool(let b) = old { return a == b }
        case .int(let a): if case .int(let b) = old { return a == b }
        case .double(let a): if case .double(let b) = old { return a.bitPattern == b.bitPattern }
        case .string(let a): if case .string(let b) = old { return a == b }
        case .array(let a):
            guard case .array(let b) = old, a.count == b.count else { return false }
            return a.withUnsafeBufferPointer { a in b.withUnsafeBufferPointer { b in a.indices.allSatisfy { identical(a[$0], b[$0]) } } }
        case .object(let a):
            guard case .object(let b) = old, a.count == b.count else { return false }
            return a.members.withUnsafeBufferPointer { a in
                b.members.withUnsafeBufferPointer { b in
                    a.indices.allSatisfy { a[$0].key == b[$0].key && identical(a[$0].value, b[$0].value) }
                }
            }
        }
        return false
    }
}
