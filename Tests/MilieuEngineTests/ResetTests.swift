import MilieuJSON
import MilieuProtocol
import Testing

@testable import MilieuEngine

/// `graph/reset`: whatever clients did, one transaction takes the graph back to what a graph
/// freshly made from the same scene holds.
@Suite struct ResetTests {
    /// The default scene, plus a scene view that owns a cart, provides it and a value, and shows `n`.
    static let scene: Scene = {
        guard case .object(var json) = Scene.defaultJSON else { preconditionFailure("the default scene is an object") }
        json["views"] = [
            [
                "parent": "/App", "name": "Shop", "state": ["n": 1], "stateObjects": ["cart": ["type": "Cart"]],
                "provide": ["environmentObjects": ["cart"], "environment": ["colorScheme": "dark"]], "body": ["n = {n}"],
            ]
        ]
        do { return try Scene(json: .object(json)) } catch { preconditionFailure("\(error)") }
    }()

    /// What a graph holds, without what only counts time (versions, evaluation counts): each
    /// view's snapshot by path, and each object's every stored value (secure ones too) by name.
    private func state(of graph: Graph) throws -> [String: JSON] {
        var state: [String: JSON] = [:]
        for path in graph.viewPaths { state[path] = Self.timeless(try graph.get(path).wire) }
        for (name, record) in graph.objectsByName { state[name] = .array(Array(record.values.prefix(record.type.storedCount))) }
        return state
    }

    private static func timeless(_ json: JSON) -> JSON {
        guard case .object(var object) = json else { return json }
        for key in ["version", "evaluations", "lastEvaluated"] { object[key] = nil }
        return .object(object)
    }

    @Test func aResetLeavesWhatAFreshGraphOfTheSceneHolds() throws {
        let graph = try makeGraph(scene: Self.scene)
        let start = try state(of: graph)
        // A client's views, retained or not, one under the scene's view; writes; what /App provides.
        try graph.mount(["parent": "/App", "name": "Mine", "state": ["k": 0]], owner: ConnectionID(7))
        try graph.mount(["parent": "/App", "name": "Kept", "retain": true, "stateObjects": ["vm": ["type": "LoginViewModel"]]])
        try graph.mount(["parent": "/App/Shop", "name": "Under", "state": ["u": 0]], owner: ConnectionID(7))
        try graph.set("/App/Shop.n", 5)
        try graph.call("/App/Shop.cart.add", ["apple"])
        try graph.set("login.email", "kim@example.com")
        try graph.set("login.password", "hunter22")
        try graph.set("theme.colorScheme", "dark")
        try graph.provide("/App/Shop", environment: ["colorScheme": "light"], withdraw: ["Cart"])
        try graph.provide("/App", environment: ["colorScheme": "dark"])
        #expect(try state(of: graph) != start)

        let plan = try graph.resetPlan()
        #expect(plan.unmounted == ["/App/Shop/Under", "/App/Mine", "/App/Kept"])
        #expect(Set(plan.provided) == ["/App", "/App/Shop"])
        #expect(
            Set(plan.written) == [
                "/App.theme.colorScheme", "/App.login.email", "/App.login.password", "/App.session.token", "/App/Shop.n",
                "/App/Shop.cart.items",
            ])
        let commit = try graph.apply(plan.operations).commit
        #expect(!commit.isEmpty)
        var after = try state(of: graph)
        // Objects made since (Kept's view model, now gone) are not in a fresh graph, nor alive here.
        #expect(after.keys.filter { $0.hasPrefix("LoginViewModel#") }.isEmpty)
        after = after.filter { start[$0.key] != nil || !$0.key.contains("#") }
        #expect(after == start)
        // A second reset has nothing to undo but the secure values, which it sets back whatever they are.
        let again = try graph.resetPlan()
        #expect(again.unmounted.isEmpty && again.remounted.isEmpty && again.provided.isEmpty)
        #expect(Set(again.written) == ["/App.login.password", "/App.session.token"])
    }

    /// Issue #26.11: what a reset says it writes must not tell whether a secret still has its start value.
    @Test func aResetListsASecureValueWhetherOrNotItChanged() throws {
        let graph = try makeGraph()
        let untouched = try graph.resetPlan().written
        try graph.set("login.password", "hunter22")
        #expect(try graph.resetPlan().written == untouched)
        #expect(untouched.contains("/App.login.password"))
    }

    @Test func aSceneViewAClientUnmountedIsMountedAgain() throws {
        let graph = try makeGraph(scene: Self.scene)
        try graph.unmount("/App/Shop")
        let plan = try graph.resetPlan()
        #expect(plan.remounted == ["/App/Shop"])
        _ = try graph.apply(plan.operations)
        #expect(try graph.get("/App/Shop.n").wire == .int(1))
        #expect(try graph.get("/App/Shop").wire["body"] == ["n = 1"])
    }

    @Test func aResetOfAnUntouchedGraphOnlySetsTheSecureValuesBack() throws {
        for graph in [try makeGraph(scene: Self.scene), try makeGraph()] {
            let plan = try graph.resetPlan()
            #expect(plan.unmounted.isEmpty && plan.remounted.isEmpty && plan.provided.isEmpty)
            #expect(Set(plan.written) == ["/App.login.password", "/App.session.token"])
        }
    }
}
