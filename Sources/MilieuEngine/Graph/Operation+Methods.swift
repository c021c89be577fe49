import MilieuJSON
import MilieuProtocol

/// A protocol method that is one engine operation, alone or as an op of `graph/transaction`:
/// the one mapping from the wire's five transaction methods to `Operation`.
public protocol EngineOperation: TransactionMethod {
    /// The operation it asks for; `owner` is the connection that sent it (rule 15).
    func operation(owner: ConnectionID?) -> Operation
}

extension GraphSetRequest: EngineOperation {
    public func operation(owner: ConnectionID?) -> Operation { .set(path: path, value: value, ifVersion: ifVersion.map(Version.init)) }
}

extension GraphCallRequest: EngineOperation {
    public func operation(owner: ConnectionID?) -> Operation { .call(path: path, arguments: arguments) }
}

extension ViewMountRequest: EngineOperation {
    public func operation(owner: ConnectionID?) -> Operation { .mount(declaration: .object(declaration), owner: owner) }
}

extension ViewUnmountRequest: EngineOperation {
    public func operation(owner: ConnectionID?) -> Operation { .unmount(path: path) }
}

extension ViewProvideRequest: EngineOperation {
    public func operation(owner: ConnectionID?) -> Operation {
        .provide(path: path, environmentObjects: environmentObjects, observables: observables, environment: environment, withdraw: withdraw)
    }
}
