import MilieuJSON
import MilieuProtocol
import Testing

@testable import MilieuEngine

/// `ObservableObject` as SwiftUI has it (rules 9, 19, 20): `@Published` announces every set,
/// a plain `var` announces nothing, `objectWillChange.send()` announces without a change, and a
/// holder does not hear a nested object.
@Suite struct ObservableObjectTests {
    /// An `ObservableObject` with one published and one plain property.
    static let form = ModelType(
        name: "Form", style: .observableObject,
        stored: [StoredProperty("title", .string), StoredProperty("draft", .string, published: false)])

    func graphHoldingAForm() throws -> Graph {
        let graph = try makeGraph()
        try graph.register(Self.form)
        try graph.mount(["parent": "/App", "name": "V", "stateObjects": ["form": ["type": "Form"]], "body": ["{form.title} {form.draft}"]])
        return graph
    }

    @Test func settingAPublishedPropertyToItsValueStillRerendersEveryHolder() throws {
        let graph = try graphHoldingAForm()
        let before = graph.version
        let same = try graph.set("/App/V.form.title", "")
        #expect(same.updates == ["/App/V": ["_form"]])
        #expect(same.version == before.next)
        #expect(same.propertyChanges["Form#4.title"] == .some(""))
        #expect(try graph.get("/App/V.form").wire["version"] == .int(before.next.rawValue))
    }

    @Test func aPlainVarChangesSilentlyAndShowsAtTheNextPublishedChange() throws {
        let graph = try graphHoldingAForm()
        let silent = try graph.set("/App/V.form.draft", "notes")
        #expect(silent.updates.isEmpty)
        #expect(silent.propertyChanges["Form#4.draft"] == .some("notes"))
        #expect(try graph.get("/App/V.form.draft").wire == "notes")
        let announced = try graph.set("/App/V.form.title", "Plan")
        #expect(announced.updates == ["/App/V": ["_form"]])
        #expect(announced.body(of: "/App/V") == ["Plan notes"])
    }

    @Test func objectWillChangeSendRerendersEveryHolderWithoutAChange() throws {
        let graph = try graphHoldingAForm()
        try graph.set("/App/V.form.draft", "notes")
        let sent = try graph.call("/App/V.form.objectWillChange.send")
        #expect(sent.updates == ["/App/V": ["_form"]])
        #expect(sent.propertyChanges.isEmpty)
        #expect(sent.body(of: "/App/V") == [" notes"])
    }

    /// With no subscriber, `objectWillChange.send()` reaches nobody: no version, for the graph or
    /// the object (it once gave the object a version no commit took).
    @Test func objectWillChangeSendThatReachesNobodyChangesNothing() throws {
        let graph = try makeGraph()
        let (view, _) = try graph.mount(["parent": "/App", "name": "V", "state": ["box": ["$new": ["type": "CounterObject"]]]])
        let box = try #require(view?.objects.first?.object)
        let (version, objectVersion) = (graph.version, try graph.get(box).wire["version"])
        let sent = try graph.call("/App/V.box.objectWillChange.send")
        #expect(sent.isEmpty && sent.version == version && graph.version == version)
        #expect(try graph.get(box).wire["version"] == objectVersion)
    }

    @Test func anObservableTypeHasNoObjectWillChange() throws {
        let graph = try makeGraph()
        let error = expectError(.unknownAction) { try graph.call("session.objectWillChange.send") }
        #expect(error?.message.contains("@Observable") == true)
    }

    /// Two `ObservableObject`s, one referring to the other.
    static let person = ModelType(name: "Person", style: .observableObject, stored: [StoredProperty("name", .string)])
    static let team = ModelType(
        name: "Team", style: .observableObject, stored: [StoredProperty("manager", .optional(.reference("Person")))])

