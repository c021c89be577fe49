import MilieuJSON
import MilieuProtocol
import Testing

@testable import MilieuEngine

/// `vm = Model()` in an action (issue #28 item 7, SPEC §6.5): a `@State` that holds an object
/// holds a new one; the old one is destroyed `replaced`, with its owner, even when a child held it
/// too and let go of it later in the same transaction.
@Suite struct ReplacedStateObjectTests {
    /// `@State var vm = T()`, a button `vm = T(count: 7)`, and a child `Reader(model: vm)`.
    static func screen(_ type: JSON = "NewObservable") -> JSON {
        [
            "parent": "/App", "name": "Screen", "state": ["vm": ["$new": ["type": type]]],
            "body": [
                ["text": ["get": "vm.count"]],
                ["button": "reset", "action": [["set": "vm", "to": ["new": ["type": type, "init": ["count": 7]]]]]],
                ["view": ["name": "Reader", "inputs": ["model": ["$parent": "vm"]], "body": ["reader {model.count}"]]],
            ],
        ]
    }

    @Test func anObjectAChildAlsoHeldIsDestroyedReplacedWithItsOwner() throws {
        let graph = try makeGraph()
        let mounted = try graph.mount(Self.screen())
        let old = mounted.view?.objects.first?.object
        let replaced = try graph.tap("/App/Screen", "reset")
        #expect(replaced.updates == ["/App/Screen": ["_vm"], "/App/Screen/Reader": ["@self"]])
        #expect(replaced.body(of: "/App/Screen/Reader") == ["reader 7"])
        let destroyed = replaced.changes.compactMap { change -> (String, String?, String)? in
            if case .objectDestroyed(let object, _, let owner, let reason) = change { (object, owner, reason.rawValue) } else { nil }
        }
        #expect(destroyed.count == 1)
        #expect(destroyed.first?.0 == old)
        #expect(destroyed.first?.1 == "/App/Screen.vm")
        #expect(destroyed.first?.2 == "replaced")
    }

    /// An object the owner lets go of while another view keeps holding it lives on without an
    /// owner; when that holder lets go in a later transaction, it is `released` (SPEC §12.2).
    @Test func anObjectThatOutlivesItsTransactionIsReleasedLater() throws {
        let graph = try makeGraph()
        let mounted = try graph.mount(Self.screen("OriginalObservable"))
        let old = try #require(mounted.view?.objects.first?.object)
        try graph.mount(["parent": "/App", "name": "Keeper", "observedObjects": ["vm": ["object": .string(old)]]])
        let replaced = try graph.tap("/App/Screen", "reset")
        #expect(replaced.destroyed.isEmpty)
        #expect(try graph.get("/App/Keeper.vm.count").wire == 0)
        let released = try graph.unmount("/App/Keeper")
        #expect(released.destroyed.map(\.reason) == ["released"])
    }
}
