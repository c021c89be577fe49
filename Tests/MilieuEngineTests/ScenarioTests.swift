import MilieuJSON
import MilieuProtocol
import Testing

@testable import MilieuEngine

/// The seed stories of semantics.md, each with its exact outcome.
@Suite struct ScenarioTests {
    // MARK: S1 — seed 000

    private func mountLoginContainer(_ graph: Graph, fixed: Bool) throws {
        try graph.mount([
            "parent": "/App", "name": "Container", "state": ["toggle": false], "body": ["toggle: {toggle}"],
            "stateObjects": fixed ? ["loginVM": ["type": "LoginViewModel"]] : [:],
        ])
        for name in ["LoginView1", "LoginView2"] {
            let holder: JSON =
                fixed
                ? ["observedObjects": ["loginVM": ["$parent": "loginVM"]]]
                : name == "LoginView1"
                    ? ["stateObjects": ["loginVM": ["type": "LoginViewModel"]]]
                    : ["observedObjects": ["loginVM": ["construct": "LoginViewModel"]]]
            var declaration: JSONObject = ["parent": "/App/Container", "name": .string(name), "body": ["email: {loginVM.email}"]]
            for (key, value) in holder.objectValue ?? [:] { declaration[key] = value }
            try graph.mount(.object(declaration))
        }
    }

    @Test func s1StateObjectKeepsEmailObservedConstructLosesIt() throws {
        let graph = try makeGraph()
        try mountLoginContainer(graph, fixed: false)
        try graph.set("/App/Container/LoginView1.loginVM.email", "kim@example.com")
        try graph.set("/App/Container/LoginView2.loginVM.email", "kim@example.com")
        let flip = try graph.set("/App/Container.toggle", true)

        #expect(flip.updates == ["/App/Container": ["_toggle"], "/App/Container/LoginView2": ["@self"]])
        #expect(flip.body(of: "/App/Container/LoginView2") == ["email: "])
        #expect(flip.created.map(\.object) == ["LoginViewModel#6"])
        #expect(flip.created.first?.owner == "/App/Container/LoginView2.loginVM")
        #expect(flip.destroyed.map(\.object) == ["LoginViewModel#5"])
        #expect(flip.destroyed.first?.reason == "replaced")
        #expect(try graph.get("/App/Container/LoginView1.loginVM.email").wire == "kim@example.com")
        #expect(try graph.get("/App/Container/LoginView2.loginVM.email").wire == "")
    }

    @Test func s1FixContainerOwnsTheLoginAndBothViewsKeepTheEmail() throws {
        let graph = try makeGraph()
        try mountLoginContainer(graph, fixed: true)
        try graph.set("/App/Container/LoginView2.loginVM.email", "kim@example.com")
        let flip = try graph.set("/App/Container.toggle", true)

        #expect(flip.updates == ["/App/Container": ["_toggle"]])
        #expect(flip.created.isEmpty && flip.destroyed.isEmpty)
        #expect(try graph.get("/App/Container/LoginView1.loginVM.email").wire == "kim@example.com")
        #expect(try graph.get("/App/Container/LoginView2.loginVM.email").wire == "kim@example.com")
    }

    // MARK: S2 — seed 001

    private func mountStartView(_ graph: Graph, child: JSONObject) throws {
        try graph.mount(["parent": "/App", "name": "StartView", "state": ["selectedNum": 10], "body": ["num: {selectedNum}"]])
        var declaration: JSONObject = [
            "parent": "/App/StartView", "name": "ContentView", "inputs": ["num": ["$parent": "selectedNum"]],
            "body": ["num: {viewModel.num}"],
        ]
        for (key, value) in child { declaration[key] = value }
        try graph.mount(.object(declaration))
    }

