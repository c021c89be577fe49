import MilieuJSON
import MilieuProtocol
import Testing

@testable import MilieuEngine

/// One test per rule of semantics.md, named for the behaviour it pins.
@Suite struct RuleTests {
    @Test func rule1WriteThroughABindingLandsOnTheSourceAndEveryReaderSeesIt() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "Form", "body": ["{login.email}"], "environment": ["login": ["type": "Login"]]])
        try graph.mount([
            "parent": "/App/Form", "name": "EmailField", "bindings": ["email": ["$parent": "login.email"]], "body": ["{email}"],
        ])
        let write = try graph.set("/App/Form/EmailField.email", "kim@example.com")
        #expect(try graph.get("login.email").wire == "kim@example.com")
        #expect(try graph.get("/App.login.email").wire == "kim@example.com")
        #expect(write.propertyChanges["Login#3.email"] == .some("kim@example.com"))
        // Form re-renders and passes a Binding whose value changed (@self), which EmailField read (_email).
        #expect(write.updates == ["/App/Form": ["login.email"], "/App/Form/EmailField": ["@self", "_email"]])
    }

    @Test func rule2AChildCannotWriteWhatItsParentPasses() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "Parent", "state": ["title": "a"]])
        try graph.mount(["parent": "/App/Parent", "name": "Child", "inputs": ["title": ["$parent": "title"]]])
        let error = expectError(.readOnly) { try graph.set("/App/Parent/Child.title", "b") }
        #expect(error?.data["path"] == "/App/Parent/Child.title")
        #expect(try graph.get("/App/Parent.title").wire == "a")
    }

    @Test func rule3StateIsKeptAcrossParentReRendersAndGoesWithTheIdentity() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "Parent", "state": ["start": 1], "body": ["{start}"]])
        let child: JSON = [
            "parent": "/App/Parent", "name": "Child", "inputs": ["start": ["$parent": "start"]],
            "state": ["count": ["$input": "start"]], "stateObjects": ["model": ["type": "CounterObject"]],
        ]
        try graph.mount(child)
        try graph.set("/App/Parent/Child.count", 5)
        try graph.set("/App/Parent/Child.model.count", 7)
        let rerender = try graph.set("/App/Parent.start", 2)
        #expect(rerender.updates["/App/Parent/Child"] == ["@self"])
        #expect(try graph.get("/App/Parent/Child.count").wire == 5)
        #expect(try graph.get("/App/Parent/Child.model.count").wire == 7)
        let unmount = try graph.unmount("/App/Parent/Child")
        #expect(unmount.destroyed.map(\.reason) == ["ownerUnmounted"])
        try graph.mount(child)
        #expect(try graph.get("/App/Parent/Child.count").wire == 2)
        #expect(try graph.get("/App/Parent/Child.model.count").wire == 0)
    }

    @Test func rule4DroppedStateObjectInitializerIsReported() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "Parent", "state": ["n": 1], "body": ["{n}"]])
        try graph.mount([
            "parent": "/App/Parent", "name": "Child",
            "stateObjects": ["model": ["type": "ViewModel", "init": ["num": ["$parent": "n"]]]],
        ])
        let commit = try graph.set("/App/Parent.n", 2)
        #expect(commit.diagnostics.map(\.ignored) == [["num": 2]])
        #expect(try graph.get("/App/Parent/Child.model.num").wire == 1)
        guard
            case .diagnostic(_, let message, _, _, _, let hint)? = commit.changes.first(where: {
                $0.view != nil && $0.view == "/App/Parent/Child"
            })
        else {
            Issue.record("no diagnostic")
            return
        }
        #expect(message.contains("model"))
        #expect(hint.contains("id"))
        // Re-rendering with the original arguments drops nothing.
        #expect(try graph.set("/App/Parent.n", 1).diagnostics.isEmpty)
    }

    @Test func rule5ConstructedObservedObjectIsNewOnEachParentRenderButAPassedOneIsKept() throws {
        let graph = try makeGraph()
        try graph.mount([
            "parent": "/App", "name": "Parent", "state": ["tick": 0], "stateObjects": ["owned": ["type": "CounterObject"]],
            "body": ["{tick}"],
        ])
        try graph.mount(["parent": "/App/Parent", "name": "Made", "observedObjects": ["model": ["construct": "CounterObject"]]])
        try graph.mount(["parent": "/App/Parent", "name": "Passed", "observedObjects": ["model": ["$parent": "owned"]]])
        try graph.set("/App/Parent/Made.model.count", 3)
        try graph.set("/App/Parent/Passed.model.count", 3)
        let tick = try graph.set("/App/Parent.tick", 1)
        #expect(tick.updates == ["/App/Parent": ["_tick"], "/App/Parent/Made": ["@self"]])
        #expect(try graph.get("/App/Parent/Made.model.count").wire == 0)
        #expect(try graph.get("/App/Parent/Passed.model.count").wire == 3)
    }

    @Test func rule6NewIdentityResetsTheWholeSubtree() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "List", "state": ["selected": "a"], "body": ["{selected}"]])
        try graph.mount(["parent": "/App/List", "name": "Row", "id": ["$parent": "selected"], "state": ["expanded": false]])
        try graph.mount(["parent": "/App/List/Row[\"a\"]", "name": "Detail", "state": ["notes": ""]])
        try graph.set("/App/List/Row[\"a\"].expanded", true)
        try graph.set("/App/List/Row[\"a\"]/Detail.notes", "x")
        let change = try graph.set("/App/List.selected", "b")
        #expect(change.changes.contains(.viewUnmounted(view: "/App/List/Row[\"a\"]/Detail", reason: .identity)))
        #expect(change.changes.contains(.viewMounted(view: "/App/List/Row[\"b\"]/Detail", reason: .identity, body: [])))
        #expect(try graph.get("/App/List/Row[\"b\"].expanded").wire == false)
        #expect(try graph.get("/App/List/Row[\"b\"]/Detail.notes").wire == "")
        expectError(.unknownPath) { _ = try graph.get("/App/List/Row[\"a\"].expanded").wire }
    }

    /// Issue #25.2: two siblings whose ids trade places in one action are two new identities,
    /// each with fresh state (OpenSwiftUI's `IDView`), not a refused transaction: names are
    /// checked against the tree the transaction ends with.
    @Test func rule6SiblingsThatSwapIdsEachResetTheirOwnSubtree() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "Tabs", "state": ["first": "a", "second": "b"], "body": ["{first} {second}"]])
        for variable in ["first", "second"] {
            try graph.mount(["parent": "/App/Tabs", "name": "Tab", "id": ["$parent": .string(variable)], "state": ["count": 0]])
        }
        try graph.mount(["parent": "/App/Tabs/Tab[\"a\"]", "name": "Detail", "state": ["notes": ""]])
        try graph.set("/App/Tabs/Tab[\"a\"].count", 1)
        try graph.set("/App/Tabs/Tab[\"b\"].count", 2)
        try graph.set("/App/Tabs/Tab[\"a\"]/Detail.notes", "x")
        let (_, swap) = try graph.apply([
            .set(path: "/App/Tabs.first", value: "b", ifVersion: nil), .set(path: "/App/Tabs.second", value: "a", ifVersion: nil),
        ])
        #expect(
            swap.changes.filter {
                if case .viewUnmounted = $0 { true } else if case .viewMounted = $0 { true } else { false }
            } == [
                .viewUnmounted(view: "/App/Tabs/Tab[\"a\"]/Detail", reason: .identity),
                .viewUnmounted(view: "/App/Tabs/Tab[\"a\"]", reason: .identity),
                .viewUnmounted(view: "/App/Tabs/Tab[\"b\"]", reason: .identity),
                .viewMounted(view: "/App/Tabs/Tab[\"b\"]", reason: .identity, body: []),
                .viewMounted(view: "/App/Tabs/Tab[\"a\"]", reason: .identity, body: []),
                .viewMounted(view: "/App/Tabs/Tab[\"b\"]/Detail", reason: .identity, body: []),
            ])
        #expect(try graph.get("/App/Tabs/Tab[\"a\"].count").wire == 0)
        #expect(try graph.get("/App/Tabs/Tab[\"b\"].count").wire == 0)
        // The first tab is now Tab["b"], and the detail the old first tab had is under it, fresh.
        #expect(
            try graph.tree("/App/Tabs").wire["children"]?.arrayValue?.compactMap { $0["path"] } == [
                "/App/Tabs/Tab[\"b\"]", "/App/Tabs/Tab[\"a\"]",
            ])
        #expect(try graph.get("/App/Tabs/Tab[\"b\"]/Detail.notes").wire == "")
    }

    @Test func rule7NearestProviderWins() throws {
        let graph = try makeGraph()
        try graph.mount([
            "parent": "/App", "name": "Outer", "state": ["theme": ["$new": ["type": "Theme", "init": ["colorScheme": "dark"]]]],
            "provide": ["observables": ["theme"], "environment": ["locale": "ko_KR"]],
        ])
        try graph.mount([
            "parent": "/App/Outer", "name": "Reader",
            "environment": ["theme": ["type": "Theme"], "locale": ["key": "locale"], "scheme": ["key": "colorScheme"]],
            "body": ["{theme.colorScheme} {locale} {scheme}"],
        ])
        let (top, _) = try graph.mount([
            "parent": "/App", "name": "TopReader", "environment": ["theme": ["type": "Theme"]], "body": ["{theme.colorScheme}"],
        ])
        #expect(try graph.get("/App/Outer/Reader.theme.colorScheme").wire == "dark")
        // A key no ancestor provides reads its default (rule 21).
        #expect(try graph.tree("/App/Outer/Reader").wire["body"] == ["dark ko_KR light"])
        #expect(top?.body == ["light"])
        // A value read under another name is still reported by its key.
        #expect(try graph.provide("/App/Outer", environment: ["colorScheme": "dark"]).updates["/App/Outer/Reader"] == ["env.colorScheme"])
    }

    /// Issue #25.1: `CartScreen` owns a cart and injects it inside its body
    /// (`Child().environmentObject(cart)`), and reads `@EnvironmentObject var envCart: Cart`: the
    /// read comes from where CartScreen is placed, never from its own body's modifier.
    @Test func rule7AViewsOwnBodyModifiersNeverReachTheViewItself() throws {
        let graph = try makeGraph()
        let cartScreen: JSONObject = [
            "name": "CartScreen", "stateObjects": ["cart": ["type": "Cart"]], "environmentObjects": ["envCart": "Cart"],
            "provide": ["environmentObjects": ["cart"]], "body": ["{envCart}"],
        ]
        var alone = cartScreen
        alone["parent"] = "/App"
        let before = try graph.fingerprint()
        let error = expectError(.environmentObjectMissing) { try graph.mount(.object(alone)) }
        #expect(error?.data["searched"] == ["/App/CartScreen", "/App"])
        #expect(error?.data["hint"]?.stringValue?.hasPrefix("/App/CartScreen's own \"provide\" gives a Cart to its content") == true)
        #expect(try graph.fingerprint() == before)

        let (outer, _) = try graph.mount([
            "parent": "/App", "name": "Shop", "stateObjects": ["outerCart": ["type": "Cart"]],
            "provide": ["environmentObjects": ["outerCart"]],
        ])
        let outerCart = try #require(outer?.objects.first { $0.variable == "outerCart" }?.object)
        var placed = cartScreen
        placed["parent"] = "/App/Shop"
        let (screen, _) = try graph.mount(.object(placed))
        let ownCart = try #require(screen?.objects.first { $0.variable == "cart" }?.object)
        #expect(screen?.body == [.init(outerCart)])
        let (child, _) = try graph.mount([
            "parent": "/App/Shop/CartScreen", "name": "Child", "environmentObjects": ["cart": "Cart"], "body": ["{cart}"],
        ])
        #expect(child?.body == [.init(ownCart)])
        #expect(try graph.environmentScope(of: "/App/Shop/CartScreen").scope.environmentObjects.map(\.object) == [outerCart])
    }

    /// The same for `@Environment(T.self)` and for environment values: what a view's body provides
    /// reaches its content only.
    @Test func rule7AViewsOwnEnvironmentValuesAndObservablesComeFromAbove() throws {
        let graph = try makeGraph()
        let (view, _) = try graph.mount([
            "parent": "/App", "name": "Themed", "state": ["own": ["$new": ["type": "Theme", "init": ["colorScheme": "dark"]]]],
            "environment": ["scheme": ["key": "colorScheme"], "theme": ["type": "Theme"]],
            "provide": ["observables": ["own"], "environment": ["colorScheme": "dark"]], "body": ["{scheme} {theme.colorScheme}"],
        ])
        #expect(view?.body == ["light light"])
        let (content, _) = try graph.mount([
            "parent": "/App/Themed", "name": "Content", "environment": ["scheme": ["key": "colorScheme"], "theme": ["type": "Theme"]],
            "body": ["{scheme} {theme.colorScheme}"],
        ])
        #expect(content?.body == ["dark dark"])
        // Changing what Themed's body provides re-renders its content, never Themed itself.
        let change = try graph.provide("/App/Themed", environment: ["colorScheme": "light"])
        #expect(change.updates == ["/App/Themed/Content": ["env.colorScheme"]])
        let missing = expectError(.environmentObjectMissing) {
            try graph.mount([
                "parent": "/App", "name": "Prefs", "state": ["own": ["$new": ["type": "NewObservable"]]],
                "environment": ["vm": ["type": "NewObservable"]], "provide": ["observables": ["own"]],
            ])
        }
        #expect(missing?.message.hasPrefix("No Observable object of type NewObservable found.") == true)
    }

    /// `Child().environmentObject(x)` in the parent's body (`modifiers`): that child and its
    /// subtree see it, its siblings do not; key paths are the parent's, re-read at each of its evaluations.
    @Test func rule7AModifierAtTheUseSiteReachesThatChildAndItsSubtreeOnly() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "Root", "state": ["flag": false], "body": ["{flag}"]])
        let (parent, _) = try graph.mount([
            "parent": "/App/Root", "name": "Parent", "inputs": ["flag": ["$parent": "flag"]],
            "observedObjects": ["cart": ["construct": "Cart"]],
        ])
        let first = try #require(parent?.objects.first?.object)
        let (marked, _) = try graph.mount([
            "parent": "/App/Root/Parent", "name": "Marked", "environmentObjects": ["cart": "Cart"],
            "environment": ["scheme": ["key": "colorScheme"]],
            "modifiers": ["environmentObjects": ["cart"], "environment": ["colorScheme": "dark"]], "body": ["{cart} {scheme}"],
        ])
        #expect(marked?.body == [.init("\(first) dark")])
        let (below, _) = try graph.mount([
            "parent": "/App/Root/Parent/Marked", "name": "Below", "environmentObjects": ["cart": "Cart"], "body": ["{cart}"],
        ])
        #expect(below?.body == [.init(first)])
        let (sibling, _) = try graph.mount([
            "parent": "/App/Root/Parent", "name": "Sibling", "environment": ["scheme": ["key": "colorScheme"]], "body": ["{scheme}"],
        ])
        #expect(sibling?.body == ["light"])
        // The modifier is written in Parent's body: Parent is its provider.
        let scope = try graph.environmentScope(of: "/App/Root/Parent/Marked").scope
        #expect(scope.environmentObjects.map(\.provider) == ["/App/Root/Parent"])
        #expect(scope.environment.first { $0.key == "colorScheme" }?.provider == "/App/Root/Parent")
        expectError(.environmentObjectMissing) {
            try graph.mount(["parent": "/App/Root/Parent", "name": "Other", "environmentObjects": ["cart": "Cart"]])
        }
        // Root re-renders: Parent constructs a new Cart (@self), and what it applies to Marked is the new one.
        let change = try graph.set("/App/Root.flag", true)
        let second = try #require(change.created.first?.object)
        #expect(change.updates["/App/Root/Parent/Marked"] == ["_cart"])
        #expect(change.body(of: "/App/Root/Parent/Marked") == [.init("\(second) dark")])
        #expect(change.body(of: "/App/Root/Parent/Marked/Below") == [.init(second)])
        // A modifier's key path must name an object of the parent's.
        expectError(.typeMismatch) {
            try graph.mount(["parent": "/App/Root", "name": "Bad", "modifiers": ["environmentObjects": ["flag"]]])
        }
    }

    @Test func rule8AMissingEnvironmentObjectFailsWithSwiftUIsMessage() throws {
        let graph = try makeGraph()
        let before = try graph.fingerprint()
        let error = expectError(.environmentObjectMissing) {
            try graph.mount(["parent": "/App", "name": "Checkout", "environmentObjects": ["cart": "Cart"]])
        }
        #expect(
            error?.message
                == "No ObservableObject of type Cart found. A View.environmentObject(_:) for Cart may be missing as an ancestor of this view."
        )
        #expect(error?.data["view"] == "/App/Checkout")
        #expect(error?.data["searched"] == ["/App/Checkout", "/App"])
        #expect(error?.data["hint"]?.stringValue?.contains("\"environmentObjects\"") == true)
        #expect(try graph.fingerprint() == before)
    }

    @Test func rule8WithdrawingARequiredObjectIsRefusedWithInUse() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "Needs", "environment": ["login": ["type": "Login"]]])
        let before = try graph.fingerprint()
        let error = expectError(.inUse) { try graph.provide("/App", withdraw: ["Login"]) }
        #expect(error?.data["dependents"] == ["/App/Needs"])
        #expect(error?.data["provided"] == "Login")
        #expect(try graph.fingerprint() == before)
        try graph.unmount("/App/Needs")
        try graph.provide("/App", withdraw: ["Login"])
        expectError(.environmentObjectMissing) {
            try graph.mount(["parent": "/App", "name": "Needs", "environment": ["login": ["type": "Login"]]])
        }
    }

    @Test func rule9WritingAnEqualValueIsNoChange() throws {
        let graph = try makeGraph()
        try graph.mount([
            "parent": "/App", "name": "V", "state": ["on": true], "environment": ["theme": ["type": "Theme"]],
            "body": ["{on} {theme.fontScale}"],
        ])
        let version = graph.version
        let same = try graph.set("/App/V.on", true)
        let sameProperty = try graph.set("theme.fontScale", 1)
        #expect(same.isEmpty && sameProperty.isEmpty)
        #expect(graph.version == version)
        #expect(same.version == version)
    }

    /// Issue #25.3: "equal" is equal to the value at the moment of the write. `on = false; on = true`
    /// and `level += 1; level -= 1` in one transaction are two real changes each: the readers
    /// re-render once, though the transaction ends where it began; its values are reported as they end.
    @Test func rule9ASetAndASetBackInOneTransactionStillInvalidate() throws {
        let graph = try makeGraph()
        try graph.mount([
            "parent": "/App", "name": "V", "state": ["on": true], "environment": ["theme": ["type": "Theme"]],
            "body": ["{on} {theme.fontScale}"],
        ])
        let version = graph.version
        let (_, state) = try graph.apply([
            .set(path: "/App/V.on", value: false, ifVersion: nil), .set(path: "/App/V.on", value: true, ifVersion: nil),
        ])
        #expect(state.version == version.next)
        #expect(state.updates == ["/App/V": ["_on"]])
        #expect(state.propertyChanges == ["/App/V.on": true])
        let (_, property) = try graph.apply([
            .set(path: "theme.fontScale", value: 2, ifVersion: nil), .set(path: "theme.fontScale", value: 1, ifVersion: nil),
        ])
        #expect(property.updates == ["/App/V": ["theme.fontScale"]])
        #expect(property.replaced[0] == .some(1.0))
        // The same inside one method of an @Observable: `level += 1; level -= 1`.
        _ = try graph.register(
            declaration: [
                "name": "Meter", "style": "observable", "properties": ["level": ["type": "int"]],
                "actions": [
                    "bump": [
                        "steps": [
                            ["set": "level", "to": ["+": [["get": "level"], 1]]], ["set": "level", "to": ["-": [["get": "level"], 1]]],
                        ]
                    ]
                ],
            ])
        try graph.mount([
            "parent": "/App", "name": "Gauge", "state": ["meter": ["$new": ["type": "Meter"]]], "body": ["{meter.level}"],
        ])
        let bump = try graph.call("/App/Gauge.meter.bump")
        #expect(bump.updates == ["/App/Gauge": ["meter.level"]])
        #expect(bump.body(of: "/App/Gauge") == ["0"])
        // Two equal writes are still no change at all.
        let (_, equal) = try graph.apply([
            .set(path: "/App/V.on", value: true, ifVersion: nil), .set(path: "theme.fontScale", value: 1, ifVersion: nil),
        ])
        #expect(equal.isEmpty && equal.version == bump.version)
    }

    @Test func rule10EachReasonIsReported() throws {
        let graph = try makeGraph()
        _ = try graph.declareEnvironmentKeys(["tone": ["type": "string", "default": "neutral"]])
        try graph.mount([
            "parent": "/App", "name": "Parent", "state": ["label": "x", "flag": false, "counter": ["$new": ["type": "Counter"]]],
            "stateObjects": ["box": ["type": "CounterObject"]],
            "provide": ["environment": ["tone": "warm"]], "body": ["{label}"],
        ])
        try graph.mount([
            "parent": "/App/Parent", "name": "Child", "inputs": ["label": ["$parent": "label"], "counter": ["$parent": "counter"]],
            "bindings": ["flag": ["$parent": "flag"]], "environment": ["tone"], "observedObjects": ["box": ["$parent": "box"]],
            "body": ["{label} {flag} {counter.count} {tone}"],
        ])
        let child = "/App/Parent/Child"
        #expect(try graph.set("/App/Parent.label", "y").updates[child] == ["@self"])
        // Parent holds flag's binding for Child, so it re-renders too, passing a new value (@self).
        #expect(try graph.set("/App/Parent.flag", true).updates[child] == ["@self", "_flag"])
        #expect(try graph.call("/App/Parent.counter.add").updates[child] == ["counter.count"])
        #expect(try graph.call("/App/Parent.box.add").updates[child] == ["_box"])
        #expect(try graph.provide("/App/Parent", environment: ["tone": "cool"]).updates[child] == ["env.tone"])
    }

    /// Issue #25.5: a `Binding` carries its value (OpenSwiftUI's `Binding.Box`). A parent that passes
    /// one whose value changed since its own last evaluation passes its child a new value, `@self`,
    /// whether or not the child reads it; `_var` only when the child's body read it. And a `@State`
    /// a child holds a binding to counts as read by its own view (SwiftUI's `StoredLocation.wasRead`,
    /// which the binding's update sets): the parent re-renders though its body only passes it.
    @Test func rule10APassedBindingWhoseValueChangedIsANewValue() throws {
        let graph = try makeGraph()
        try graph.mount([
            "parent": "/App", "name": "Parent", "state": ["text": "", "other": 0, "vm": ["$new": ["type": "NewObservable"]]],
            "body": ["{other}"],
        ])
        try graph.mount(["parent": "/App/Parent", "name": "Reads", "bindings": ["text": ["$parent": "text"]], "body": ["{text}"]])
        try graph.mount(["parent": "/App/Parent", "name": "Passes", "bindings": ["text": ["$parent": "text"]], "body": ["Toggle"]])
        let typed = try graph.set("/App/Parent/Reads.text", "kim")
        #expect(typed.updates == ["/App/Parent": ["_text"], "/App/Parent/Reads": ["@self", "_text"], "/App/Parent/Passes": ["@self"]])
        // An @Observable's property is another matter: the parent depends on what its body reads.
        try graph.mount(["parent": "/App/Parent", "name": "Counts", "bindings": ["n": ["$parent": "vm.count"]], "body": ["{n}"]])
        #expect(try graph.set("/App/Parent/Counts.n", 3).updates == ["/App/Parent/Counts": ["_n"]])
        // Parent re-renders for another reason, and its binding to vm.count now carries 3 where it carried 0.
        #expect(try graph.set("/App/Parent.other", 1).updates == ["/App/Parent": ["_other"], "/App/Parent/Counts": ["@self"]])
        // Again, with nothing new in any binding: no @self.
        #expect(try graph.set("/App/Parent.other", 2).updates == ["/App/Parent": ["_other"]])
    }

    @Test func rule11EachViewIsEvaluatedOnceParentsFirstUnderOneVersion() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "Parent", "state": ["a": 0, "b": 0], "body": ["{a}{b}"]])
        try graph.mount([
            "parent": "/App/Parent", "name": "Child", "inputs": ["a": ["$parent": "a"]], "bindings": ["b": ["$parent": "b"]],
            "body": ["{a}{b}"],
        ])
        let before = graph.version
        let (results, commit) = try graph.apply([
            .set(path: "/App/Parent/Child.b", value: 1, ifVersion: nil), .set(path: "/App/Parent.a", value: 1, ifVersion: nil),
            .set(path: "/App/Parent/Child.b", value: 2, ifVersion: nil),
        ])
        #expect(commit.updatedViews == ["/App/Parent", "/App/Parent/Child"])
        #expect(commit.updates["/App/Parent"] == ["_b", "_a"] || commit.updates["/App/Parent"] == ["_a", "_b"])
        #expect(Set(commit.updates["/App/Parent/Child"] ?? []) == ["_b", "@self"])
        #expect(commit.version == before.next)
        #expect(results.allSatisfy { if case .done = $0 { true } else { false } })
        #expect(commit.body(of: "/App/Parent/Child") == ["12"])
    }

    @Test func rule12ABodyReadingAComputedPropertyDependsOnWhatItsGetterRead() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "V", "environment": ["login": ["type": "Login"]], "body": ["{login.isValidEmail}"]])
        // Observation tracks the getter's read of `email`: every change of it re-renders the
        // body, even when the derived value stays false; the watch convenience stays change-only.
        let partial = try graph.set("login.email", "kim@")
        #expect(partial.updates["/App/V"] == ["login.email"])
        #expect(partial.propertyChanges["Login#3.isValidEmail"] == nil)
        let valid = try graph.set("login.email", "kim@example.com")
        #expect(valid.updates["/App/V"] == ["login.email"])
        #expect(valid.propertyChanges["Login#3.isValidEmail"] == .some(true))
        let stillValid = try graph.set("login.email", "lee@example.com")
        #expect(stillValid.updates["/App/V"] == ["login.email"])
        #expect(stillValid.propertyChanges["Login#3.isValidEmail"] == nil)
        // What the getter does not read is not a dependency.
        #expect(try graph.set("login.isUserLoggedIn", true).updates["/App/V"] == nil)
        expectError(.readOnly) { try graph.set("login.isValidEmail", false) }
    }

    @Test func rule12EmailPatternIsAWholeMatch() throws {
        let graph = try makeGraph()
        for (email, valid) in [
            ("a@b.co", true), ("a.b+c@d-e.org", true), ("x a@b.co", false), ("a@b.company", false), ("a@b.c", false), ("@b.co", false),
        ] {
            try graph.set("login.email", .string(email))
            #expect(try graph.get("login.isValidEmail").wire == .bool(valid), "\(email)")
        }
    }

    @Test func rule12TheHandWrittenEmailCheckAgreesWithTheSeedPattern() throws {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("aZ09._%+-@.@x-".unicodeScalars) + ["é", " "]
        var samples = ["a@b.co", "a@b.c", "a@b.company", "@b.co", "a@.co", "a@b.", "a@@b.co", "a.b@c.d.ef", "é@b.co", "a@b-c.CoM"]
        for _ in 0..<2000 {
            let length = Int.random(in: 1...12, using: &generator)
            samples.append(String(String.UnicodeScalarView((0..<length).map { _ in alphabet.randomElement(using: &generator)! })))
        }
        for sample in samples {
            #expect(Login.isValidEmail(sample) == (try WholeMatch.matches(sample, pattern: Login.emailPattern)), "\(sample)")
        }
    }

    /// Rule 13: a secure write is never compared with the value it replaces, so a right guess
    /// and a wrong one commit alike: a version, the same redacted change, the same re-render.
    @Test func rule13AnEqualSecureWriteCommitsLikeADifferentOne() throws {
        let graph = try makeGraph()
        try graph.mount([
            "parent": "/App", "name": "Form", "environment": ["login": ["type": "Login"]], "body": ["{login.password}"],
        ])
        try graph.set("login.password", "right")
        var commits: [Commit] = []
        for guess: JSON in ["right", "wrong"] { commits.append(try graph.set("login.password", guess)) }
        for commit in commits {
            #expect(commit.changes.first == .property(object: "Login#3", type: "Login", property: "password", value: nil))
            #expect(commit.updates == ["/App/Form": ["login.password"]])
            #expect(commit.body(of: "/App/Form") == ["<secure>"])
        }
        #expect(commits[1].version == commits[0].version.next)
    }

    @Test func rule13SecureValuesNeverLeaveTheEngine() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "V", "environment": ["login": ["type": "Login"]], "body": ["pw: {login.password}"]])
        let write = try graph.set("login.password", "hunter2-secret")
        #expect(write.propertyChanges["Login#3.password"] == .some(nil))
        #expect(write.body(of: "/App/V") == ["pw: <secure>"])
        expectError(.forbidden) { _ = try graph.get("login.password").wire }
        let snapshot = try graph.get("login").wire
        #expect(snapshot["redacted"] == ["password"])
        #expect(snapshot["values"]?["password"] == nil)
        #expect(!(try graph.tree().wire.jsonText.contains("hunter2")))
        #expect(!write.changes.map { "\($0)" }.joined().contains("hunter2"))
        let start = try graph.call("session.start", ["kim"])
        #expect(start.propertyChanges["Session#1.token"] == .some(nil))
        expectError(.invalidDeclaration) {
            try graph.mount(["parent": "/App", "name": "Leak", "inputs": ["pw": ["$parent": "login.password"]]])
        }
        let invalid = expectError(.invalidValue) {
            try graph.register(
                ModelType(declaration: [
                    "name": "Pin", "properties": ["code": ["type": "string", "secure": true, "pattern": "[0-9]{4}", "default": "0000"]],
                ]))
            try graph.mount(["parent": "/App", "name": "P", "state": ["pin": ["$new": ["type": "Pin"]]]])
            try graph.set("/App/P.pin.code", "secret-abc")
        }
        #expect(invalid?.data["value"] == nil)
        #expect(!(invalid?.message.contains("secret-abc") ?? true))
    }

    @Test func rule14AnActionThatFailsChangesNothing() throws {
        let graph = try makeGraph()
        try graph.register(
            ModelType(
                name: "Wallet", style: .observable, stored: [StoredProperty("balance", .int), StoredProperty("log", .array(.string))],
                actions: [
                    Action("withdraw", parameters: [("amount", .int)]) { context throws(EngineError) in
                        let amount = context.arguments[0].intValue ?? 0
                        try context.set("log", [.string("withdraw \(amount)")])
                        let balance = (try context.get("balance").intValue ?? 0) - amount
                        try context.set("balance", .int(balance))
                        return .int(balance)
                    }
                ]))
        try graph.register(
            ModelType(name: "Account", style: .observable, stored: [StoredProperty("balance", .int, validation: Constraints(min: 0))]))
        try graph.mount(["parent": "/App", "name": "Bank", "state": ["wallet": ["$new": ["type": "Wallet", "init": ["balance": 5]]]]])
        let before = try graph.fingerprint()
        // The action writes its log, then the transaction's next op fails: neither write stays.
        expectError(.typeMismatch) {
            _ = try graph.apply([
                .call(path: "/App/Bank.wallet.withdraw", arguments: [3]),
                .set(path: "/App/Bank.wallet.balance", value: "x", ifVersion: nil),
            ])
        }
        #expect(try graph.fingerprint() == before)
        #expect(try graph.call("/App/Bank.wallet.withdraw", [2]).propertyChanges.count == 2)
    }

    /// A failed transaction that wrote an object's property twice and then destroyed the object
    /// brings the object back with the value it had before the transaction: the value a write
    /// replaced is kept with the places the transaction touched, not in the journal.
    @Test func rule14AFailedTransactionBringsBackAnObjectItWroteAndDestroyed() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "Temp", "stateObjects": ["model": ["type": "CounterObject"]]])
        try graph.set("/App/Temp.model.count", 4)
        let before = try graph.fingerprint()
        expectError(.unknownPath) {
            _ = try graph.apply([
                .set(path: "/App/Temp.model.count", value: 5, ifVersion: nil),
                .set(path: "/App/Temp.model.count", value: 6, ifVersion: nil),
                .unmount(path: "/App/Temp"),
                .set(path: "/App/Temp.model.count", value: 7, ifVersion: nil),
            ])
        }
        #expect(try graph.fingerprint() == before)
        #expect(try graph.get("/App/Temp.model.count").wire == 4)
    }

    @Test func rule15ConnectionViewsGoWhenItClosesUnlessRetained() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "Temp", "stateObjects": ["model": ["type": "CounterObject"]]], owner: ConnectionID(7))
        try graph.mount(["parent": "/App/Temp", "name": "Inner"], owner: ConnectionID(8))
        try graph.mount(["parent": "/App", "name": "Kept", "retain": true], owner: ConnectionID(7))
        try graph.mount(["parent": "/App", "name": "Other"], owner: ConnectionID(9))
        let close = graph.connectionClosed(ConnectionID(7))
        #expect(close.changes.contains(.viewUnmounted(view: "/App/Temp", reason: .connectionClosed)))
        #expect(close.changes.contains(.viewUnmounted(view: "/App/Temp/Inner", reason: .parentUnmounted)))
        #expect(
            close.changes.contains(
                .objectDestroyed(object: "CounterObject#4", type: "CounterObject", owner: "/App/Temp.model", reason: .ownerUnmounted)))
        #expect(Set(graph.viewPaths) == ["/App", "/App/Kept", "/App/Other"])
        let created = try graph.mount(["parent": "/App", "name": "Again", "stateObjects": ["model": ["type": "CounterObject"]]]).commit
        #expect(
            created.changes.contains(
                .objectCreated(object: "CounterObject#5", type: "CounterObject", owner: "/App/Again.model", reason: .stateObject)))
        #expect(graph.connectionClosed(ConnectionID(42)).isEmpty)
    }

    @Test func rule21EveryEnvironmentKeyHasADefaultAndOnlyDeclaredKeysExist() throws {
        let graph = try makeGraph()
        let (reader, _) = try graph.mount([
            "parent": "/App", "name": "Reader", "environment": ["colorScheme", "isEnabled", "locale", "dynamicTypeSize"],
            "body": ["{colorScheme} {isEnabled} {locale} {dynamicTypeSize}"],
        ])
        #expect(reader?.body == ["light true en_US large"])
        let undeclared = expectError(.invalidDeclaration) {
            try graph.mount(["parent": "/App", "name": "Toned", "environment": ["tone"], "body": ["{tone}"]])
        }
        #expect(undeclared?.message.contains("environmentKeys") == true)
        expectError(.invalidDeclaration) { try graph.provide("/App", environment: ["tone": "warm"]) }
        expectError(.invalidValue) { try graph.provide("/App", environment: ["colorScheme": "sepia"]) }
        expectError(.typeMismatch) { try graph.provide("/App", environment: ["isEnabled": "no"]) }

        #expect(try graph.declareEnvironmentKeys(["tone": ["type": "string", "default": "neutral"]]) == ["tone"])
        #expect(try graph.declareEnvironmentKeys(["tone": ["type": "string", "default": "neutral"]]) == [])
        expectError(.invalidDeclaration) { _ = try graph.declareEnvironmentKeys(["tone": ["type": "int"]]) }
        expectError(.invalidParams) { _ = try graph.declareEnvironmentKeys(["pin": ["type": "string", "secure": true]]) }
        let (toned, _) = try graph.mount(["parent": "/App", "name": "Toned", "environment": ["tone"], "body": ["{tone}"]])
        #expect(toned?.body == ["neutral"])
        #expect(try graph.provide("/App", environment: ["tone": "warm"]).body(of: "/App/Toned") == ["warm"])
        // Withdrawing the value brings the default back.
        #expect(try graph.provide("/App", withdraw: ["tone"]).body(of: "/App/Toned") == ["neutral"])
    }

    /// A declared key is checked as a declared property is: its default against its type and
    /// its constraints; declared again, constraints count; built-in keys keep SwiftUI's.
    @Test func rule21DeclaredKeysAreCheckedAndBuiltInOnesAreFixed() throws {
        let graph = try makeGraph()
        for declaration: JSON in [
            ["type": "int", "default": "x"], ["type": "int", "default": 50, "max": 10],
            ["type": "string", "default": "a", "oneOf": ["b"]], ["type": "string", "default": "a", "pattern": "("],
            ["type": "@Login?"],
        ] {
            expectError(.invalidDeclaration) { _ = try graph.declareEnvironmentKeys(["level": declaration]) }
        }
        #expect(try graph.declareEnvironmentKeys(["tone": ["type": "string", "default": "warm", "oneOf": ["warm", "cool"]]]) == ["tone"])
        let redeclared = expectError(.invalidDeclaration) {
            _ = try graph.declareEnvironmentKeys(["tone": ["type": "string", "default": "warm", "oneOf": ["warm", "hot"]]])
        }
        #expect(redeclared?.data["field"] == "environmentKeys.tone")
        expectError(.invalidDeclaration) {
            _ = try graph.declareEnvironmentKeys([
                "colorScheme": ["type": "string", "default": "light", "oneOf": ["light", "dark", "sepia"]]
            ])
        }
        expectError(.invalidDeclaration) {
            _ = try graph.declareEnvironmentKeys(["colorScheme": ["type": "string", "default": "light", "oneOf": ["light", "dark"]]])
        }
        expectError(.invalidValue) { try graph.provide("/App", environment: ["colorScheme": "sepia"]) }
    }
}
