import MilieuJSON
import MilieuProtocol

/// A place a binding writes to and a view can depend on: the single source of truth (rule 1).
enum Location: Hashable, Sendable {
    case property(object: ObjectSerial, slot: Int)
    /// A view's @State, by the view's serial and the variable's index among its variables.
    case state(view: ViewSerial, variable: Int)
}

/// What a view's body evaluation can depend on (rule 10).
enum Dependency: Hashable, Sendable {
    /// A property of an object, read (fine-grained) or through a binding.
    case location(Location)
    /// The members of a place's value that a binding into it stands for, read through the
    /// binding (`$user.name`): only a change of that part re-renders the reader.
    case projection(Location, members: [String])
    /// Any change of an `observableObject` object the view holds (coarse).
    case object(ObjectSerial)
    /// An environment value, by its provider (nil: the built-in default) and key.
    case environment(provider: ViewSerial?, key: String)
}

/// What a view's environment modifiers put in the environment: `.environmentObject(x)` objects
/// and `.environment(x)` observables, each by type (two slots, rule 17), and
/// `.environment(\\.key, v)` values by key.
struct Provided: Equatable {
    var objects: [String: ObjectSerial] = [:]
    var observables: [String: ObjectSerial] = [:]
    var environment: [String: JSON] = [:]

    var isEmpty: Bool { objects.isEmpty && observables.isEmpty && environment.isEmpty }
    /// Every object held, to hold and release them.
    var heldObjects: [ObjectSerial] { Array(objects.values) + Array(observables.values) }
}

/// Where a view's environment modifiers are written, which decides who sees them (rule 7).
enum EnvironmentLayer: Sendable {
    /// Inside its body, on its content (`provide`, `view/provide`): its descendants see them, the
    /// view itself does not.
    case content
    /// Where its parent's body uses it (`modifiers`, `Child().environmentObject(x)`): the view and
    /// its descendants see them, its siblings do not.
    case placement
}

/// The wrapper that gives a view an object, for the tree and for ownership.
enum ObjectWrapper: String, Sendable {
    case stateObject, observedObject, environmentObject, input
    /// `@State var vm = Model()` (rule 18).
    case state
    /// `@Environment(Model.self)` (rule 17).
    case environment

    /// Whether the view subscribes to the object's `objectWillChange` (rule 10, coarse):
    /// only the `ObservableObject` wrappers do.
    var subscribes: Bool { self == .stateObject || self == .observedObject || self == .environmentObject }
    /// Whether the object lives as long as the view's identity (rules 3, 18): its values are
    /// durable with the view's.
    var owns: Bool { self == .stateObject || self == .state }
}

/// A view's variable, by wrapper.
enum ViewVariable {
    case input(JSON)
    case inputObject(ObjectSerial)
    /// A @State's value and the type writes must keep, inferred from its initial value.
    case state(JSON, PropertyType)
    case binding(BindingTarget)
    case object(ObjectSerial, ObjectWrapper)
    /// An optional `@Environment(T.self)` that no ancestor provides: it reads null.
    case noObject
    /// An environment value and who provides it (nil: the default); the key it reads is the
    /// declaration's (`ViewDeclaration.environmentKey(of:)`), so that each view does not carry it.
    case environment(provider: ViewSerial?, value: JSON)
    /// An input holding a closure its parent passed (`let onTap: () -> Void`).
    case closure(BoundClosure)

    /// The object this variable holds, if any.
    var object: ObjectSerial? {
        switch self {
        case .inputObject(let id), .object(let id, _): id
        default: nil
        }
    }
}

/// A view's variables by name, in declaration order. A view declares a handful, so a small
/// array searched in order costs less than a dictionary: no hashing, one allocation. A row of a
/// list often declares one, which is kept in place, in the view, where an array of one took a
/// 96-byte heap block of every row.
struct ViewVariables: Sequence {
    typealias Entry = (name: String, value: ViewVariable)

    private enum Storage {
        case none
        case one(Entry)
        case many([Entry])
    }