    @Test func s2InlineObservedObjectFollowsTheParent() throws {
        let graph = try makeGraph()
        try mountStartView(
            graph, child: ["observedObjects": ["viewModel": ["construct": "ViewModel", "init": ["num": ["$input": "num"]]]]])
        for n in 11...13 {
            let commit = try graph.set("/App/StartView.selectedNum", .int(n))
            #expect(commit.updates["/App/StartView/ContentView"] == ["@self"])
            #expect(commit.body(of: "/App/StartView/ContentView") == ["num: \(n)"])
            #expect(commit.destroyed.first?.reason == "replaced")
        }
    }

    @Test func s2StateObjectStaysAtTheFirstValueAndEachDroppedInitIsReported() throws {
        let graph = try makeGraph()
        try mountStartView(graph, child: ["stateObjects": ["viewModel": ["type": "ViewModel", "init": ["num": ["$input": "num"]]]]])
        for n in 11...13 {
            let commit = try graph.set("/App/StartView.selectedNum", .int(n))
            #expect(commit.updates["/App/StartView/ContentView"] == ["@self"])
            #expect(commit.body(of: "/App/StartView/ContentView") == ["num: 10"])
            #expect(commit.created.isEmpty)
            #expect(commit.diagnostics.count == 1)
            #expect(commit.diagnostics.first?.kind == "StateObjectInitIgnored")
            #expect(commit.diagnostics.first?.view == "/App/StartView/ContentView")
            #expect(commit.diagnostics.first?.variable == "viewModel")
            #expect(commit.diagnostics.first?.ignored == ["num": .int(n)])
        }
    }

    @Test func s2EagerStateObjectBuildsAndDiscardsOneAtEveryChange() throws {
        let graph = try makeGraph()
        try mountStartView(
            graph, child: ["stateObjects": ["viewModel": ["type": "ViewModel", "init": ["num": ["$input": "num"]], "eager": true]]])
        for n in 11...13 {
            let commit = try graph.set("/App/StartView.selectedNum", .int(n))
            #expect(commit.body(of: "/App/StartView/ContentView") == ["num: 10"])
            #expect(commit.created.map(\.reason) == ["stateInitial"])
            #expect(commit.created.first?.owner == "/App/StartView/ContentView.viewModel")
            #expect(commit.destroyed.map(\.reason) == ["discarded"])
            #expect(commit.destroyed.first?.object == commit.created.first?.object)
            #expect(commit.diagnostics.map(\.kind) == ["StateObjectInitIgnored"])
        }
        #expect(try graph.get("/App/StartView/ContentView.viewModel.num").wire == 10)
    }

    @Test func s2IdentityBoundToTheValueRecreatesTheStateObject() throws {
        let graph = try makeGraph()
        try mountStartView(
            graph,
            child: [
                "id": ["$parent": "selectedNum"],
                "stateObjects": ["viewModel": ["type": "ViewModel", "init": ["num": ["$input": "num"]]]],
            ])
        #expect(graph.viewPaths.contains("/App/StartView/ContentView[10]"))
        for n in 11...13 {
            let commit = try graph.set("/App/StartView.selectedNum", .int(n))
            #expect(commit.changes.contains(.viewUnmounted(view: "/App/StartView/ContentView[\(n - 1)]", reason: .identity)))
            #expect(commit.changes.contains(.viewMounted(view: "/App/StartView/ContentView[\(n)]", reason: .identity, body: ["num: \(n)"])))
            #expect(commit.updates["/App/StartView/ContentView[\(n)]"] == ["@identity"])
            #expect(commit.destroyed.map(\.reason) == ["identity"])
            #expect(commit.created.count == 1)
            #expect(commit.diagnostics.isEmpty)
        }
    }

    // MARK: S3 — seed 002

    /// Seed 002's counter screen (`Graph.mountCounterScreen`), then `add()`.
    private func counterScreen(_ graph: Graph, observable: Bool) throws -> Commit {
        try graph.mountCounterScreen(observable: observable)
        return try graph.call("/App/ContentView.vm.add")
    }

