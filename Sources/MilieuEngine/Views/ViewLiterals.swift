import MilieuJSON

/// The literal values one view was declared with (`ValueExpression.literal(n)` reads the n-th):
/// its own, since views that differ only in these share a declaration (`DeclarationCache`).
///
/// A row of a list has one or two (its id, its `@State`'s initial value), so up to two are kept
/// in place, in the view, where an array took a 96-byte heap block of every row; more share one
/// array.
struct ViewLiterals: Sendable {
    private enum Storage {
        case none
        case one(JSON)
        case two(JSON, JSON)
        case many([JSON])
    }

    private let storage: Storage

    init(_ values: [JSON]) {
        switch values.count {
        case 0: storage = .none
        case 1: storage = .one(values[0])
        case 2: storage = .two(values[0], values[1])
        default: storage = .many(values)
        }
    }

    /// The `slot`-th literal; a declaration refers only to slots it recorded.
    subscript(slot: Int) -> JSON {
        switch storage {
        case .none: preconditionFailure("no literal \(slot)")
        case .one(let value):
            precondition(slot == 0, "no literal \(slot)")
            return value
        case .two(let first, let second):
            precondition(slot < 2, "no literal \(slot)")
            return slot == 0 ? first : second
        case .many(let values): return values[slot]
        }
    }
}
