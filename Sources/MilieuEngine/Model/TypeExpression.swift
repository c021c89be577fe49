import MilieuJSON

/// An expression of a declared type's computed property or action (`schema/register`), or of a
/// view's body and controls (`view/mount`), compiled from its JSON form by `ExpressionCompiler`
/// and evaluated by `ExpressionEvaluation`.
///
/// The language is small and total by construction: no loops but the walk of an array, no
/// recursion, no calls; every evaluation has a step budget and a bound on what it builds.
/// SPEC §9.3 lists the forms; this type is their compiled shape.
indirect enum TypeExpression: Sendable {
    /// A JSON scalar written as itself, or any value written as `{"literal": value}`.
    case literal(JSON)
    /// `{"get": "name"}`: a property of the object itself.
    case property(String)
    /// `{"arg": "name"}`: an action's argument, by position.
    case argument(Int)
    /// `{"get": "vm.email"}` in a view: a key path from one of the view's variables, read as a
    /// body reads it (tracked while a body is evaluated, SPEC §6.3).
    case read(ReadPath)
    /// `{"get": "item.name"}` in a view, where `item` is a local (`let`, a `forEach` element): the
    /// local at that depth, its name (what a read through an object it holds is reported as) and
    /// the members read inside its value.
    case local(Int, name: String, members: [String])
    /// `{"var": "name"}`: the element bound by an enclosing `filter`, `map`, `all`, `some` or `none`,
    /// by its depth among the enclosing bindings.
    case variable(Int)
    /// `{"now": []}`: the clock, as ISO 8601 (actions only).
    case now
    /// `{"object": {"k": expression}}`: a record built from its members' values.
    case object([(key: String, value: TypeExpression)])
    /// An operator applied to its arguments; `pointer` locates it in the request for messages.
    case operation(ExpressionOperator, [TypeExpression], pointer: String)
    /// `{"filter": [array, "name", body]}` and its kin: `body` sees each element as variable `depth`.
    case iteration(ExpressionIteration, over: TypeExpression, depth: Int, body: TypeExpression, pointer: String)
}

/// The operators of the expression language, by their wire names.
enum ExpressionOperator: String, Sendable, CaseIterable {
    case add = "+", subtract = "-", multiply = "*", divide = "/", remainder = "%"
    case equal = "==", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
    case and, or, not
    case `if`, cat, matches, `in`, count, isPrime, at, array, range

    /// How many arguments the operator takes, at least and at most.
    var arity: (min: Int, max: Int) {
        switch self {
        case .add, .multiply, .and, .or: (2, .max)
        case .subtract: (1, 2)
        case .not, .count, .isPrime: (1, 1)
        case .if: (3, .max)
        case .cat: (1, .max)
        case .array: (0, .max)
        case .divide, .remainder, .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual, .matches, .in, .at, .range: (2, 2)
        }
    }
}

/// The forms that walk an array, binding each element to a name.
enum ExpressionIteration: String, Sendable, CaseIterable {
    /// The elements for which the body is true.
    case filter
    /// The body's value for each element.
    case map
    /// Whether the body is true for every element (stops at the first false).
    case all
    /// Whether the body is true for some element (stops at the first true).
    case some
    /// Whether the body is true for no element (stops at the first true).
    case none
}

/// The bounds of the expression language (SPEC §9.3), fixed in this release; tests pass smaller ones.
public struct ExpressionLimits: Sendable {
    /// Nesting of expressions and steps within one getter or action.
    public var maxDepth: Int
    /// Expression nodes and steps within one getter or action.
    public var maxNodes: Int
    /// Nodes evaluated, steps run and elements visited by one evaluation of a getter or one action call.
    public var maxSteps: Int
    /// UTF-8 bytes of a string an expression builds (`cat`) or matches (`matches`).
    public var maxStringLength: Int
    /// Elements of an array an expression or an `append` builds.
    public var maxArrayLength: Int

    public init(
        maxDepth: Int = 32, maxNodes: Int = 1024, maxSteps: Int = 100_000, maxStringLength: Int = 65_536, maxArrayLength: Int = 10_000
    ) {
        self.maxDepth = maxDepth
        self.maxNodes = maxNodes
        self.maxSteps = maxSteps
        self.maxStringLength = maxStringLength
        self.maxArrayLength = maxArrayLength
    }
}

/// A JSON Pointer (RFC 6901) into the request's params, built one reference token at a time.
struct RequestPointer: Sendable, CustomStringConvertible {
    private(set) var description: String

    init(_ text: String = "") { description = text }

    /// The pointer to member `key`, escaped: `~` as `~0`, `/` as `~1`.
    func member(_ key: String) -> RequestPointer {
        RequestPointer(description + "/" + key.replacing("~", with: "~0").replacing("/", with: "~1"))
    }

    func element(_ index: Int) -> RequestPointer { RequestPointer(description + "/" + String(index)) }
}