    private var storage: Storage

    /// Room for `capacity` variables: in place for one, else an array that will not grow.
    init(capacity: Int) {
        if capacity > 1 {
            var entries: [Entry] = []
            entries.reserveCapacity(capacity)
            storage = .many(entries)
        } else {
            storage = .none
        }
    }

    subscript(name: String) -> ViewVariable? {
        get { index(of: name).map { self[at: $0].value } }
        set {
            if let index = index(of: name) {
                if let newValue { replace(at: index, with: newValue) } else { remove(at: index) }
            } else if let newValue {
                append(name, newValue)
            }
        }
    }

    /// Adds a variable the table does not have yet (building a view, in declaration order).
    mutating func append(_ name: String, _ value: ViewVariable) {
        switch storage {
        case .none: storage = .one((name, value))
        case .one(let first): storage = .many([first, (name, value)])
        case .many(var entries):
            storage = .none  // the array's only reference, so that appending does not copy it
            entries.append((name, value))
            storage = .many(entries)
        }
    }

    /// How many variables the view has.
    @inline(__always)
    var count: Int {
        switch storage {
        case .none: 0
        case .one: 1
        case .many(let entries): entries.count
        }
    }

    /// The variables nearest `name`, for "did you mean" when a path names one the view lacks.
    func nearestNames(to name: String) -> [String] { Suggestions.nearest(to: name, among: lazy.map(\.name)) }

    /// The position of variable `name`: what a `Location.state` holds.
    @inline(__always)
    func index(of name: String) -> Int? {
        switch storage {
        case .none: nil
        case .one(let entry): entry.name == name ? 0 : nil
        case .many(let entries): entries.firstIndex { $0.name == name }
        }
    }

    /// The variable at `index`, and its name.
    @inline(__always)
    subscript(at index: Int) -> Entry {
        switch storage {
        case .none: preconditionFailure("no variable \(index)")
        case .one(let entry):
            precondition(index == 0, "no variable \(index)")
            return entry
        case .many(let entries): return entries[index]
        }
    }

    private mutating func replace(at index: Int, with value: ViewVariable) {
        switch storage {
        case .none: preconditionFailure("no variable \(index)")
        case .one(let entry): storage = .one((entry.name, value))
        case .many(var entries):
            storage = .none
            entries[index].value = value
            storage = .many(entries)
        }
    }

    private mutating func remove(at index: Int) {
        switch storage {
        case .none: preconditionFailure("no variable \(index)")
        case .one: storage = .none
        case .many(var entries):
            storage = .none
            entries.remove(at: index)
            storage = .many(entries)
        }
    }

    /// Walks the entries without indexing: the one in place, or the array's own iterator.
    struct Iterator: IteratorProtocol {
        fileprivate var one: Entry?
        fileprivate var many: IndexingIterator<[Entry]>?

        mutating func next() -> Entry? {
            if let entry = one {
                one = nil
                return entry
            }
            return many?.next()
        }
    }

    func makeIterator() -> Iterator {
        switch storage {
        case .none: Iterator()
        case .one(let entry): Iterator(one: entry)
        case .many(let entries): Iterator(many: entries.makeIterator())
        }
    }
}

/// One mounted view: its identity, its variables, what it provides, its last body
/// and what that body read. Nodes are linked to their siblings so that unmounting
/// one of many children costs O(1). Every write to one of its fields is a leaf assignment,
/// as `Graph` says of its own state.
///
/// A list holds a great many views, so a row's one variable and up to two literals are kept in
/// place rather than in arrays of their own, and the fields are declared in an order that leaves
/// almost no padding (a class keeps its fields in the order they are declared): the one-byte
/// flags and 32-bit counters fill the bytes after the fields whose size is not a multiple of
/// eight. The explicit id is read back from the path (`explicitID`) and the transaction a view
/// was born in from its serial (`Graph.isBornInThisTransaction`), not kept. The instance fits a
/// 272-byte heap block, where it took 192 and a row's variable and literals took two more of 96
/// (`ViewMemoryTests` holds it there).
final class ViewNode {
    let serial: ViewSerial
    let declaration: ViewDeclaration
    let parent: ViewNode?
    /// Where the view is: its parent's path, its name and `[<id>]` for an explicit id (`ViewPath.child`).
    let path: String