    @Test func s3ObservableObjectReEvaluatesEveryHolder() throws {
        let add = try counterScreen(try makeGraph(), observable: false)
        #expect(
            add.updates == [
                "/App/ContentView": ["_vm"], "/App/ContentView/CountView": ["_vm"], "/App/ContentView/ButtonView": ["_vm"],
            ])
        #expect(add.body(of: "/App/ContentView/CountView") == ["count: 1"])
    }

    @Test func s3ObservableReEvaluatesOnlyTheReader() throws {
        let add = try counterScreen(try makeGraph(), observable: true)
        #expect(add.updates == ["/App/ContentView/CountView": ["vm.count"]])
        #expect(add.body(of: "/App/ContentView/CountView") == ["count: 1"])
    }

    // MARK: S4 — seed 003

    @Test func s4FavoritePrimesThroughABindingWithTheActivityFeedInOrder() throws {
        let graph = try makeGraph()
        try graph.mount([
            "parent": "/App", "name": "ContentView", "stateObjects": ["state": ["type": "AppState"]],
            "body": ["count: {state.count}"],
        ])
        try graph.mount([
            "parent": "/App/ContentView", "name": "CounterView", "observedObjects": ["state": ["$parent": "state"]],
            "body": ["{state.count}", "prime: {state.isCountPrime}"],
        ])
        try graph.mount([
            "parent": "/App/ContentView", "name": "FavoritePrimesView",
            "bindings": [
                "favoritePrimes": ["$parent": "state.favoritePrimes"], "activityFeed": ["$parent": "state.activityFeed"],
            ],
            "body": ["{favoritePrimes}"],
        ])
        let state = "/App/ContentView/CounterView.state"
        try graph.call("\(state).increment")
        let two = try graph.call("\(state).increment")
        #expect(two.body(of: "/App/ContentView/CounterView") == ["2", "prime: true"])
        #expect(two.updates["/App/ContentView/FavoritePrimesView"] == nil)
        try graph.call("\(state).saveFavoritePrime")
        try graph.call("\(state).increment")
        let save = try graph.call("\(state).saveFavoritePrime")
        #expect(save.updates["/App/ContentView/FavoritePrimesView"] == ["@self", "_favoritePrimes"])
        #expect(save.body(of: "/App/ContentView/FavoritePrimesView") == ["[2,3]"])

        // Remove 2 the way FavoritePrimesView's onDelete does: through its two bindings, in one transaction.
        let feed = try graph.get("/App/ContentView/FavoritePrimesView.activityFeed").wire.arrayValue ?? []
        let removal: JSON = ["timestamp": "2026-01-01T00:00:00.000Z", "type": "removedFavoritePrime", "prime": 2]
        let (_, remove) = try graph.apply([
            .set(path: "/App/ContentView/FavoritePrimesView.favoritePrimes", value: [3], ifVersion: nil),
            .set(path: "/App/ContentView/FavoritePrimesView.activityFeed", value: .array(feed + [removal]), ifVersion: nil),
        ])
        #expect(remove.updates["/App/ContentView/FavoritePrimesView"] == ["@self", "_favoritePrimes"])
        try graph.call("\(state).removeFavoritePrime", [3])

        #expect(try graph.get("\(state).favoritePrimes").wire == [])
        let entries = try graph.get("\(state).activityFeed").wire.arrayValue ?? []
        #expect(
            entries.map { $0["type"] ?? .null } == [
                "addedFavoritePrime", "addedFavoritePrime", "removedFavoritePrime", "removedFavoritePrime",
            ])
        #expect(entries.map { $0["prime"] ?? .null } == [2, 3, 2, 3])
    }

    // MARK: S5 — seed 004

    @Test func s5ChildWriteThroughBindingChangesParentState() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "ParentView", "state": ["isOn": false], "body": ["isOn: {isOn}"]])
        try graph.mount([
            "parent": "/App/ParentView", "name": "ToggleRow", "bindings": ["isOn": ["$parent": "isOn"]], "body": ["toggle: {isOn}"],
        ])
        let flip = try graph.set("/App/ParentView/ToggleRow.isOn", true)
        #expect(try graph.get("/App/ParentView.isOn").wire == true)
        // SwiftUI prints `ToggleRow: @self, _isOn changed.`: ParentView passes a Binding carrying the
        // new value, and ToggleRow's body read it.
        #expect(flip.updates == ["/App/ParentView": ["_isOn"], "/App/ParentView/ToggleRow": ["@self", "_isOn"]])
        #expect(flip.updatedViews == ["/App/ParentView", "/App/ParentView/ToggleRow"])
        #expect(flip.propertyChanges["/App/ParentView.isOn"] == .some(true))
    }

    // MARK: S6 — seed 004

    @Test func s6CartSurvivesTheScreenReRenderingAndTheListFollowsIt() throws {
        let graph = try makeGraph()
        try graph.mount([
            "parent": "/App", "name": "CartScreen", "stateObjects": ["cart": ["type": "Cart"]], "state": ["title": "Cart"],
            "body": ["{title}"],
        ])
        try graph.mount([
            "parent": "/App/CartScreen", "name": "CartList", "observedObjects": ["cart": ["$parent": "cart"]],
            "body": ["items: {cart.items}"],
        ])
        let add = try graph.call("/App/CartScreen.cart.add", ["apple"])
        #expect(add.updates["/App/CartScreen/CartList"] == ["_cart"])
        #expect(add.body(of: "/App/CartScreen/CartList") == ["items: [\"apple\"]"])
        let retitle = try graph.set("/App/CartScreen.title", "My cart")
        #expect(retitle.updates == ["/App/CartScreen": ["_title"]])
        #expect(retitle.created.isEmpty && retitle.destroyed.isEmpty)
        #expect(try graph.get("/App/CartScreen/CartList.cart.items").wire == ["apple"])
    }

    // MARK: S7 — seed 004 and the design card

    private func mountLevels(_ graph: Graph) throws -> String {
        var parent = "/App"
        for level in 1...4 {
            try graph.mount(["parent": .string(parent), "name": .string("Level\(level)")])
            parent += "/Level\(level)"
        }
        return parent
    }

    @Test func s7DeepChildReadsTheSessionWithNoViewPassingIt() throws {
        let graph = try makeGraph()
        let parent = try mountLevels(graph)
        try graph.mount([
            "parent": .string(parent), "name": "DeepChildView", "environment": ["session": ["type": "Session"]],
            "body": ["user: {session.user}"],
        ])
        let start = try graph.call("session.start", ["kim"])
        #expect(start.updates == ["\(parent)/DeepChildView": ["session.user"]])
        #expect(start.body(of: "\(parent)/DeepChildView") == ["user: kim"])
    }

    @Test func s7MissingCartFailsLoudlyAndSucceedsOnceProvided() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "Shop", "stateObjects": ["cart": ["type": "Cart"]]])
        try graph.mount(["parent": "/App/Shop", "name": "Aisle"])
        let before = try graph.fingerprint()
        let checkout: JSON = [
            "parent": "/App/Shop/Aisle", "name": "CheckoutView", "environmentObjects": ["cart": "Cart"], "body": ["{cart.items}"],
        ]
        let error = expectError(.environmentObjectMissing) { try graph.mount(checkout) }
        #expect(
            error?.message
                == "No ObservableObject of type Cart found. A View.environmentObject(_:) for Cart may be missing as an ancestor of this view."
        )
        #expect(error?.data["type"] == "Cart")
        #expect(error?.data["view"] == "/App/Shop/Aisle/CheckoutView")
        #expect(error?.data["variable"] == "cart")
        #expect(error?.data["searched"] == ["/App/Shop/Aisle/CheckoutView", "/App/Shop/Aisle", "/App/Shop", "/App"])
        #expect(error?.data["hint"]?.stringValue?.contains("view/provide") == true)
        #expect(try graph.fingerprint() == before)

        try graph.provide("/App/Shop", objects: ["cart"])
        let (view, _) = try graph.mount(checkout)
        #expect(view?.path == "/App/Shop/Aisle/CheckoutView")
        #expect(view?.objects.map { "\($0.variable)=\($0.object)" } == ["cart=Cart#4"])
    }

    @Test func s7SceneWithoutSessionRefusesTheDeepChild() throws {
        let scene = try Scene(json: [
            "app": ["state": ["theme": ["$new": ["type": "Theme"]]], "provide": ["observables": ["theme"]]]
        ])
        let graph = try makeGraph(scene: scene)
        let parent = try mountLevels(graph)
        let error = expectError(.environmentObjectMissing) {
            try graph.mount([
                "parent": .string(parent), "name": "DeepChildView", "environment": ["session": ["type": "Session"]],
                "body": ["user: {session.user}"],
            ])
        }
        #expect(error?.data["type"] == "Session")
        #expect(
            error?.message
                == "No Observable object of type Session found. A View.environmentObject(_:) for Session may be missing as an ancestor of this view."
        )
        #expect(error?.data["searched"]?.arrayValue?.last == "/App")
        #expect(!graph.viewPaths.contains("\(parent)/DeepChildView"))
    }
    /// Past `SmallTable.scanLimit` objects a transaction's writes are grouped through an index:
    /// still one change per written property, objects in the order they were first written and
    /// each object's properties in the order they were.
    @Test func aTransactionWritingManyObjectsReportsThemInFirstWriteOrder() throws {
        let graph = try makeGraph()
        let counters = (0..<12).map { "c\($0)" }
        let state = JSONObject(counters.map { ($0, ["$new": ["type": "Counter"]] as JSON) })
        try graph.mount(["parent": "/App", "name": "V", "state": .object(state)])
        var operations: [Operation] = counters.map { .set(path: "/App/V.\($0).count", value: 1, ifVersion: nil) }
        operations += [
            .set(path: "theme.accentColor", value: "red", ifVersion: nil), .set(path: "/App/V.c0.count", value: 2, ifVersion: nil),
            .set(path: "theme.fontScale", value: 2, ifVersion: nil),
        ]
        let (_, commit) = try graph.apply(operations)
        let written: [(String, JSON?)] = commit.changes.compactMap { change in
            guard case .property(_, let type, let property, let value) = change else { return nil }
            return (type + "." + property, value)
        }
        #expect(written.map(\.0) == Array(repeating: "Counter.count", count: 12) + ["Theme.accentColor", "Theme.fontScale"])
        #expect(written.map(\.1) == [2] + Array(repeating: 1, count: 11) + ["red", 2.0])
    }

    /// Writes that alternate between objects are reported object by object, objects in the order
    /// they were first written and each one's properties in the order they were, each with the
    /// value it replaced.
    @Test func alternatingWritesAreReportedObjectByObjectEachInWriteOrder() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "V", "state": ["counter": ["$new": ["type": "Counter"]]]])
        let (_, commit) = try graph.apply([
            .set(path: "theme.accentColor", value: "red", ifVersion: nil), .set(path: "/App/V.counter.count", value: 3, ifVersion: nil),
            .set(path: "theme.fontScale", value: 2, ifVersion: nil), .set(path: "/App/V.counter.count", value: 4, ifVersion: nil),
            .set(path: "theme.accentColor", value: "green", ifVersion: nil),
        ])
        let written: [String] = commit.changes.compactMap { change in
            guard case .property(_, let type, let property, let value?) = change else { return nil }
            return "\(type).\(property)=\(value.jsonText)"
        }
        #expect(written == [#"Theme.accentColor="green""#, "Theme.fontScale=2.0", "Counter.count=4"])
        #expect((0..<3).map { commit.replaced[$0] } == [.some("blue"), .some(1.0), .some(0)])
    }

    /// Each change carries the value its own place had before the transaction, wherever that
    /// place comes among those the transaction wrote: `@State` changes are reported as their
    /// places come, property changes after them, object by object.
    @Test func changesCarryTheirOwnPlacesOriginals() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "V", "state": ["n": 1, "label": "a"]])
        let (_, commit) = try graph.apply([
            .set(path: "/App/V.n", value: 2, ifVersion: nil), .set(path: "theme.accentColor", value: "red", ifVersion: nil),
            .set(path: "/App/V.label", value: "b", ifVersion: nil),
        ])
        let written: [String] = commit.changes.compactMap { change in
            switch change {
            case .state(_, let variable, let value): "\(variable)=\(value.jsonText)"
            case .property(_, let type, let property, let value?): "\(type).\(property)=\(value.jsonText)"
            default: nil
            }
        }
        #expect(written == ["n=2", #"label="b""#, #"Theme.accentColor="red""#])
        #expect((0..<3).map { commit.replaced[$0] } == [.some(1), .some("a"), .some("blue")])
    }

    /// A property that re-renders nothing (a plain `var` of an `ObservableObject`) still reports
    /// the value it replaced, in step with its change, between changes that re-render.
    @Test func aChangeThatReRendersNothingKeepsItsReplacedValueInStep() throws {
        let graph = try makeGraph()
        try graph.register(
            ModelType(declaration: [
                "name": "Draft", "style": "observableObject",
                "properties": ["title": ["type": "string"], "notes": ["type": "string", "published": false]],
            ]))
        try graph.mount(["parent": "/App", "name": "V", "stateObjects": ["vm": ["type": "Draft"]], "body": ["{vm.title}"]])
        _ = try graph.apply([
            .set(path: "/App/V.vm.title", value: "t0", ifVersion: nil), .set(path: "/App/V.vm.notes", value: "n0", ifVersion: nil),
        ])
        let (_, commit) = try graph.apply([
            .set(path: "/App/V.vm.notes", value: "n1", ifVersion: nil), .set(path: "/App/V.vm.title", value: "t1", ifVersion: nil),
            .set(path: "theme.accentColor", value: "red", ifVersion: nil),
        ])
        let written: [String] = commit.changes.compactMap { change in
            guard case .property(_, let type, let property, let value?) = change else { return nil }
            return "\(type).\(property)=\(value.jsonText)"
        }
        #expect(written == [#"Draft.notes="n1""#, #"Draft.title="t1""#, #"Theme.accentColor="red""#])
        #expect((0..<3).map { commit.replaced[$0] } == [.some("n0"), .some("t0"), .some("blue")])
    }

    /// A transaction's written places are found by comparison up to `SmallTable.scanLimit`
    /// and through an index past it: either way each keeps its first original, gathers
    /// `changed`, and stays in first-write order; emptied, it starts over.
    @Test func touchedPlacesKeepFirstOriginalsInOrderOnBothSidesOfTheScanLimit() {
        var places = TouchedPlaces()
        let count = SmallTable<Location, TouchedPlaces.Original>.scanLimit * 2
        for round in 0..<2 {
            for n in 0..<count {
                places.touch(.state(view: ViewSerial(rawValue: n), variable: 0), original: .int(n + round), changed: n == 3 && round == 1)
            }
        }
        #expect(places.count == count)
        #expect(
            (0..<count).map { places.place(at: $0).location } == (0..<count).map { .state(view: ViewSerial(rawValue: $0), variable: 0) })
        #expect((0..<count).map { places.original(at: $0) } == (0..<count).map { .int($0) })
        #expect((0..<count).map { places.place(at: $0).changed } == (0..<count).map { $0 == 3 })
        #expect(places.contains(.state(view: ViewSerial(rawValue: count - 1), variable: 0)))
        #expect(!places.contains(.state(view: ViewSerial(rawValue: count), variable: 0)))
        places.removeAll()
        #expect(places.count == 0 && !places.contains(.state(view: ViewSerial(rawValue: 0), variable: 0)))
        places.touch(.state(view: ViewSerial(rawValue: 1), variable: 2), original: 5, changed: false)
        #expect(places.count == 1 && places.contains(.state(view: ViewSerial(rawValue: 1), variable: 2)))
    }
}
