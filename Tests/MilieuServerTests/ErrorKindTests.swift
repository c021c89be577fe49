import MilieuEngine
import MilieuJSON
import MilieuProtocol
import Testing

@testable import MilieuServer

/// An engine error goes out under its kind's wire name and code, with the fields that name its culprit.
@Suite struct ErrorKindTests {
    @Test(arguments: ErrorKind.allCases)
    func anEngineErrorKeepsItsKindOnTheWire(kind: ErrorKind) {
        let wire = RPCError(EngineError(kind: kind, message: "m", data: ["path": "x"]))
        #expect(wire.kind == kind.rawValue)
        #expect(wire.code == kind.code)
        #expect(wire.data["path"] == "x")
    }
}
