import MilieuEngine
import MilieuJSON
import MilieuProtocol
import Testing

@testable import MilieuServer

/// Every engine error kind goes out under the wire kind of the same name, with that kind's code.
@Suite struct ErrorKindTests {
    @Test(arguments: EngineError.Kind.allCases)
    func anEngineKindKeepsItsNameOnTheWire(kind: EngineError.Kind) {
        let wire = RPCError(EngineError(kind: kind, message: "m", data: ["path": "x"]))
        #expect(wire.kind == kind.rawValue)
        #expect(wire.code == ErrorKind(kind).code)
        #expect(wire.code != ErrorKind.internalError.code)
        #expect(wire.data["path"] == "x")
    }
}
