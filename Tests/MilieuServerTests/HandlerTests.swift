import MilieuProtocol
import Testing

@testable import MilieuServer

/// Every method of the protocol's registry has a handler in the server, and every method a
/// transaction may hold is one engine operation: a method added to `Methods.all` without
/// them fails here, not as an InternalError on the wire.
@Suite struct HandlerTests {
    @Test func everyMethodHasAHandler() {
        for method in Methods.all { #expect(method is any ServerMethod.Type, "\(method.name)") }
        #expect(Set(Server.handlers.keys) == Set(Methods.names))
    }

    @Test func everyTransactionMethodIsAnEngineOperation() {
        for method in Methods.all where method is any TransactionMethod.Type {
            #expect(method is any ServerOperation.Type, "\(method.name)")
        }
    }
}
