import MilieuJSON
import MilieuProtocol
import Testing

@testable import MilieuEngine

/// Value types as values (issue #28 items 2 and 10, SPEC §6.1 `stateTypes`, §5.2): a `@State`
/// given its Swift type (`String?`, an enum with associated values, a struct), and struct and
/// enum values in `@State` and in properties, compared memberwise (rule 9).
@Suite struct ValueTypesTests {
    /// `@State var name: String? = "kim"`: the declared type, not the first value's, decides what
    /// may be written; `name = nil` is a change, and a number is still refused.
    @Test func aStateGivenAnOptionalTypeTakesNil() throws {
        let graph = try makeGraph()
        try graph.mount([
            "parent": "/App", "name": "V", "state": ["name": "kim"], "stateTypes": ["name": "string?"], "body": ["{name}"],
        ])
        let cleared = try graph.set("/App/V.name", .null)
        #expect(cleared.updates == ["/App/V": ["_name"]])
        #expect(cleared.body(of: "/App/V") == ["null"])
        let refused = expectError(.typeMismatch) { try graph.set("/App/V.name", 3) }
        #expect(refused?.data["expected"] == "string?")
        try graph.set("/App/V.name", "lee")
        #expect(try graph.get("/App/V.name").wire == "lee")
    }

    /// Without `stateTypes` the first value still decides (SPEC §5.4): a string stays a string.
    @Test func aStateWithoutATypeKeepsItsFirstValuesKind() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "V", "state": ["name": "kim"], "body": ["{name}"]])
        let refused = expectError(.typeMismatch) { try graph.set("/App/V.name", .null) }
        #expect(refused?.data["expected"] == "string")
    }

    /// `@State var mode: ActivityType = .cleared` then `mode = .added(3)`: an enum with associated
    /// values is `json`; its payload case is an object, compared memberwise, so writing the same
    /// case and payload again is no change (rule 9).
    @Test func aStateTypedJSONHoldsAnEnumCaseAndItsPayload() throws {
        let graph = try makeGraph()
        try graph.mount([
            "parent": "/App", "name": "V", "state": ["mode": "cleared"], "stateTypes": ["mode": "json"], "body": ["{mode}"],
        ])
        let added = try graph.set("/App/V.mode", ["added": 3])
        #expect(added.updates == ["/App/V": ["_mode"]])
        #expect(added.body(of: "/App/V") == [#"{"added":3}"#])
        let version = graph.version
        #expect(try graph.set("/App/V.mode", ["added": 3]).isEmpty)
        #expect(graph.version == version)
        #expect(try graph.set("/App/V.mode", ["added": 4]).updates == ["/App/V": ["_mode"]])
        #expect(try graph.set("/App/V.mode", ["removed": ["prime": 4]]).updates == ["/App/V": ["_mode"]])
    }

    /// `@State var p = Point(x: 1, y: 2)`: a record. An equal struct, its members in any order, is
    /// no change (SwiftUI compares the stored value); a member written is a change of `p`; a value
    /// of another shape is refused with the member named.
    @Test func aStructStateIsComparedMemberwise() throws {
        let graph = try makeGraph()
        try graph.mount([
            "parent": "/App", "name": "V", "state": ["p": ["x": 1, "y": 2]],
            "stateTypes": ["p": ["record": ["x": "int", "y": "int"]]], "body": ["{p.x}"],
        ])
        #expect(try graph.set("/App/V.p", ["y": 2, "x": 1]).isEmpty)
        #expect(try graph.set("/App/V.p.x", 1).isEmpty)
        let moved = try graph.set("/App/V.p.x", 2)
        #expect(moved.updates == ["/App/V": ["_p"]])
        #expect(moved.propertyChanges == ["/App/V.p": ["x": 2, "y": 2]])
        expectError(.typeMismatch) { try graph.set("/App/V.p.x", "2") }
        expectError(.typeMismatch) { try graph.set("/App/V.p", ["x": 1]) }
    }

    /// A button's `p = Point(x: 1, y: 2)` writes a record built by an expression: equal, no change.
    @Test func aButtonWritingAnEqualStructChangesNothing() throws {
        let graph = try makeGraph()
        try graph.mount([
            "parent": "/App", "name": "V", "state": ["p": ["x": 1, "y": 2]],
            "stateTypes": ["p": ["record": ["x": "int", "y": "int"]]],
            "body": [
                ["text": ["get": "p.x"]], ["button": "same", "action": [["set": "p", "to": ["object": ["x": 1, "y": 2]]]]],
                ["button": "move", "action": [["set": "p.x", "to": ["+": [["get": "p.x"], 1]]]]],
            ],
        ])
        #expect(try graph.tap("/App/V", "same").isEmpty)
        let moved = try graph.tap("/App/V", "move")
        #expect(moved.updates == ["/App/V": ["_p"]])
        #expect(moved.body(of: "/App/V") == ["2", #"Button("same")"#, #"Button("move")"#])
    }

    /// The type is checked at mount: the initial value must fit it (an int becomes a double), a
    /// type is for a `@State` the view declares, and an object is held with `$new`, not typed.
    @Test func aStateTypeIsCheckedAtMount() throws {
        let graph = try makeGraph()
        try graph.mount([
            "parent": "/App", "name": "V", "state": ["scale": 1], "stateTypes": ["scale": "double"], "body": ["{scale}"],
        ])
        #expect(try graph.get("/App/V.scale").wire == 1.0)
        let misfit = expectError(.typeMismatch) {
            try graph.mount(["parent": "/App", "name": "W", "state": ["n": "one"], "stateTypes": ["n": "int"]])
        }
        #expect(misfit?.data["expected"] == "int")
        let cases: [(JSONObject, String)] = [
            (["state": ["n": 1], "stateTypes": ["m": "int"]], "stateTypes.m"),
            (["state": ["n": 1], "stateTypes": ["n": "integer"]], "stateTypes.n"),
            (["state": ["n": 1], "stateTypes": ["n": "@Login"]], "stateTypes.n"),
            (["state": ["vm": ["$new": ["type": "Login"]]], "stateTypes": ["vm": "json"]], "stateTypes.vm"),
            (["state": ["n": 1], "stateTypes": ["n", "int"]], "stateTypes"),
        ]
        for (members, field) in cases {
            var declaration: JSONObject = ["parent": "/App", "name": "X"]
            for (key, value) in members { declaration[key] = value }
            let error = expectError(.invalidDeclaration) { try graph.mount(.object(declaration)) }
            #expect(error?.data["field"] == .string(field), "\(members)")
        }
    }

    /// A `@State`'s type holds for a view written in a body and for its initial value from `$expr`.
    @Test func aChildsStateTypeHoldsForAnInitialValueFromItsParent() throws {
        let graph = try makeGraph()
        try graph.mount([
            "parent": "/App", "name": "P", "state": ["who": "kim"],
            "body": [
                [
                    "view": [
                        "name": "C", "state": ["name": ["$expr": ["get": "who"]]], "stateTypes": ["name": "string?"],
                        "body": ["{name}"],
                    ]
                ]
            ],
        ])
        #expect(try graph.set("/App/P/C.name", .null).updates == ["/App/P/C": ["_name"]])
    }

    /// Struct and enum values as properties of objects: an `@Observable`'s equal record write is no
    /// change; a `@Published` one still announces (rule 9: `@Published` has no equality check).
    @Test func structAndEnumPropertiesAreComparedAsTheirObservationSystemDoes() throws {
        let graph = try makeGraph()
        _ = try graph.register(
            declaration: [
                "name": "Canvas", "style": "observable",
                "properties": [
                    "origin": ["type": ["record": ["x": "int", "y": "int"]], "default": ["x": 0, "y": 0]],
                    "kind": ["type": "json", "default": "cleared"],
                ],
            ])
        _ = try graph.register(
            declaration: [
                "name": "Feed", "style": "observableObject",
                "properties": ["last": ["type": "json", "default": "cleared"]],
            ])
        try graph.mount([
            "parent": "/App", "name": "V", "state": ["canvas": ["$new": ["type": "Canvas"]]],
            "stateObjects": ["feed": ["type": "Feed"]], "body": ["{canvas.origin.x} {canvas.kind}"],
        ])
        #expect(try graph.set("/App/V.canvas.origin", ["y": 0, "x": 0]).isEmpty)
        #expect(try graph.set("/App/V.canvas.kind", "cleared").isEmpty)
        #expect(try graph.set("/App/V.canvas.kind", ["added": 3]).updates == ["/App/V": ["canvas.kind"]])
        #expect(try graph.set("/App/V.canvas.kind", ["added": 3]).isEmpty)
        try graph.set("/App/V.feed.last", ["removed": ["prime": 5]])
        #expect(try graph.set("/App/V.feed.last", ["removed": ["prime": 5]]).updates == ["/App/V": ["_feed"]])
    }
}
