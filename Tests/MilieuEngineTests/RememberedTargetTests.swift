import MilieuJSON
import MilieuProtocol
import Testing

@testable import MilieuEngine

/// A `graph/set` of the path written last reuses the place it found (`RememberedTarget`): each
/// test writes one path, changes what the path names, and writes the very same path again, which
/// must land where a first write would, or fail as one would.
@Suite struct RememberedTargetTests {
    @Test func aWriteAfterTheVariableHoldsAnotherObjectLandsOnTheNewOne() throws {
        let graph = try makeGraph()
        let old = try #require(graph.mount(ReplacedStateObjectTests.screen()).view?.objects.first?.object)
        let path = "/App/Screen.vm.count"
        try graph.set(path, 3)
        try graph.tap("/App/Screen", "reset")
        let new = try #require(graph.get("/App/Screen.vm").wire["object"]?.stringValue)
        #expect(new != old)
        let write = try graph.set(path, 5)
        #expect(try graph.get("/App/Screen.vm.count").wire == 5)
        #expect(write.propertyChanges == ["\(new).count": 5])
    }

    @Test func aWriteAfterTheViewIsMountedAgainLandsInTheNewView() throws {
        let graph = try makeGraph()
        let view: JSON = ["parent": "/App", "name": "V", "state": ["n": 0], "body": ["{n}"]]
        try graph.mount(view)
        let path = "/App/V.n"
        try graph.set(path, 1)
        try graph.unmount("/App/V")
        let gone = expectError(.unknownPath) { try graph.set(path, 2) }
        #expect(gone?.message.contains("no view is mounted at /App/V") == true)
        try graph.mount(view)
        let write = try graph.set(path, 3)
        #expect(try graph.get(path).wire == 3)
        #expect(write.propertyChanges == ["/App/V.n": 3])
        #expect(write.body(of: "/App/V") == ["3"])
    }

    /// A target reached through another object's reference is found again each time: the
    /// reference may have moved between two writes of the same path. Here a failed transaction
    /// finds the path while the reference points elsewhere, and its rollback moves it back.
    @Test func aWriteThroughAReferenceFollowsTheReferenceAsItIsNow() throws {
        let graph = try teamView(people: ["ann", "bo"])
        let (ann, bo) = (try object(in: graph, "ann"), try object(in: graph, "bo"))
        try graph.set("/App/V.team.manager", .string(ann))
        try writeAgainAfterARolledBackMove(graph, path: "/App/V.team.manager.name", reference: "/App/V.team.manager", to: .string(bo))
        #expect(try graph.get("/App/V.ann.name").wire == "kept")
        #expect(try graph.get("/App/V.bo.name").wire == "")
    }

    /// A path that stops at a reference holding no object names a member of null, and is found
    /// again once the reference holds one.
    @Test func aWriteThroughANullReferenceFollowsItOnceItIsSet() throws {
        let graph = try teamView(people: ["ann"])
        let ann = try object(in: graph, "ann")
        let path = "/App/V.team.manager.name"
        expectError(.unknownPath) { try graph.set(path, "nobody") }
        try graph.set("/App/V.team.manager", .string(ann))
        try writeAgainAfterARolledBackMove(graph, path: path, reference: "/App/V.team.manager", to: .null)
        #expect(try graph.get("/App/V.ann.name").wire == "kept")
    }

    /// A reference that leads back to the object the variable holds is still a reference: the
    /// path is found again after it moves.
    @Test func aWriteThroughAReferenceToItselfFollowsItWhenItMoves() throws {
        let graph = try makeGraph()
        try graph.register(
            ModelType(
                name: "Node", style: .observableObject,
                stored: [StoredProperty("name", .string), StoredProperty("next", .optional(.reference("Node")))]))
        try graph.mount(["parent": "/App", "name": "V", "stateObjects": ["a": ["type": "Node"], "b": ["type": "Node"]]])
        let (a, b) = (try object(in: graph, "a"), try object(in: graph, "b"))
        try graph.set("/App/V.a.next", .string(b))
        try writeAgainAfterARolledBackMove(graph, path: "/App/V.a.next.name", reference: "/App/V.a.next", to: .string(a))
        #expect(try graph.get("/App/V.b.name").wire == "kept")
        #expect(try graph.get("/App/V.a.name").wire == "")
    }

    /// Another path, even one naming the same view and variable, is not the one remembered.
    @Test func anotherPathIsFoundItsOwnWay() throws {
        let graph = try makeGraph()
        try graph.set("theme.accentColor", "red")
        let unknown = expectError(.unknownPath) { try graph.set("theme.accentColour", "blue") }
        #expect(unknown?.message.contains("has no property accentColour") == true)
        #expect(try graph.get("theme.accentColor").wire == "red")
    }

    /// `/App/V` holding a `Team` and a `Person` for each of `people`.
    private func teamView(people: [String]) throws -> Graph {
        let graph = try makeGraph()
        try graph.register(ObservableObjectTests.person)
        try graph.register(ObservableObjectTests.team)
        var objects: JSONObject = ["team": ["type": "Team"]]
        for name in people { objects[name] = ["type": "Person"] }
        try graph.mount(["parent": "/App", "name": "V", "stateObjects": .object(objects)])
        return graph
    }

    /// The name of the object `/App/V`'s `variable` holds.
    private func object(in graph: Graph, _ variable: String) throws -> String {
        try #require(graph.get("/App/V.\(variable)").wire["object"]?.stringValue)
    }

    /// Runs a transaction that points `reference` at `moved`, writes `path` ("lost") and fails, so
    /// that `path` is found while the reference points there and the rollback points it back;
    /// then writes `path` again ("kept"), which must land where the reference points now.
    private func writeAgainAfterARolledBackMove(_ graph: Graph, path: String, reference: String, to moved: JSON) throws {
        expectError(.unknownPath) {
            _ = try graph.apply([
                .set(path: reference, value: moved, ifVersion: nil),
                .set(path: path, value: "lost", ifVersion: nil),
                .set(path: "/App/V.nothing", value: 1, ifVersion: nil),
            ])
        }
        try graph.set(path, "kept")
    }
}
