import MilieuJSON
import MilieuProtocol
import Testing

@testable import MilieuEngine

/// SwiftUI keeps its two observation systems apart (rules 16–18, 20): `ObservableObject` with
/// `@StateObject`/`@ObservedObject`/`@EnvironmentObject`, `@Observable` with `@State`, plain
/// inputs, `@Bindable` and `@Environment(T.self)`.
@Suite struct ObservationSystemsTests {
    // MARK: Rule 16 — each wrapper takes its own kind of type

    @Test(arguments: [
        (["stateObjects": ["s": ["type": "Session"]]] as JSON, "stateObjects.s", "own it with @State"),
        (["observedObjects": ["s": ["construct": "Session"]]] as JSON, "observedObjects.s", "pass it as a plain input"),
        (["environmentObjects": ["s": "Session"]] as JSON, "environmentObjects.s", "@Environment(Session.self)"),
        (["environment": ["c": ["type": "Cart"]]] as JSON, "environment.c", "read it with @EnvironmentObject"),
    ])
    func theWrongWrapperIsRefusedNamingTheRightOne(wrappers: JSON, field: String, hint: String) throws {
        let graph = try makeGraph()
        try graph.mount([
            "parent": "/App", "name": "Shop", "stateObjects": ["cart": ["type": "Cart"]], "provide": ["environmentObjects": ["cart"]],
        ])
        let before = try graph.fingerprint()
        var declaration: JSONObject = ["parent": "/App/Shop", "name": "V"]
        for (key, value) in wrappers.objectValue ?? [:] { declaration[key] = value }
        let error = expectError(.invalidDeclaration) { try graph.mount(.object(declaration)) }
        #expect(error?.data["field"] == .string(field))
        #expect(error?.message.contains(hint) == true, "\(error?.message ?? "")")
        #expect(try graph.fingerprint() == before)
    }

