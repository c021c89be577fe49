import MilieuJSON
import MilieuProtocol
import Testing

@testable import MilieuEngine

/// A restart's restore takes no versions (SPEC §8.1, §12.3).
@Suite struct RestoreTests {
    @Test func aRestoredTransactionTakesNoVersionAndCarriesTheLastOneLogged() throws {
        let graph = try makeGraph()
        try graph.applyRestored(
            [.mount(declaration: ["parent": "/App", "name": "Doc", "retain": true, "state": ["text": ""]], owner: nil)],
            at: Version(40))
        try graph.applyRestored([.set(path: "/App/Doc.text", value: "kept", ifVersion: nil)], at: Version(40))
        #expect(graph.version == Version(40))
        #expect(graph.views["/App/Doc"]?.version == Version(40))
        #expect(try graph.set("/App/Doc.text", "next").version == Version(41))
    }
}
