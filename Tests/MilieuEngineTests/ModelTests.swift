import MilieuJSON
import MilieuProtocol
import Testing

@testable import MilieuEngine

/// Types declared in JSON or Swift, key paths, snapshots and the tree.
@Suite struct ModelTests {
    @Test func jsonDeclaredTypeGetsDefaultsValidationAndSecrecy() throws {
        let graph = try makeGraph()
        let name = try graph.register(declaration: [
            "name": "Profile", "style": "observableObject",
            "properties": [
                "name": ["type": "string", "default": "anon"], "age": ["type": "int", "min": 0, "max": 150],
                "role": ["type": "string", "oneOf": ["user", "admin"]],
                "pin": ["type": "string", "secure": true, "pattern": "[0-9]{4}", "default": "0000"],
                "tags": ["type": "[string]"], "nick": ["type": "string?"],
                "address": ["type": ["record": ["city": "string", "zip": "string"]]],
            ],
        ])
        #expect(name == "Profile")
        try graph.mount(["parent": "/App", "name": "P", "state": ["profile": ["$new": ["type": "Profile"]]]])
        let snapshot = try graph.get("/App/P.profile").wire
        #expect(
            snapshot["values"] == [
                "name": "anon", "age": 0, "role": "user", "tags": [], "nick": .null, "address": ["city": "", "zip": ""],
            ])
        #expect(snapshot["redacted"] == ["pin"])
        try graph.set("/App/P.profile.pin", "1234")
        expectError(.invalidValue) { try graph.set("/App/P.profile.pin", "12a4") }
        expectError(.invalidValue) { try graph.set("/App/P.profile.age", 151) }
        expectError(.invalidValue) { try graph.set("/App/P.profile.role", "root") }
        expectError(.typeMismatch) { try graph.set("/App/P.profile.address", ["city": "Seoul"]) }
        try graph.set("/App/P.profile.address.city", "Seoul")
        #expect(try graph.get("/App/P.profile.address").wire == ["city": "Seoul", "zip": ""])
        let described = graph.typeDescriptions().first { $0.name == "Profile" }
        #expect(described?.style == "observableObject")
        let pin = described?.properties.first { $0.name == "pin" }
        #expect(pin?.secure == true)
        #expect(pin?.wire["default"] == nil)
    }

    @Test func swiftTypesRegisterThroughModelDeclaring() throws {
        enum Thermostat: ModelDeclaring {
            static let modelType = ModelType(
                name: "Thermostat", style: .observable, stored: [StoredProperty("celsius", .double, default: 20)],
                computed: [ComputedProperty("fahrenheit", .double) { .double(($0["celsius"].numberValue ?? 0) * 9 / 5 + 32) }])
        }
        var registry = TypeRegistry()
        try registry.register(Thermostat.self)
        #expect(registry["Thermostat"]?.model.computed.count == 1)
        let graph = try makeGraph()
        try graph.register(Thermostat.modelType)
        try graph.mount(["parent": "/App", "name": "T", "state": ["t": ["$new": ["type": "Thermostat"]]], "body": ["{t.fahrenheit}"]])
        let commit = try graph.set("/App/T.t.celsius", 100)
        #expect(commit.body(of: "/App/T") == ["212.0"])
    }

    @Test func aParentPathIsFoundHoweverItsIDIsSpelled() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "Row", "id": "a b"])
        let (result, _) = try graph.mount(["parent": "/App/Row[ \"a b\" ]", "name": "Cell"])
        #expect(result?.path == "/App/Row[\"a b\"]/Cell")
        expectError(.unknownPath) { try graph.mount(["parent": "/App/Row[\"a c\"]", "name": "Cell"]) }
        expectError(.unknownPath) { try graph.mount(["parent": "/App/Row[\"a b\"", "name": "Cell"]) }
    }

    @Test(arguments: [
        (JSON.int(0), "0"), (.int(7), "7"), (.int(10), "10"), (.int(-7), "-7"), (.int(-10), "-10"),
        (.int(Int.max), "9223372036854775807"), (.int(Int.min), "-9223372036854775808"),
        (.string("a b"), "\"a b\""), (.bool(true), "true"),
    ])
    func aViewPathSpellsItsIDAsJSON(_ id: JSON, _ spelled: String) throws {
        let graph = try makeGraph()
        let (result, _) = try graph.mount(["parent": "/App", "name": "Row", "id": id])
        #expect(result?.path == "/App/Row[\(spelled)]")
        #expect(graph.viewPaths.contains("/App/Row[\(spelled)]"))
    }

    @Test func aChildGoesUnderTheParentMountedNowNotOneThatWasAtThatPathBefore() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "List", "state": ["title": "old"]])
        try graph.mount(["parent": "/App/List", "name": "Row", "id": 1, "inputs": ["title": ["$parent": "title"]], "body": ["{title}"]])
        try graph.unmount("/App/List")
        expectError(.unknownPath) { try graph.mount(["parent": "/App/List", "name": "Row", "id": 2]) }
        try graph.mount(["parent": "/App", "name": "List", "state": ["title": "new"]])
        let (view, _) = try graph.mount(
            ["parent": "/App/List", "name": "Row", "id": 1, "inputs": ["title": ["$parent": "title"]], "body": ["{title}"]])
        #expect(view?.body == ["new"])
        let commit = try graph.set("/App/List.title", "newer")
        #expect(commit.body(of: "/App/List/Row[1]") == ["newer"])
    }

    /// Writes find their view by path, remembering the last one (`ViewsByPath.find`): a write
    /// through an unmounted view's binding must not reach the parent's state. (A write of the
    /// view's own `@State` would fail anyway: the view is looked up again by its serial.)
    @Test func anUnmountedViewsBindingIsNotWrittenThrough() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "List", "state": ["title": "a"], "body": ["{title}"]])
        try graph.mount(["parent": "/App/List", "name": "Field", "bindings": ["text": ["$parent": "title"]]])
        try graph.set("/App/List/Field.text", "b")
        try graph.unmount("/App/List/Field")
        expectError(.unknownPath) { try graph.set("/App/List/Field.text", "c") }
        #expect(try graph.get("/App/List.title").wire == "b")
    }

    @Test func keyPathsReachPropertiesStateBindingsObjectsAndMembers() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "V", "id": "a.b/c]", "state": ["list": [1, ["k": "v"]]]])
        let path = "/App/V[\"a.b/c]\"]"
        #expect(graph.viewPaths.contains(path))
        #expect(try graph.get("\(path).list.1.k").wire == "v")
        #expect(try graph.get("\(path).list.5").wire == .null)
        try graph.set("\(path).list.0", 9)
        #expect(try graph.get("\(path).list").wire == [9, ["k": "v"]])
        #expect(try graph.get("Login#3.email").wire == "")
        #expect(try graph.get("login").wire["object"] == "Login#3")
        #expect(try graph.get(path).wire["state"] == ["list": [9, ["k": "v"]]])
        expectError(.unknownPath) { try graph.set("\(path).list.7", 1) }
        expectError(.unknownPath) { _ = try graph.get("/App/V[unclosed").wire }
    }

    /// A view id whose text begins with a combining mark: after the opening quote of the id, the
    /// mark and the quote make one Character, but the quote still opens the id's string.
    @Test func aViewIdThatBeginsWithACombiningMarkIsReachedByItsPath() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "V", "id": "\u{301}x]", "state": ["n": 1]])
        let path = "/App/V[\"\u{301}x]\"]"
        #expect(graph.viewPaths.contains(path))
        #expect(try graph.get("\(path).n").wire == 1)
        try graph.set("\(path).n", 2)
        #expect(try graph.get(path).wire["state"] == ["n": 2])
    }

    @Test func watchTargetsResolveThroughBindingsToTheirSource() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "P", "state": ["on": false], "environment": ["login": ["type": "Login"]]])
        try graph.mount(["parent": "/App/P", "name": "C", "bindings": ["on": ["$parent": "on"], "email": ["$parent": "login.email"]]])
        #expect(try graph.watchTarget("/App/P/C.on") == .state(view: "/App/P", variable: "on"))
        #expect(try graph.watchTarget("/App/P/C.email") == .property(object: "Login#3", property: "email"))
        #expect(try graph.watchTarget("login") == .object("Login#3"))
        #expect(try graph.watchTarget("login.isValidEmail") == .property(object: "Login#3", property: "isValidEmail"))
        #expect(try graph.watchTarget("/App/P") == .view("/App/P"))
    }

    @Test func treeShowsWrappersProvidesObjectsAndBodies() throws {
        let graph = try makeGraph()
        try graph.mount([
            "parent": "/App", "name": "Screen", "state": ["on": true], "stateObjects": ["cart": ["type": "Cart"]],
            "provide": ["environmentObjects": ["cart"], "environment": ["colorScheme": "dark"]], "body": ["on={on}"],
        ])
        try graph.mount([
            "parent": "/App/Screen", "name": "Row", "bindings": ["on": ["$parent": "on"]], "environmentObjects": ["cart": "Cart"],
            "environment": ["colorScheme"],
        ])
        let tree = try graph.tree().wire
        #expect(tree["path"] == "/App")
        #expect(tree["provides"]?["observables"] == ["Login": "Login#3", "Session": "Session#1", "Theme": "Theme#2"])
        #expect(tree["provides"]?["environmentObjects"] == [:])
        #expect(tree["objects"]?["login"] == ["object": "Login#3", "type": "Login", "wrapper": "state"])
        let screen = tree["children"]?.arrayValue?.first
        #expect(screen?["body"] == ["on=true"])
        #expect(screen?["objects"] == ["cart": ["object": "Cart#4", "type": "Cart", "wrapper": "stateObject"]])
        #expect(screen?["provides"]?["environment"] == ["colorScheme": "dark"])
        let row = screen?["children"]?.arrayValue?.first
        #expect(row?["bindings"] == ["on": ["source": "/App/Screen.on", "value": true]])
        #expect(row?["objects"]?["cart"]?["wrapper"] == "environmentObject")
        #expect(row?["environment"] == ["colorScheme": "dark"])
    }

    @Test func mountInsideATransactionIsEvaluatedOnceWithTheFinalValues() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "P", "state": ["n": 1], "body": ["{n}"]])
        let (results, commit) = try graph.apply([
            .mount(declaration: ["parent": "/App/P", "name": "C", "inputs": ["n": ["$parent": "n"]], "body": ["{n}"]], owner: nil),
            .set(path: "/App/P.n", value: 2, ifVersion: nil),
        ])
        #expect(results[0].mountedView?.body == ["2"])
        #expect(commit.changes.contains(.viewMounted(view: "/App/P/C", reason: .mounted, body: ["2"])))
        #expect(commit.updates["/App/P/C"] == nil)
    }
}