    @Test func passingAnObservableObjectToObservedObjectsIsRefused() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "P", "state": ["counter": ["$new": ["type": "Counter"]]]])
        let error = expectError(.invalidDeclaration) {
            try graph.mount(["parent": "/App/P", "name": "C", "observedObjects": ["counter": ["$parent": "counter"]]])
        }
        #expect(error?.message.contains("@Bindable") == true)
    }

    @Test func eachObjectGoesInTheSlotOfItsKind() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "Shop", "stateObjects": ["cart": ["type": "Cart"]]])
        expectError(.invalidDeclaration) { try graph.provide("/App/Shop", observables: ["cart"]) }
        expectError(.invalidDeclaration) { try graph.provide("/App", objects: ["session"]) }
        let error = expectError(.invalidDeclaration) {
            try graph.mount([
                "parent": "/App", "name": "Bad", "state": ["s": ["$new": ["type": "Session"]]], "provide": ["environmentObjects": ["s"]],
            ])
        }
        #expect(error?.message.contains("\"observables\"") == true)
    }

    // MARK: Rule 17 — @Environment(T.self)

    @Test func anOptionalObservableReadsNullAndRerendersWhenAProviderAppears() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "Settings", "state": ["prefs": ["$new": ["type": "Theme"]]]])
        let (mounted, _) = try graph.mount([
            "parent": "/App/Settings", "name": "Pane", "environment": ["p": ["type": "Theme", "optional": true]],
            "body": ["scheme: {p.colorScheme}"],
        ])
        #expect(mounted?.body == ["scheme: light"])  // /App provides the app's theme
        try graph.provide("/App", withdraw: ["Theme"])
        #expect(try graph.tree("/App/Settings/Pane").wire["body"] == ["scheme: null"])
        let appears = try graph.provide("/App/Settings", observables: ["prefs"])
        #expect(appears.updates["/App/Settings/Pane"] == ["_p"])
        #expect(appears.body(of: "/App/Settings/Pane") == ["scheme: light"])
        #expect(try graph.tree("/App/Settings").wire["provides"]?["observables"] == ["Theme": "Theme#4"])
        #expect(try graph.set("/App/Settings.prefs.colorScheme", "dark").updates["/App/Settings/Pane"] == ["p.colorScheme"])
    }

    @Test func aRequiredObservableNobodyProvidesFailsWithSwiftUIsText() throws {
        let graph = try makeGraph()
        let error = expectError(.environmentObjectMissing) {
            try graph.mount(["parent": "/App", "name": "Pane", "environment": ["p": ["type": "NewObservable"]]])
        }
        #expect(
            error?.message
                == "No Observable object of type NewObservable found. A View.environmentObject(_:) for NewObservable may be missing as an ancestor of this view."
        )
        #expect(error?.data["hint"]?.stringValue?.contains("\"observables\"") == true)
    }

    // MARK: Rule 18 — @State holding an object

    @Test func stateNewMakesAnInstanceAtEveryParentEvaluationAndKeepsTheFirst() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "Parent", "state": ["n": 1], "body": ["{n}"]])
        let (_, mount) = try graph.mount([
            "parent": "/App/Parent", "name": "Child", "inputs": ["n": ["$parent": "n"]],
            "state": ["vm": ["$new": ["type": "ViewModel", "init": ["num": ["$input": "n"]]]]], "body": ["{vm.num}"],
        ])
        #expect(mount.created.map(\.reason) == ["state"])
        #expect(mount.created.first?.owner == "/App/Parent/Child.vm")
        let kept = try #require(mount.created.first?.object)
        let rerender = try graph.set("/App/Parent.n", 2)
        #expect(rerender.created.map(\.reason) == ["stateInitial"])
        #expect(rerender.created.first?.owner == "/App/Parent/Child.vm")
        #expect(rerender.destroyed.map(\.reason) == ["discarded"])
        #expect(rerender.destroyed.first?.object == rerender.created.first?.object)
        #expect(try graph.get("/App/Parent/Child.vm").wire["object"] == .string(kept))
        #expect(try graph.get("/App/Parent/Child.vm.num").wire == 1)
        // An ObservableObject held by @State is not observed: SwiftUI subscribes only through its wrappers.
        #expect(try graph.set("/App/Parent/Child.vm.num", 5).updates["/App/Parent/Child"] == nil)
        #expect(try graph.unmount("/App/Parent/Child").destroyed.map(\.reason) == ["ownerUnmounted"])
    }

    @Test func stateNewInTheRootIsMadeForTheApp() throws {
        let graph = try makeGraph()
        #expect(try graph.get("/App.session").wire["owner"] == "/App.session")
        #expect(try graph.tree().wire["objects"]?["session"]?["wrapper"] == "state")
    }

    @Test func newInAnInputIsConstructedAtEveryParentEvaluation() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "Parent", "state": ["n": 1], "body": ["{n}"]])
        let (_, mount) = try graph.mount([
            "parent": "/App/Parent", "name": "Row", "inputs": ["model": ["$new": ["type": "Counter", "init": ["count": 3]]]],
            "body": ["{model.count}"],
        ])
        #expect(mount.created.map(\.reason) == ["construct"])
        let rerender = try graph.set("/App/Parent.n", 2)
        #expect(rerender.created.map(\.reason) == ["construct"])
        #expect(rerender.destroyed.map(\.reason) == ["replaced"])
        #expect(rerender.updates["/App/Parent/Row"] == ["@self"])
        #expect(try graph.set("/App/Parent/Row.model.count", 4).updates["/App/Parent/Row"] == ["model.count"])
    }

    @Test func nestedNewIsRefused() throws {
        let graph = try makeGraph()
        expectError(.invalidDeclaration) {
            try graph.mount([
                "parent": "/App", "name": "V",
                "state": ["vm": ["$new": ["type": "Counter", "init": ["count": ["$new": ["type": "Counter"]]]]]],
            ])
        }
        expectError(.invalidDeclaration) { try graph.mount(["parent": "/App", "name": "V", "id": ["$new": ["type": "Counter"]]]) }
    }

    // MARK: @ObservationIgnored

    /// `@ObservationIgnored var hits`: a body's read of it is not tracked and a write re-renders
    /// nobody, though it is written (and takes a version); the next render shows it (#28 item 7).
    @Test func anObservationIgnoredPropertyIsWrittenSilentlyAndNeverTracked() throws {
        let graph = try makeGraph()
        _ = try graph.register(declaration: [
            "name": "Tally", "style": "observable",
            "properties": ["count": ["type": "int"], "hits": ["type": "int", "observationIgnored": true]],
        ])
        try graph.mount([
            "parent": "/App", "name": "Board", "state": ["tally": ["$new": ["type": "Tally"]]], "body": ["{tally.count} {tally.hits}"],
        ])
        let silent = try graph.set("/App/Board.tally.hits", 3)
        #expect(silent.version.rawValue > 0 && silent.updates.isEmpty, "written, and nobody re-renders")
        #expect(try graph.get("/App/Board.tally.hits").wire == 3)
        let deps = try graph.dependencies(of: "/App/Board").dependencies.flatMap(\.reasons)
        // The @State holding the object counts as read (SwiftUI reads it to reach the object); hits is not there.
        #expect(deps == ["_tally", "tally.count"], "only the tracked reads are dependencies: \(deps)")
        let counted = try graph.set("/App/Board.tally.count", 1)
        #expect(counted.updates == ["/App/Board": ["tally.count"]] && counted.body(of: "/App/Board") == ["1 3"])
    }

    // MARK: Rule 20 — observation through a reference

    @Test func aBodyReadingThroughAReferenceDependsOnTheReferencedProperty() throws {
        let graph = try makeGraph()
        try graph.register(ModelType(name: "Person", style: .observable, stored: [StoredProperty("name", .string)]))
        try graph.register(
            ModelType(name: "Team", style: .observable, stored: [StoredProperty("manager", .optional(.reference("Person")))]))
        try graph.mount([
            "parent": "/App", "name": "V", "state": ["team": ["$new": ["type": "Team"]], "person": ["$new": ["type": "Person"]]],
        ])
        try graph.set("/App/V.team.manager", try #require(graph.get("/App/V.person").wire["object"]))
        let (card, _) = try graph.mount([
            "parent": "/App/V", "name": "Card", "inputs": ["team": ["$parent": "team"]], "body": ["{team.manager.name}"],
        ])
        #expect(card?.body == [""])
        let rename = try graph.set("/App/V.person.name", "Ann")
        #expect(rename.updates == ["/App/V/Card": ["team.manager.name"]])
        #expect(rename.body(of: "/App/V/Card") == ["Ann"])
    }

    /// A read through a long chain of references is tracked with its whole path as the reason,
    /// however long (a path's step reasons are kept precomputed only while they are small).
    @Test func aLongChainOfReferencesGivesItsWholePathAsTheReason() throws {
        let graph = try makeGraph()
        try graph.register(
            ModelType(
                name: "Person", style: .observable,
                stored: [StoredProperty("name", .string), StoredProperty("manager", .optional(.reference("Person")))]))
        try graph.mount(["parent": "/App", "name": "V", "state": ["boss": ["$new": ["type": "Person"]]]])
        // The boss manages herself: boss.manager.manager… is the boss again, as far as one likes.
        try graph.set("/App/V.boss.manager", try #require(graph.get("/App/V.boss").wire["object"]))
        let path = "boss" + String(repeating: ".manager", count: 100) + ".name"
        try graph.mount([
            "parent": "/App/V", "name": "Card", "inputs": ["boss": ["$parent": "boss"]], "body": .array([.string("{\(path)}")]),
        ])
        let rename = try graph.set("/App/V.boss.name", "Ann")
        #expect(rename.updates["/App/V/Card"] == [path])
        #expect(rename.body(of: "/App/V/Card") == ["Ann"])
    }
}
