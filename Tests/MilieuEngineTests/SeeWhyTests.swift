import MilieuJSON
import MilieuProtocol
import Testing

@testable import MilieuEngine

/// Issue #17's "see why": what a view's last evaluation read
/// (`dependencies(of:)`), who a change of a key path would evaluate again (`readers(of:)`), and
/// what the environment holds for a view (`environmentScope(of:)`), each from the engine's own
/// records.
@Suite struct SeeWhyTests {
    /// S3 (seed 002): `ContentView` owns `vm` and provides it; `CountView` shows `count`,
    /// `ButtonView` reads nothing of it.
    private func counterScreen(observable: Bool) throws -> Graph {
        let graph = try makeGraph()
        try graph.mountCounterScreen(observable: observable)
        return graph
    }

    private func readers(_ graph: Graph, _ path: String) throws -> [String: [String]] {
        Dictionary(uniqueKeysWithValues: try graph.readers(of: path).map { ($0.view, $0.reasons) })
    }

    // MARK: view/dependencies

    @Test func dependenciesAreWhatTheLastEvaluationReadWithTheReasonsEachGives() throws {
        let graph = try makeGraph()
        try graph.mount([
            "parent": "/App", "name": "Shop", "stateObjects": ["cart": ["type": "Cart"]], "state": ["n": 1],
            "environment": ["scheme": ["key": "colorScheme"], "login": ["type": "Login"]],
            "body": ["{n} {scheme} {login.email}"],
        ])
        let (path, dependencies) = try graph.dependencies(of: "/App/Shop")
        #expect(path == "/App/Shop")
        let cart = try #require(graph.get("/App/Shop.cart").wire["object"]?.stringValue)
        let login = try #require(graph.get("login").wire["object"]?.stringValue)
        #expect(
            dependencies == [
                ViewDependency(source: .state(view: "/App/Shop", variable: "n"), reasons: ["_n"]),
                ViewDependency(source: .object(object: cart, type: "Cart"), reasons: ["_cart"]),
                ViewDependency(source: .environment(key: "colorScheme", provider: nil), reasons: ["env.colorScheme"]),
                ViewDependency(source: .property(object: login, property: "email"), reasons: ["login.email"]),
            ])
    }

    @Test func aComputedPropertyReadDependsOnTheStoredPropertiesItsGetterRead() throws {
        let graph = try makeGraph()
        try graph.mount([
            "parent": "/App", "name": "LoginView", "environment": ["login": ["type": "Login"]], "body": ["{login.isValidEmail}"],
        ])
        let login = try #require(graph.get("login").wire["object"]?.stringValue)
        #expect(
            try graph.dependencies(of: "/App/LoginView").dependencies == [
                ViewDependency(source: .property(object: login, property: "email"), reasons: ["login.email"])
            ])
    }

    @Test func anOptionalEnvironmentObservableReadingNullDependsOnNothingUntilProvided() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "P", "state": ["counter": ["$new": ["type": "NewObservable"]]]])
        try graph.mount([
            "parent": "/App/P", "name": "C", "environment": ["counter": ["type": "NewObservable", "optional": true]],
            "body": ["{counter.count}"],
        ])
        #expect(try graph.dependencies(of: "/App/P/C").dependencies.isEmpty)
        #expect(try graph.environmentScope(of: "/App/P/C").scope.observables.allSatisfy { $0.type != "NewObservable" })
        try graph.provide("/App/P", observables: ["counter"])
        let counter = try #require(graph.get("/App/P.counter").wire["object"]?.stringValue)
        #expect(
            try graph.dependencies(of: "/App/P/C").dependencies == [
                ViewDependency(source: .property(object: counter, property: "count"), reasons: ["counter.count"])
            ])
        #expect(try readers(graph, "/App/P.counter.count") == ["/App/P/C": ["counter.count"]])
    }

    @Test func dependenciesOfAViewNotMountedIsUnknownPath() throws {
        let graph = try makeGraph()
        _ = expectError(.unknownPath) { _ = try graph.dependencies(of: "/App/Nope") }
    }

    // MARK: graph/readers

    @Test func anObservablePropertysReadersAreOnlyTheViewsThatReadIt() throws {
        let graph = try counterScreen(observable: true)
        #expect(try readers(graph, "/App/ContentView.vm.count") == ["/App/ContentView/CountView": ["vm.count"]])
    }

    @Test func anObservableObjectsPropertyIsReadByEveryHolder() throws {
        let graph = try counterScreen(observable: false)
        #expect(
            try readers(graph, "/App/ContentView.vm.count") == [
                "/App/ContentView": ["_vm"], "/App/ContentView/CountView": ["_vm"], "/App/ContentView/ButtonView": ["_vm"],
            ])
    }

    @Test func readersAreTheViewsAWriteEvaluatesWithTheSameReasonsParentsFirst() throws {
        for observable in [true, false] {
            let graph = try counterScreen(observable: observable)
            let expected = try graph.readers(of: "/App/ContentView.vm.count")
            let commit = try graph.call("/App/ContentView.vm.add")
            #expect(expected.map(\.view) == commit.updatedViews)
            #expect(Dictionary(uniqueKeysWithValues: expected.map { ($0.view, $0.reasons) }) == commit.updates)
        }
    }

    @Test func aComputedPropertysReadersAreTheReadersOfTheStoredPropertiesItsGetterRead() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "Valid", "environment": ["login": ["type": "Login"]], "body": ["{login.isValidEmail}"]])
        try graph.mount(["parent": "/App", "name": "Email", "environment": ["login": ["type": "Login"]], "body": ["{login.email}"]])
        let both = ["/App/Valid": ["login.email"], "/App/Email": ["login.email"]]
        #expect(try readers(graph, "login.isValidEmail") == both)
        #expect(try readers(graph, "login.email") == both)
        #expect(try readers(graph, "login.isUserLoggedIn").isEmpty)
    }

    @Test func aStatesReadersAreItsOwnViewAndItsBindings() throws {
        let graph = try makeToggleScreen()
        let expected = ["/App/ParentView": ["_isOn"], "/App/ParentView/ToggleRow": ["_isOn"]]
        #expect(try readers(graph, "/App/ParentView.isOn") == expected)
        #expect(try readers(graph, "/App/ParentView/ToggleRow.isOn") == expected, "a binding's readers are its source's")
    }

    @Test func anObjectsReadersAreThoseOfAnyOfItsProperties() throws {
        let graph = try counterScreen(observable: true)
        #expect(try readers(graph, "/App/ContentView.vm") == ["/App/ContentView/CountView": ["vm.count"]])
    }

    @Test func aNestedObservableObjectsHolderDoesNotReadItsChanges() throws {
        let graph = try makeGraph()
        try graph.register(ModelType(name: "Person", style: .observableObject, stored: [StoredProperty("name", .string)]))
        try graph.register(
            ModelType(name: "Team", style: .observableObject, stored: [StoredProperty("manager", .optional(.reference("Person")))]))
        try graph.mount([
            "parent": "/App", "name": "V", "stateObjects": ["team": ["type": "Team"], "person": ["type": "Person"]],
            "body": ["{person.name}"],
        ])
        try graph.mount([
            "parent": "/App/V", "name": "TeamCard", "observedObjects": ["team": ["$parent": "team"]], "body": ["{team.manager.name}"],
        ])
        let person = try #require(graph.get("/App/V.person").wire["object"]?.stringValue)
        try graph.set("/App/V.team.manager", .string(person))
        #expect(try readers(graph, "/App/V.team.manager") == ["/App/V": ["_team"], "/App/V/TeamCard": ["_team"]])
        #expect(try readers(graph, "/App/V/TeamCard.team.manager.name") == ["/App/V": ["_person"]], "rule 20: not the team's holders")
    }

    @Test func readersOfAnUnknownPathIsUnknownPathAndOfAViewInvalidParams() throws {
        let graph = try makeGraph()
        _ = expectError(.unknownPath) { _ = try graph.readers(of: "login.nope") }
        _ = expectError(.unknownPath) { _ = try graph.readers(of: "/App/Nope.x") }
        _ = expectError(.invalidParams) { _ = try graph.readers(of: "/App") }
    }

    @Test func aSecurePropertyIsNamedButItsValueNeverShown() throws {
        let graph = try makeGraph()
        try graph.set("login.password", "hunter2")
        try graph.mount(["parent": "/App", "name": "P", "environment": ["login": ["type": "Login"]], "body": ["{login.password}"]])
        let dependencies = try graph.dependencies(of: "/App/P").dependencies
        #expect(dependencies.map(\.reasons) == [["login.password"]])
        let text = JSON.array(dependencies.map(\.wire)).jsonText + JSON.array(try graph.readers(of: "login.password").map(\.wire)).jsonText
        #expect(!text.contains("hunter2"))
        #expect(try readers(graph, "login.password") == ["/App/P": ["login.password"]])
    }

    // MARK: view/environment

    @Test func theEnvironmentScopeNamesEachObjectAndValueWithItsNearestProvider() throws {
        let graph = try makeGraph()
        try graph.mount([
            "parent": "/App", "name": "Shop", "stateObjects": ["cart": ["type": "Cart"]],
            "provide": ["environmentObjects": ["cart"], "environment": ["colorScheme": "dark"]],
        ])
        try graph.mount([
            "parent": "/App/Shop", "name": "Aisle", "stateObjects": ["cart": ["type": "Cart"]],
            "provide": ["environmentObjects": ["cart"]],
        ])
        try graph.mount(["parent": "/App/Shop/Aisle", "name": "Shelf"])
        let (path, scope) = try graph.environmentScope(of: "/App/Shop/Aisle/Shelf")
        #expect(path == "/App/Shop/Aisle/Shelf")
        let aisleCart = try #require(graph.get("/App/Shop/Aisle.cart").wire["object"]?.stringValue)
        #expect(scope.environmentObjects == [EnvironmentScope.ProvidedObject(type: "Cart", object: aisleCart, provider: "/App/Shop/Aisle")])
        #expect(scope.observables.map(\.type) == ["Login", "Session", "Theme"])
        #expect(scope.observables.allSatisfy { $0.provider == "/App" })
        #expect(
            scope.environment.first { $0.key == "colorScheme" }
                == EnvironmentScope.Value(key: "colorScheme", value: "dark", provider: "/App/Shop"))
        #expect(scope.environment.first { $0.key == "locale" } == EnvironmentScope.Value(key: "locale", value: "en_US", provider: nil))
        #expect(scope.environment.map(\.key) == graph.environmentKeys.all.map(\.name))
    }

    @Test func aMissingEnvironmentObjectsHintNamesAnObjectOfItsTypeThatExists() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "Shop", "stateObjects": ["cart": ["type": "Cart"]]])
        let error = expectError(.environmentObjectMissing) {
            try graph.mount(["parent": "/App/Shop", "name": "CartView", "environmentObjects": ["cart": "Cart"]])
        }
        #expect(
            error?.message
                == "No ObservableObject of type Cart found. A View.environmentObject(_:) for Cart may be missing as an ancestor of this view."
        )
        let hint = error?.data["hint"]?.stringValue ?? ""
        #expect(
            hint.hasSuffix(
                "A Cart exists at /App/Shop.cart; provide it with view/provide {\"path\": \"/App/Shop\", \"environmentObjects\": [\"/App/Shop.cart\"]}."
            ),
            "\(hint)")
    }

    @Test func aMissingObservablesHintNamesAnObjectElsewhereAndAViewAboveBoth() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "Left", "state": ["prefs": ["$new": ["type": "NewObservable"]]]])
        try graph.mount(["parent": "/App", "name": "Right"])
        let error = expectError(.environmentObjectMissing) {
            try graph.mount(["parent": "/App/Right", "name": "Reader", "environment": ["c": ["type": "NewObservable"]]])
        }
        let hint = error?.data["hint"]?.stringValue ?? ""
        #expect(
            hint.hasSuffix(
                "A NewObservable exists at /App/Left.prefs; provide it with view/provide {\"path\": \"/App\", \"observables\": [\"/App/Left.prefs\"]}."
            ),
            "\(hint)")
    }

    @Test func aMissingEnvironmentObjectsHintNamesNoObjectWhenThereIsNone() throws {
        let graph = try makeGraph()
        let error = expectError(.environmentObjectMissing) {
            try graph.mount(["parent": "/App", "name": "CartView", "environmentObjects": ["cart": "Cart"]])
        }
        #expect(error?.data["hint"]?.stringValue?.contains("exists at") == false)
    }
}
