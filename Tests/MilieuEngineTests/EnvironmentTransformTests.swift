import MilieuJSON
import MilieuProtocol
import Testing

@testable import MilieuEngine

/// Environment values that combine with what a view inherits (#28 item 8): `.disabled`, which
/// ANDs `isEnabled` down the tree, and `.transformEnvironment`.
@Suite struct EnvironmentTransformTests {
    /// A form whose `locked` disables its content; `Reader` shows `@Environment(\.isEnabled)`.
    private func lockedForm(innerDisabled: JSON = false) throws -> Graph {
        let graph = try makeGraph()
        let reader: JSON = ["view": ["name": "Reader", "environment": ["on": ["key": "isEnabled"]], "body": ["enabled {on}"]]]
        try graph.mount([
            "parent": "/App", "name": "Form", "state": ["locked": true],
            "body": [["disabled": ["get": "locked"], "content": [["disabled": innerDisabled, "content": [reader]]]]],
        ])
        return graph
    }

    @Test func isEnabledReadsFalseInsideDisabledContentAndAnInnerFalseCannotTurnItOn() throws {
        let graph = try lockedForm()
        #expect(try graph.tree("/App/Form/Reader").wire["body"] == ["enabled false"])
        let unlocked = try graph.set("/App/Form.locked", false)
        #expect(unlocked.updates["/App/Form/Reader"] == ["env.isEnabled"])
        #expect(unlocked.body(of: "/App/Form/Reader") == ["enabled true"])
        let relocked = try graph.set("/App/Form.locked", true)
        #expect(relocked.body(of: "/App/Form/Reader") == ["enabled false"])
    }

    @Test func anInnerDisabledTrueTurnsItOffWhateverTheOuterSays() throws {
        let graph = try lockedForm(innerDisabled: true)
        try graph.set("/App/Form.locked", false)
        #expect(try graph.tree("/App/Form/Reader").wire["body"] == ["enabled false"])
    }

    /// SwiftUI's controls read `isEnabled`: an ancestor that provides it false turns them off.
    @Test func isEnabledProvidedFalseTurnsControlsOff() throws {
        let graph = try makeGraph()
        try graph.mount([
            "parent": "/App", "name": "Panel", "provide": ["environment": ["isEnabled": false]],
            "body": [["view": ["name": "Pad", "state": ["n": 0], "body": [["button": "+", "action": [["set": "n", "to": 1]]]]]]],
        ])
        #expect(try graph.controls(of: "/App/Panel/Pad").controls.map(\.disabled) == [true])
        let refused = expectError(.forbidden) { try graph.tap("/App/Panel/Pad", "+") }
        #expect(refused?.data["reason"] == "disabled")
        try graph.provide("/App/Panel", withdraw: ["isEnabled"])
        try graph.tap("/App/Panel/Pad", "+")
        #expect(try graph.get("/App/Panel/Pad.n").wire == 1)
    }

    /// A nesting depth, the classic use: each level adds one to what it inherits, and a change
    /// of the value at the top reaches every level through the transforms.
    @Test func transformEnvironmentCombinesWithWhatTheViewInherits() throws {
        let graph = try makeGraph()
        _ = try graph.register(declarations: [], environmentKeys: ["depth": ["type": "int", "default": 0]])
        let plusOne: JSON = ["+": [["get": "d"], 1]]
        let leaf: JSON = ["view": ["name": "Leaf", "environment": ["depth": ["key": "depth"]], "body": ["leaf {depth}"]]]
        let middle: JSON = [
            "view": [
                "name": "Middle", "environment": ["depth": ["key": "depth"]],
                "body": ["middle {depth}", ["transformEnvironment": "depth", "as": "d", "to": plusOne, "content": [leaf]]],
            ]
        ]
        try graph.mount([
            "parent": "/App", "name": "Top", "body": [["transformEnvironment": "depth", "as": "d", "to": plusOne, "content": [middle]]],
        ])
        #expect(try graph.tree("/App/Top/Middle").wire["body"] == ["middle 1"])
        #expect(try graph.tree("/App/Top/Middle/Leaf").wire["body"] == ["leaf 2"])
        let provided = try graph.provide("/App", environment: ["depth": 10])
        #expect(provided.updates["/App/Top/Middle"] == ["env.depth"] && provided.updates["/App/Top/Middle/Leaf"] == ["env.depth"])
        #expect(provided.body(of: "/App/Top/Middle") == ["middle 11"] && provided.body(of: "/App/Top/Middle/Leaf") == ["leaf 12"])
        #expect(provided.updates["/App/Top"] == nil, "the view that writes the transform reads nothing that changed")
        let scope = try graph.environmentScope(of: "/App/Top/Middle/Leaf").scope
        #expect(scope.environment.first { $0.key == "depth" }?.provider == "/App/Top/Middle", "the innermost transform's writer")
    }

    /// What the transform reads of its view is that view's dependency: a change re-renders it,
    /// and then the views below that read the key.
    @Test func aTransformReadingTheViewsStateFollowsIt() throws {
        let graph = try makeGraph()
        let reader: JSON = ["view": ["name": "Label", "environment": ["scale": ["key": "displayScale"]], "body": ["scale {scale}"]]]
        try graph.mount([
            "parent": "/App", "name": "Zoom", "state": ["zoom": 2.0],
            "body": [
                ["transformEnvironment": "displayScale", "as": "s", "to": ["*": [["get": "s"], ["get": "zoom"]]], "content": [reader]]
            ],
        ])
        #expect(try graph.tree("/App/Zoom/Label").wire["body"] == ["scale 2.0"])
        let zoomed = try graph.set("/App/Zoom.zoom", 3.0)
        #expect(zoomed.updates["/App/Zoom"] == ["_zoom"] && zoomed.updates["/App/Zoom/Label"] == ["env.displayScale"])
        #expect(zoomed.body(of: "/App/Zoom/Label") == ["scale 3.0"])
    }

    @Test func aTransformedValueTheKeyDoesNotTakeIsRefusedAndChangesNothing() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "Zoom", "state": ["zoom": 2.0]])
        let before = try graph.fingerprint()
        let refused = expectError(.invalidValue) {
            try graph.mount([
                "parent": "/App/Zoom", "name": "Bad",
                "body": [["transformEnvironment": "displayScale", "as": "s", "to": -1.0, "content": ["x"]]],
            ])
        }
        #expect(refused != nil)
        #expect(try graph.fingerprint() == before)
        expectError(.typeMismatch) {
            try graph.mount([
                "parent": "/App/Zoom", "name": "Worse",
                "body": [["transformEnvironment": "displayScale", "as": "s", "to": "big", "content": ["x"]]],
            ])
        }
        expectError(.invalidDeclaration) {
            try graph.mount([
                "parent": "/App/Zoom", "name": "Unknown",
                "body": [["transformEnvironment": "zoomLevel", "as": "s", "to": 1, "content": ["x"]]],
            ])
        }
    }
}
