import MilieuJSON
import MilieuProtocol
import Testing

@testable import MilieuEngine

/// A restart's restore takes no versions, and every version change of a durable view or object
/// is among the commit's durable writes, so that it can be given back (SPEC §8.1, §12.3).
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

    @Test func aRestoredVersionIsGivenToTheViewOrTheObjectItsVariableOwns() throws {
        let graph = try makeGraph()
        let shop: JSON = ["parent": "/App", "name": "Shop", "retain": true, "stateObjects": ["cart": ["type": "Cart"]]]
        try graph.applyRestored([.mount(declaration: shop, owner: nil)], at: Version(40))
        #expect(graph.restoreVersion(Version(12), view: "/App/Shop", variable: ""))
        #expect(graph.restoreVersion(Version(17), view: "/App/Shop", variable: "cart"))
        #expect(graph.restoreVersion(Version(99), view: "/App", variable: "login"), "no later than the graph")
        #expect(!graph.restoreVersion(Version(3), view: "/App/Gone", variable: ""))
        #expect(try graph.get("/App/Shop").wire["version"] == 12)
        #expect(try graph.get("/App/Shop.cart").wire["version"] == 17)
        #expect(try graph.get("login").wire["version"] == 40)
    }

    /// A commit's durable writes read after later commits ran (the server stages each as it is
    /// made, but the graph does not rely on it): a write to an object that a later commit
    /// replaced finds the object gone and keeps nothing, even when an earlier write made it the
    /// object found last (`durableRecord(named:)`). Kept, its value would come back on the new
    /// object at a restart.
    @Test func aWriteStagedAfterItsObjectWasReplacedIsNotKept() throws {
        let graph = try makeGraph()
        let screen: JSON = [
            "parent": "/App", "name": "Screen", "retain": true, "state": ["vm": ["$new": ["type": "NewObservable"]]],
            "body": [["button": "reset", "action": [["set": "vm", "to": ["new": ["type": "NewObservable", "init": ["count": 7]]]]]]],
        ]
        try graph.mount(screen)
        let first = try graph.set("/App/Screen.vm.count", 3)
        #expect(graph.durableWrites(for: first) == [.value(view: "/App/Screen", name: "vm.count", value: 3)])
        let second = try graph.set("/App/Screen.vm.count", 5)
        let reset = try graph.tap("/App/Screen", "reset")
        #expect(try graph.get("/App/Screen.vm.count").wire == 7)
        #expect(graph.durableWrites(for: second).isEmpty)
        // The new object is kept by its values, under the @State that holds it, not by its id.
        #expect(
            graph.durableWrites(for: reset) == [
                .version(view: "/App/Screen", name: ""), .value(view: "/App/Screen", name: "vm.count", value: 7),
            ])
    }

    @Test func aSecretWrittenAndAnAnnouncementKeepTheirVersionsWithoutAValue() throws {
        let graph = try makeGraph()
        _ = try graph.mount(["parent": "/App", "name": "Shop", "retain": true, "stateObjects": ["cart": ["type": "Cart"]]])
        let secret = try graph.set("login.password", "pw")
        #expect(graph.durableWrites(for: secret) == [.version(view: "/App", name: "login")])
        let announced = try graph.call("/App/Shop.cart.objectWillChange.send")
        #expect(graph.durableWrites(for: announced) == [.version(view: "/App/Shop", name: "cart")])
    }
}
