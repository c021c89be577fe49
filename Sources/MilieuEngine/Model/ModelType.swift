import MilieuJSON
import MilieuProtocol

/// How a model type tells views about its changes (semantics.md rule 10).
public enum ObservationStyle: String, Sendable, CaseIterable {
    /// `@Observable`: a view is invalidated only by the properties its body read.
    case observable
    /// `ObservableObject`: a view holding the object is invalidated by any change.
    case observableObject
}

/// Checking a value against a property's declared constraints (`Constraints`, the protocol's
/// description of them, is the one type for both).
extension Constraints {
    /// A broken constraint: its name (`oneOf`, `min`, `max`, `pattern`) and what it demands.
    struct Violation {
        let constraint: String
        let description: String
    }

    /// The first constraint `value` breaks, or nil. A string whose pattern would cost too much to
    /// check (past `WholeMatch.maxWork`) is `LimitExceeded` naming `subject`, and its length unless
    /// it is `secure`.
    func violation(of value: JSON, subject: String, secure: Bool) throws(EngineError) -> Violation? {
        if let oneOf, !oneOf.contains(value) {
            return Violation(constraint: "oneOf", description: "oneOf [" + oneOf.map(\.jsonText).joined(separator: ", ") + "]")
        }
        if let number = value.numberValue {
            if let min, number < min { return Violation(constraint: "min", description: "min \(min.compactText)") }
            if let max, number > max { return Violation(constraint: "max", description: "max \(max.compactText)") }
        }
        if let pattern, case .string(let text) = value {
            do throws(WholeMatch.WorkExceeded) {
                if !(try WholeMatch.matches(text, pattern: pattern)) {
                    return Violation(constraint: "pattern", description: "pattern \(pattern)")
                }
            } catch {
                throw .patternWork(subject, bytes: secure ? nil : error.bytes, error)
            }
        }
        return nil
    }
}

extension Double {
    /// `3` rather than `3.0` in messages.
    var compactText: String { rounded() == self && abs(self) < 1e15 ? String(Int(self)) : String(self) }
}

/// A stored property of a model type.
public struct StoredProperty: Sendable {
    public var name: String
    public var type: PropertyType
    public var defaultValue: JSON
    /// Rule 13: written and used inside the daemon, never shown outside it.
    public var secure: Bool
    public var validation: Constraints
    /// Whether writes announce themselves: for an `ObservableObject`, `@Published var` (true) or a
    /// plain `var` (false), whose writes change the value without telling holders (rule 19); for
    /// an `@Observable` type, false only for an `@ObservationIgnored` property, whose reads are not
    /// tracked either.
    public var published: Bool
    /// `@Published var inner = Inner()`: the object this reference starts with is made with its
    /// holder, of this type, and owned by it (it goes with the holder, or when replaced).
    public var makes: String?
    /// `inner.objectWillChange.sink { self.objectWillChange.send() }`: the holder announces
    /// whenever the object this reference holds does (the fix for rule 20's pitfall).
    public var forwards: Bool

    public init(
        _ name: String, _ type: PropertyType, default defaultValue: JSON? = nil, secure: Bool = false,
        validation: Constraints = Constraints(), published: Bool = true, makes: String? = nil, forwards: Bool = false
    ) {
        self.name = name
        self.type = type
        self.defaultValue = defaultValue ?? type.zeroValue
        self.secure = secure
        self.validation = validation
        self.published = published
        self.makes = makes
        self.forwards = forwards
    }
}

/// A property derived from stored ones (rule 12); what it reads is tracked each time it runs.
public struct ComputedProperty: Sendable {
    public var name: String
    public var type: PropertyType
    public var compute: @Sendable (ObjectReader) -> JSON

    public init(_ name: String, _ type: PropertyType, compute: @escaping @Sendable (ObjectReader) -> JSON) {
        self.name = name
        self.type = type
        self.compute = compute
    }
}

/// An action: a method on a model type that runs as one transaction (rule 14).
public struct Action: Sendable {
    public var name: String
    /// Positional parameters, named for messages and `schema/types`.
    public var parameters: [(name: String, type: PropertyType)]
    /// The parameters whose argument is a secret: the action may write it (or a value computed
    /// from it) into a secure property, or use it with a secure value. A client keeps a call that
    /// passes one out of its history (SPEC §9.3.3).
    public var secureParameters: [String]
    public var perform: @Sendable (ActionContext) throws(EngineError) -> JSON

    public init(
        _ name: String, parameters: [(name: String, type: PropertyType)] = [], secureParameters: [String] = [],
        perform: @escaping @Sendable (ActionContext) throws(EngineError) -> JSON
    ) {
        self.name = name
        self.parameters = parameters
        self.secureParameters = secureParameters
        self.perform = perform
    }
}

/// A named model type: stored and computed properties, actions and an observation style.
public struct ModelType: Sendable {
    public var name: String
    public var style: ObservationStyle
    public var stored: [StoredProperty]
    public var computed: [ComputedProperty]
    public var actions: [Action]

    public init(
        name: String, style: ObservationStyle, stored: [StoredProperty], computed: [ComputedProperty] = [],
        actions: [Action] = []
    ) {
        self.name = name
        self.style = style
        self.stored = stored
        self.computed = computed
        self.actions = actions
    }
}

/// What Swift code conforms to in order to add a model type: `registry.register(MyType.self)`.
public protocol ModelDeclaring {
    static var modelType: ModelType { get }
}
