/// A view's body lines as its evaluation left them, and as a change reports them. Most bodies
/// are one line: kept in place rather than in an array of their own, which cost 64 bytes a view,
/// on the view and, while a mount is in the history, on its change (issue #31's memory per view).
public struct BodyLines: RandomAccessCollection, Equatable, Sendable, ExpressibleByArrayLiteral {
    private enum Storage: Equatable, Sendable {
        case one(String)
        case many([String])
    }

    private let storage: Storage

    public init(_ lines: [String]) {
        storage = lines.count == 1 ? .one(lines[0]) : .many(lines)
    }

    /// A one-line body, without an array for its one line.
    public init(line: String) { storage = .one(line) }

    public init(arrayLiteral lines: String...) { self.init(lines) }

    public var startIndex: Int { 0 }
    public var endIndex: Int {
        switch storage {
        case .one: 1
        case .many(let lines): lines.count
        }
    }

    public subscript(position: Int) -> String {
        switch storage {
        case .one(let line):
            precondition(position == 0, "index out of range")
            return line
        case .many(let lines): return lines[position]
        }
    }
}
