import MilieuJSON
import MilieuProtocol
import Testing

@testable import MilieuEngine

/// What a commit keeps to explain itself (`graph/explain`): each view queued, with its reason
/// and what the engine saw give it.
@Suite struct ExplanationTests {
    @Test func aFineGrainedReadNamesTheProperty() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "Greeting", "environment": ["login": ["type": "Login"]], "body": ["{login.email}"]])
        let login = try #require(graph.get("login").wire["object"]?.stringValue)
        try graph.set("login.email", "a@example.com")
        let commit = try graph.set("login.email", "b@example.com")
        #expect(
            commit.invalidations == [
                Invalidation(view: "/App/Greeting", reason: "login.email", source: .attribute(.property(object: login, property: "email")))
            ])
    }

    @Test func aChildReRenderedByItsParentNamesTheParent() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "Parent", "state": ["n": 1], "body": ["{n}"]])
        try graph.mount(["parent": "/App/Parent", "name": "Child", "inputs": ["n": ["$parent": "n"]], "body": ["{n}"]])
        let commit = try graph.set("/App/Parent.n", 2)
        #expect(
            commit.invalidations == [
                Invalidation(view: "/App/Parent", reason: "_n", source: .attribute(.state(view: "/App/Parent", variable: "n"))),
                Invalidation(view: "/App/Parent/Child", reason: "@self", source: .parent("/App/Parent")),
            ])
    }

    @Test func anObservableObjectHolderIsQueuedByObjectWillChange() throws {
        let graph = try makeGraph()
        let mounted = try graph.mount(["parent": "/App", "name": "Shop", "stateObjects": ["cart": ["type": "Cart"]]])
        let cart = try #require(mounted.view?.objects.first?.object)
        let commit = try graph.call("/App/Shop.cart.add", ["apple"])
        #expect(
            commit.invalidations == [
                Invalidation(view: "/App/Shop", reason: "_cart", source: .attribute(.object(object: cart, type: "Cart")))
            ])
    }

    @Test func aChangeOfWhatAViewProvidesNamesTheProvider() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "Box"])
        try graph.mount(["parent": "/App/Box", "name": "Label", "environment": ["colorScheme"], "body": ["{colorScheme}"]])
        let commit = try graph.provide("/App/Box", environment: ["colorScheme": "dark"])
        #expect(
            commit.invalidations == [
                Invalidation(view: "/App/Box/Label", reason: "env.colorScheme", source: .provider("/App/Box"))
            ])
    }

    @Test func aWriteNobodyReadsQueuesNoView() throws {
        let graph = try makeGraph()
        let commit = try graph.set("theme.accentColor", "red")
        #expect(commit.invalidations.isEmpty)
    }
}
