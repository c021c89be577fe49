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
        /// The members of the JSON it was parsed from, each with what its value holds.
        let members: [(key: String, value: JSON, kind: Kind)]
        let literalCount: Int
    }

    /// What a top-level member's value holds.
    private enum Kind {
        /// No literals: the next declaration's value must be identical.
        case fixed
        /// The value is a literal position itself (`id`).
        case literal
        /// Each member of the value is one (`inputs`, `state`).
        case literals
        /// Each member is an object spec whose `init` members are (`stateObjects`, `observedObjects`).
        case initializers
    }

    /// The declaration `json` parses to, and its literal values in the order the declaration
    /// numbers them (`ValueExpression.literal`).
    func declaration(_ json: JSON, templates: TemplateCache) throws(EngineError) -> (ViewDeclaration, [JSON]) {
        if let last, let literals = Self.literals(of: json, shapedLike: last) { return (last.declaration, literals) }
        var literals: [JSON] = []
        let declaration = try ViewDeclaration(json: json, templates: templates, literals: &literals)
        if case .object(let object) = json {
            // It parsed, so every key is a member of a declaration.
            let members = object.members.map { key, value in
                let kind: Kind
                switch ViewDeclaration.Member(key) {
                case .id: kind = .literal
                case .inputs, .state: kind = .literals
                case .stateObjects, .observedObjects: kind = .initializers
                default: kind = .fixed
                }
                return (key, value, kind)
            }
            last = Entry(declaration: declaration, members: members, literalCount: literals.count)
        }
        return (declaration, literals)
    }

    /// The literals of `json` if it has the shape of the declaration `last` was parsed from: the
    /// same members in the same order, identical everywhere except at literal positions (the id,
    /// inputs, state, and `init` values of objects), where neither is an expression or both are
    /// the same expression. They are collected in document order, the order the parser numbers them in.
    private static func literals(of json: JSON, shapedLike last: Entry) -> [JSON]? {
        guard case .object(let object) = json, object.count == last.members.count else { return nil }
        var literals: [JSON] = []
        literals.reserveCapacity(last.literalCount)
        // Members are compared through buffer pointers, here and below: iterating the arrays
        // copied every member (a retain and a release each), which cost a third of the comparison.
        let matches = object.members.withUnsafeBufferPointer { new in
            last.members.withUnsafeBufferPointer { old in
                new.indices.allSatisfy { index in
                    let (key, value) = new[index]
                    guard key == old[index].key else { return false }
                    switch old[index].kind {
                    case .fixed: return identical(value, old[index].value)
                    case .literal: return literal(value, old[index].value, into: &literals)
                    case .literals:
                        return sameKeys(value, old[index].value) { new, old in literal(new, old, into: &literals) }
                    case .initializers:
                        return sameKeys(value, old[index].value) { new, old in
                            sameKeys(new, old) { key, new, old in
                                key == "init" ? sameKeys(new, old) { new, old in literal(new, old, into: &literals) } : identical(new, old)
                            }
                        }
                    }
                }
            }
        }
        return matches ? literals : nil
    }

    /// At a literal position: `new` holds a literal where `old` did (collected), or the same expression.
    private static func literal(_ new: JSON, _ old: JSON, into literals: inout [JSON]) -> Bool {
        switch (ValueExpression.expressionKey(new), ValueExpression.expressionKey(old)) {
        case (nil, nil):
            literals.append(new)
            return true
        case ("$literal"?, "$literal"?):
            guard case .object(let wrapper) = new else { return false }
            literals.append(wrapper[0].value)
            return true
        case (_?, _?): return identical(new, old)
        default: return false
        }
    }

    /// Both are objects with the same keys in the same order, and `match` holds for each pair of values.
    private static func sameKeys(_ new: JSON, _ old: JSON, _ match: (JSON, JSON) -> Bool) -> Bool {
        sameKeys(new, old) { _, new, old in match(new, old) }
    }

    private static func sameKeys(_ new: JSON, _ old: JSON, _ match: (String, JSON, JSON) -> Bool) -> Bool {
        guard case .object(let new) = new, case .object(let old) = old, new.count == old.count else { return false }
        return new.members.withUnsafeBufferPointer { new in
            old.members.withUnsafeBufferPointer { old in
                new.indices.allSatisfy { new[$0].key == old[$0].key && match(new[$0].key, new[$0].value, old[$0].value) }
            }
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
        case .object: return sameKeys(new, old) { identical($0, $1) }
        }
        return false
    }
}