    @Test func aReferenceContinuesIntoTheObjectItRefersTo() throws {
        let graph = try makeGraph()
        try graph.register(Self.person)
        try graph.register(Self.team)
        try graph.mount([
            "parent": "/App", "name": "V", "stateObjects": ["team": ["type": "Team"], "person": ["type": "Person"]],
            "body": ["{person.name}"],
        ])
        #expect(try graph.get("/App/V.team.manager").wire == .null)
        #expect(try graph.get("/App/V.team.manager.name").wire == .null)
        let person = try #require(graph.get("/App/V.person").wire["object"]?.stringValue)
        try graph.set("/App/V.person.name", "Ann")
        try graph.set("/App/V.team.manager", .string(person))
        #expect(try graph.get("/App/V.team.manager.name").wire == "Ann")
        // The reference property itself is a property: its value is the object id (SPEC §9.4), and
        // a watch of it watches that property, not the object it refers to (§11.1).
        #expect(try graph.get("/App/V.team.manager").wire == .string(person))
        let team = try #require(graph.get("/App/V.team").wire["object"]?.stringValue)
        #expect(try graph.watchTarget("/App/V.team.manager") == .property(object: team, property: "manager"))
        #expect(try graph.watchTarget("/App/V.team.manager.name") == .property(object: person, property: "name"))
        let wrongType = expectError(.typeMismatch) { try graph.set("/App/V.team.manager", .string(team)) }
        #expect(wrongType?.data["actual"] == "string", "the JSON type met (SPEC §5.4)")
        #expect(wrongType?.message.contains("\(team), a Team") == true)
        // The nested-object pitfall: a view holding only the team does not hear the person change.
        let child = try graph.mount([
            "parent": "/App/V", "name": "TeamCard", "observedObjects": ["team": ["$parent": "team"]],
            "body": ["{team.manager.name}"],
        ])
        #expect(child.commit.body(of: "/App/V/TeamCard") == ["Ann"])
        let write = try graph.set("/App/V/TeamCard.team.manager.name", "Bo")
        #expect(try graph.get("/App/V.person.name").wire == "Bo")
        #expect(write.updates == ["/App/V": ["_person"]])
        #expect(try graph.tree("/App/V/TeamCard").wire["body"] == ["Ann"])
    }

    // MARK: Nested objects: made with their holder, and forwarding (#28 item 7)

    /// `class Outer: ObservableObject { @Published var inner = Inner() }`, and with `forwards` the
    /// standard fix: `inner.objectWillChange.sink { self.objectWillChange.send() }`.
    private func registerNested(_ graph: Graph, forwards: Bool) throws {
        _ = try graph.register(declaration: ["name": "Inner", "style": "observableObject", "properties": ["count": ["type": "int"]]])
        var inner: JSONObject = ["type": "@Inner", "default": ["$new": ["type": "Inner"]]]
        if forwards { inner["forwards"] = true }
        _ = try graph.register(declaration: ["name": "Outer", "style": "observableObject", "properties": ["inner": .object(inner)]])
    }

    @Test func anObjectAPropertyMakesIsMadeWithItsHolderAndGoesWithIt() throws {
        let graph = try makeGraph()
        try registerNested(graph, forwards: false)
        let (_, mounted) = try graph.mount(["parent": "/App", "name": "Screen", "stateObjects": ["outer": ["type": "Outer"]]])
        #expect(mounted.created.map(\.reason) == ["stateObject", "stateObject"])
        let inner = try #require(graph.get("/App/Screen.outer.inner").wire.stringValue)
        #expect(try graph.get("/App/Screen.outer.inner.count").wire == 0)
        #expect(graph.objectsByName[inner]?.owner == "/App/Screen.outer.inner")
        let unmounted = try graph.unmount("/App/Screen")
        #expect(unmounted.destroyed.map(\.reason) == ["ownerUnmounted", "ownerUnmounted"])
        #expect(graph.objectsByName[inner] == nil)
    }

    @Test func withoutForwardingTheHolderMissesItsNestedObjectsChange() throws {
        let graph = try makeGraph()
        try registerNested(graph, forwards: false)
        try graph.mount(["parent": "/App", "name": "Screen", "stateObjects": ["outer": ["type": "Outer"]], "body": ["{outer.inner.count}"]])
        let missed = try graph.set("/App/Screen.outer.inner.count", 1)
        #expect(missed.updates.isEmpty, "rule 20's pitfall")
    }

    @Test func aForwardingPropertyReRendersTheHolderWhenItsObjectAnnounces() throws {
        let graph = try makeGraph()
        try registerNested(graph, forwards: true)
        try graph.mount(["parent": "/App", "name": "Screen", "stateObjects": ["outer": ["type": "Outer"]], "body": ["{outer.inner.count}"]])
        let outerVersion = try #require(graph.get("/App/Screen.outer").wire["version"])
        let described = try #require(graph.typeDescriptions().first { $0.name == "Outer" }?.properties.first)
        #expect(described.makes == "Inner" && described.forwards && described.defaultValue == nil)
        let forwarded = try graph.set("/App/Screen.outer.inner.count", 1)
        #expect(forwarded.updates == ["/App/Screen": ["_outer"]])
        #expect(forwarded.body(of: "/App/Screen") == ["1"])
        #expect(try graph.get("/App/Screen.outer").wire["version"] != outerVersion, "the holder announced: a new version")
        let sent = try graph.call("/App/Screen.outer.inner.objectWillChange.send")
        #expect(sent.updates == ["/App/Screen": ["_outer"]])
    }