    var firstChild: ViewNode?
    var nextSibling: ViewNode?
    /// Unowned: a linked node's previous sibling is kept alive by the chain before it.
    unowned var previousSibling: ViewNode?

    /// The line of a one-line body, most views': in place, where an array of one line took a
    /// 64-byte block of its own. Nil for another body, which `Extras` keeps.
    private var onlyLine: String?
    /// What the last evaluation read, each with the reason it would give (rule 10).
    var dependencies = DependencySet()
    /// The global version of the last transaction that changed this view's @State.
    var version = Version(0)
    var queuedIn = 0
    /// What few views have, apart, so that the many rows of a list do not each carry it empty.
    private var extras: Extras?

    /// The literal values this view was declared with (`ValueExpression.literal`): 41 bytes,
    /// which the flags and the evaluation count round up to 48.
    let literals: ViewLiterals
    /// Why the view appeared, until its first evaluation reports it (`view/didMount`).
    var arrival: MountReason?
    var retained: Bool
    /// Whether the node is in the tree; a queued node torn down later in a transaction is skipped.
    var isMounted = false
    /// How many times its body has been evaluated since its identity appeared (`view/tree`),
    /// stopping at `UInt32.max`.
    var evaluations: UInt32 = 0

    /// 49 bytes, which the queue slot rounds up to 56.
    var variables: ViewVariables
    /// Invalidation bookkeeping for the transaction `queuedIn` (`InvalidationQueue`): where the
    /// queue keeps this view's reasons, or `InvalidationQueue.evaluated`.
    var queueSlot: Int32 = 0

    /// The connection that mounted the view; nil for scene views and retained ones. Nine bytes,
    /// which `lastEvaluatedBits` rounds up to 16.
    var owner: ConnectionID?
    /// The low 32 bits of the version whose commit last evaluated its body: the whole version is
    /// the latest one with these bits (`Graph.lastEvaluated`).
    var lastEvaluatedBits: UInt32 = 0
    /// What `ownerLink` made; last, so that the fields above keep their packing.
    private var madeOwnerLink: OwnerLink?

    /// Levels below the root: the length of the parent chain, at most `GraphLimits.maxDepth`
    /// (64) and a handful in practice. Not stored: those four bytes hold `lastEvaluatedBits`,
    /// and a view stays a 192-byte block.
    var depth: Int {
        var levels = 0
        var ancestor = parent
        while let next = ancestor {
            levels += 1
            ancestor = next.parent
        }
        return levels
    }

    final class Extras {
        var stateObjectArguments: [String: JSONObject] = [:]
        var passedBindings: [String: Bound] = [:]
        var boundStates: UInt64 = 0
        var provided = Provided()
        var placed = Provided()
        var durableDeclaration: JSON?
        var presence = MountReason.mounted
        var placedTransforms: [PlacedTransform] = []
        var transformResults: [String: JSON] = [:]
        var activeLinks: Set<String> = []
        var controls: [ViewControl] = []
        var lines: [String] = []
        var lastChild: ViewNode?
    }

    /// How an object the view owns refers to it (`ObjectRecord.ownerView`): as a `weak`
    /// reference would, nil once the view is gone, but without one. A weak reference gives the
    /// node a side table, and each retain and release of it then took the runtime's slow path:
    /// some 130 instructions a write to an object `/App` owns (callgrind).
    final class OwnerLink {
        /// Cleared by the node's `deinit`, before its memory goes.
        fileprivate(set) unowned(unsafe) var view: ViewNode?

        fileprivate init(_ view: ViewNode) { self.view = view }
    }