    /// `Screen` showing `outer.inner.count`, with the `Inner` its `Outer` made and a spare one:
    /// the made one's name and the spare's id.
    private func screenWithASpareInner() throws -> (graph: Graph, made: String, spare: JSON) {
        let graph = try makeGraph()
        try registerNested(graph, forwards: true)
        try graph.mount([
            "parent": "/App", "name": "Screen", "stateObjects": ["outer": ["type": "Outer"], "spare": ["type": "Inner"]],
            "body": ["{outer.inner.count}"],
        ])
        let made = try #require(graph.get("/App/Screen.outer.inner").wire.stringValue)
        let spare = try #require(graph.get("/App/Screen.spare").wire["object"])
        return (graph, made, spare)
    }

    /// Another object put in the property: the one it made goes (`replaced`), and forwarding
    /// follows what the property holds.
    @Test func replacingTheMadeObjectReleasesItAndForwardingFollowsTheNewOne() throws {
        let (graph, made, spare) = try screenWithASpareInner()
        let swapped = try graph.set("/App/Screen.outer.inner", spare)
        #expect(swapped.destroyed.map(\.object) == [made] && swapped.destroyed.map(\.reason) == ["replaced"])
        let forwarded = try graph.set("/App/Screen.spare.count", 5)
        #expect(forwarded.updates["/App/Screen"]?.contains("_outer") == true)
        #expect(forwarded.body(of: "/App/Screen") == ["5"])
    }

    /// The same swap and write in a transaction that then fails: the undo steps bring back the
    /// made object, its holders and the forwarding, and the rollback the property's value, so
    /// the graph is as it was and the made object still forwards to its holder.
    @Test func aFailedSwapOfTheMadeObjectLeavesItAndItsForwardingAsTheyWere() throws {
        let (graph, made, spare) = try screenWithASpareInner()
        let before = try graph.fingerprint()
        expectError(.unknownPath) {
            _ = try graph.apply([
                .set(path: "/App/Screen.outer.inner", value: spare, ifVersion: nil),
                .set(path: "/App/Screen.spare.count", value: 5, ifVersion: nil),
                .set(path: "/App/Screen.nothing", value: 1, ifVersion: nil),
            ])
        }
        #expect(try graph.fingerprint() == before)
        #expect(try graph.get("/App/Screen.outer.inner").wire == .string(made))
        let forwarded = try graph.set("/App/Screen.outer.inner.count", 2)
        #expect(forwarded.updates == ["/App/Screen": ["_outer"]])
        #expect(forwarded.body(of: "/App/Screen") == ["2"])
    }

    @Test func badNestedDeclarationsAreRefused() throws {
        let graph = try makeGraph()
        _ = try graph.register(declaration: ["name": "Inner", "style": "observableObject", "properties": ["count": ["type": "int"]]])
        let wrongType = expectError(.invalidDeclaration) {
            _ = try graph.register(declaration: [
                "name": "A", "style": "observableObject", "properties": ["x": ["type": "@Inner", "default": ["$new": ["type": "Cart"]]]],
            ])
        }
        #expect(wrongType?.data["field"] == "properties.x.default")
        let observable = expectError(.invalidDeclaration) {
            _ = try graph.register(declaration: [
                "name": "B", "style": "observable", "properties": ["x": ["type": "@Inner?", "forwards": true]],
            ])
        }
        #expect(observable?.data["field"] == "properties.x.forwards")
        _ = try graph.register(declaration: [
            "name": "Loop", "style": "observableObject", "properties": ["next": ["type": "@Loop", "default": ["$new": ["type": "Loop"]]]],
        ])
        let before = try graph.fingerprint()
        let endless = expectError(.limitExceeded) {
            try graph.mount(["parent": "/App", "name": "V", "stateObjects": ["l": ["type": "Loop"]]])
        }
        #expect(endless?.data["limit"] == "madeObjects")
        #expect(try graph.fingerprint() == before)
    }
}