    /// The link its owned objects refer to it through, made for the first of them.
    var ownerLink: OwnerLink {
        if let link = madeOwnerLink { return link }
        let link = OwnerLink(self)
        madeOwnerLink = link
        return link
    }

    deinit {
        madeOwnerLink?.view = nil
    }

    /// The extras to write `value` to: made on the first write of something other than `empty`.
    private func extrasForWriting<Value>(_ value: Value, unless empty: (Value) -> Bool) -> Extras? {
        if let extras { return extras }
        guard !empty(value) else { return nil }
        let made = Extras()
        extras = made
        return made
    }

    /// The initial values each state object was made with, to report dropped ones (rule 4).
    var stateObjectArguments: [String: JSONObject] {
        get { extras?.stateObjectArguments ?? [:] }
        set { extrasForWriting(newValue, unless: \.isEmpty)?.stateObjectArguments = newValue }
    }

    /// The value each `@Binding` was last passed with by its parent's evaluation. A SwiftUI
    /// `Binding` carries its value, so a parent that passes one whose value changed since its
    /// last evaluation passes the view a new value (`@self`, rule 10).
    var passedBindings: [String: Bound] {
        get { extras?.passedBindings ?? [:] }
        set { extrasForWriting(newValue, unless: \.isEmpty)?.passedBindings = newValue }
    }

    /// Which of its `@State`s (by variable index, the first 64) a view has held a `@Binding` to.
    /// SwiftUI marks a state's storage read when a binding to it updates, and never unmarks it, so
    /// from then on the state's changes re-render its own view as a read would (rule 10).
    var boundStates: UInt64 {
        get { extras?.boundStates ?? 0 }
        set { extrasForWriting(newValue, unless: { $0 == 0 })?.boundStates = newValue }
    }

    /// Why a view written in a body is there (`BodyPlacement.presence`): what its unmount will say.
    var presence: MountReason {
        get { extras?.presence ?? .mounted }
        set { extrasForWriting(newValue, unless: { $0 == .mounted })?.presence = newValue }
    }

    /// The environment transforms around its place in its parent's body, outermost first:
    /// `transformEnvironment` and `disabled` content holding it.
    var placedTransforms: [PlacedTransform] {
        get { extras?.placedTransforms ?? [] }
        set { extrasForWriting(newValue, unless: \.isEmpty)?.placedTransforms = newValue }
    }

    /// What `placedTransforms` gave each key they transform at its last placement: a placement that
    /// gives the same refreshes nothing below it.
    var transformResults: [String: JSON] {
        get { extras?.transformResults ?? [:] }
        set { extrasForWriting(newValue, unless: \.isEmpty)?.transformResults = newValue }
    }

    /// The navigation links of its body that were tapped, by their place: their destinations show.
    var activeLinks: Set<String> {
        get { extras?.activeLinks ?? [] }
        set { extrasForWriting(newValue, unless: \.isEmpty)?.activeLinks = newValue }
    }

    /// What its body's last evaluation showed.
    var body: BodyLines {
        get { onlyLine.map(BodyLines.init(line:)) ?? BodyLines(extras?.lines ?? []) }
        set {
            if newValue.count == 1 {
                onlyLine = newValue[0]
                if extras != nil { extras?.lines = [] }
            } else {
                onlyLine = nil
                extrasForWriting(newValue, unless: \.isEmpty)?.lines = Array(newValue)
            }
        }
    }

    /// Its last child: kept by the views that have children, apart, so that a row of a list
    /// carries no field for it.
    var lastChild: ViewNode? {
        get { extras?.lastChild }
        set { extrasForWriting(newValue, unless: { $0 == nil })?.lastChild = newValue }
    }

    /// The controls its body's last evaluation showed.
    var controls: [ViewControl] {
        get { extras?.controls ?? [] }
        set { extrasForWriting(newValue, unless: \.isEmpty)?.controls = newValue }
    }

    /// What the view's body provides to its content: its descendants (rule 7).
    var provided: Provided {
        get { extras?.provided ?? Provided() }
        set { extrasForWriting(newValue, unless: \.isEmpty)?.provided = newValue }
    }

    /// What its parent's body applies where it places the view: the view and its descendants see it (rule 7).
    var placed: Provided {
        get { extras?.placed ?? Provided() }
        set { extrasForWriting(newValue, unless: \.isEmpty)?.placed = newValue }
    }

    /// What the view's modifiers in `layer` provide.
    subscript(layer: EnvironmentLayer) -> Provided {
        get { layer == .content ? provided : placed }
        set {
            switch layer {
            case .content: provided = newValue
            case .placement: placed = newValue
            }
        }
    }

    /// Every object its environment modifiers hold, in both layers.
    var heldByModifiers: [ObjectSerial] {
        guard let extras else { return [] }
        return extras.provided.heldObjects + extras.placed.heldObjects
    }

    /// The declaration as mounted, kept for a retained view a client mounted, so that it can be
    /// mounted again after a restart. Nil for scene views, which the scene brings back.
    var durableDeclaration: JSON? {
        get { extras?.durableDeclaration }
        set { extrasForWriting(newValue, unless: { $0 == nil })?.durableDeclaration = newValue }
    }

    init(
        serial: ViewSerial, declaration: ViewDeclaration, literals: ViewLiterals, parent: ViewNode?, explicitID: JSON?,
        owner: ConnectionID?
    ) {
        self.serial = serial
        self.declaration = declaration
        self.literals = literals
        self.parent = parent
        self.path = parent.map { ViewPath.child(of: $0.path, name: declaration.name, id: explicitID) } ?? "/" + declaration.name
        self.owner = owner
        self.retained = declaration.retain || parent == nil || owner == nil
        self.variables = ViewVariables(capacity: declaration.variableCount)
        assert(
            self.explicitID == explicitID && hasExplicitID(explicitID), "\(path) does not spell its id \(String(describing: explicitID))")
    }

    /// The id the view was declared with (rule 6), read back from the `[<id>]` its path ends in.
    /// An id is a string, an integer or a boolean, which JSON spells one way each, and a path
    /// never changes, so keeping the id as well took 24 bytes of every view for nothing.
    var explicitID: JSON? {
        let spelled = idSuffix
        guard spelled.count > 2 else { return nil }
        return try? JSON(parsing: spelled.dropFirst().dropLast())
    }

    /// Whether the view was declared with `id`, compared with its path without reading it back:
    /// a parent's evaluation asks this of each of its children.
    func hasExplicitID(_ id: JSON?) -> Bool {
        let spelled = idSuffix
        guard let id else { return spelled.isEmpty }
        guard spelled.count > 2 else { return false }
        let text = spelled.dropFirst().dropLast()
        guard case .int(let value) = id else { return text.elementsEqual(id.jsonText.utf8) }
        // The usual kind, compared digit by digit without making a string of it.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            guard let start = digits.baseAddress else { return false }
            return text.elementsEqual(UnsafeBufferPointer(start: start, count: DecimalText.write(value, to: start)))
        }
    }

    /// What follows the view's name in its path: `[<id>]`, or nothing.
    private var idSuffix: Substring.UTF8View {
        path.utf8.dropFirst((parent?.path.utf8.count ?? 0) + 1 + declaration.name.utf8.count)
    }

    var children: some Sequence<ViewNode> {
        sequence(first: firstChild) { $0?.nextSibling }.lazy.compactMap { $0 }
    }

    /// This view and all its descendants, parents first.
    var subtree: [ViewNode] {
        var result: [ViewNode] = []
        var stack: [ViewNode] = [self]
        while let node = stack.popLast() {
            result.append(node)
            var child = node.lastChild
            while let c = child {
                stack.append(c)
                child = c.previousSibling
            }
        }
        return result
    }

    var ancestorsAndSelf: some Sequence<ViewNode> { sequence(first: self) { $0.parent } }

    /// Whether its body has been evaluated since its identity appeared.
    var hasEvaluated: Bool { evaluations > 0 }
}
