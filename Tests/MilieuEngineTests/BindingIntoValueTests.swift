import MilieuJSON
import MilieuProtocol
import Testing

@testable import MilieuEngine

/// Bindings into values (issue #28.6, SPEC §6.1, §6.5, semantics.md rules 1, 10, 23): `$user.name`,
/// `$items[0]`, `$profile.user.name`, `.constant(v)`, controls bound inside a value, and
/// `@Bindable` and row objects written from a view.
///
/// SwiftUI's model (OpenSwiftUI `Location.swift`, `Binding.swift`): `$user.name` is a
/// `ProjectedLocation` over the `@State`'s storage. Its `wasRead` is the storage's, so the view
/// owning `user` re-renders on any change of `user`; a write sets the whole `user`. The child's
/// `Binding` carries the projected value, so it is passed a new value (`@self`) only when `name`
/// changed, and its body, which read `name`, gives `_name` then, and only then.
@Suite struct BindingIntoValueTests {
    static let form: JSON = [
        "parent": "/App", "name": "D", "state": ["user": ["name": "kim", "age": 3]], "printChanges": true,
        "body": [
            [
                "view": [
                    "name": "F", "bindings": ["name": ["$parent": "user.name"]], "printChanges": true,
                    "body": [["textField": "c", "text": "name"], ["text": ["get": "name"]]],
                ]
            ]
        ],
    ]

    @Test func aChildBindsAFieldOfAStateStructAndItsWritesLandOnTheStruct() throws {
        let graph = try makeGraph()
        let mount = try graph.mount(Self.form).commit
        #expect(mount.printed["/App/D/F"] == "F: @self, @identity, _name changed.")
        #expect(mount.body(of: "/App/D/F") == ["TextField(\"c\")", "kim"])
        let typed = try graph.input("/App/D/F", "c", "bo")
        #expect(try graph.get("/App/D.user").wire == ["name": "bo", "age": 3])
        #expect(try graph.get("/App/D/F.name").wire == "bo")
        // D holds the binding's storage (read from now on); F is passed a new value and read it.
        #expect(typed.updates == ["/App/D": ["_user"], "/App/D/F": ["@self", "_name"]])
        #expect(typed.printed == ["/App/D": "D: _user changed.", "/App/D/F": "F: @self, _name changed."])
        #expect(typed.body(of: "/App/D/F") == ["TextField(\"c\")", "bo"])
        #expect(typed.propertyChanges["/App/D.user"] == .some(["name": "bo", "age": 3]))
        // Another field of the struct: D re-renders, F's binding carries the same name, so F is left alone.
        let aged = try graph.set("/App/D.user.age", 4)
        #expect(aged.updates == ["/App/D": ["_user"]])
        // A write through the binding's path is a write of the source too.
        #expect(try graph.set("/App/D/F.name", "lee").updates == ["/App/D": ["_user"], "/App/D/F": ["@self", "_name"]])
        #expect(try graph.get("/App/D.user").wire == ["name": "lee", "age": 4])
        let binding = try graph.tree("/App/D/F").bindings
        #expect(binding.map(\.name) == ["name"] && binding.map(\.source) == ["/App/D.user.name"])
        #expect(binding.map(\.value) == ["lee"])
        #expect(try graph.dependencies(of: "/App/D/F").dependencies.map(\.reasons) == [["_name"]])
        #expect(try graph.readers(of: "/App/D.user.name").map(\.view) == ["/App/D", "/App/D/F"])
        #expect(try graph.readers(of: "/App/D.user.age").map(\.view) == ["/App/D"])
    }

    @Test func aBindingReachesAnArrayElementAndANestedFieldAndPassesThroughABinding() throws {
        let graph = try makeGraph()
        try graph.mount([
            "parent": "/App", "name": "Screen",
            "state": ["items": ["a", "b"], "profile": ["user": ["name": "lee", "age": 4]]],
            "body": [
                [
                    "view": [
                        "name": "First", "bindings": ["text": ["$parent": "items.0"]], "body": [["textField": "first", "text": "text"]],
                    ]
                ],
                [
                    "view": [
                        "name": "Deep", "bindings": ["name": ["$parent": "profile.user.name"]],
                        "body": [["textField": "deep", "text": "name"], "{name}"],
                    ]
                ],
                [
                    "view": [
                        "name": "Mid", "bindings": ["user": ["$parent": "profile.user"]],
                        "body": [["view": ["name": "Leaf", "bindings": ["age": ["$parent": "user.age"]], "body": ["{age}"]]]],
                    ]
                ],
            ],
        ])
        let first = try graph.input("/App/Screen/First", "first", "x")
        #expect(try graph.get("/App/Screen.items").wire == ["x", "b"])
        #expect(first.updates == ["/App/Screen": ["_items"], "/App/Screen/First": ["@self", "_text"]])
        let deep = try graph.input("/App/Screen/Deep", "deep", "park")
        #expect(try graph.get("/App/Screen.profile").wire == ["user": ["name": "park", "age": 4]])
        // Mid's binding to profile.user carries a new value, so Mid is passed it; Leaf's age is the same.
        #expect(
            deep.updates == [
                "/App/Screen": ["_profile"], "/App/Screen/Deep": ["@self", "_name"], "/App/Screen/Mid": ["@self"],
            ])
        // A binding made from a binding reaches the same source, one member further.
        let aged = try graph.set("/App/Screen/Mid/Leaf.age", 5)
        #expect(try graph.get("/App/Screen.profile.user").wire == ["name": "park", "age": 5])
        #expect(
            aged.updates == [
                "/App/Screen": ["_profile"], "/App/Screen/Mid": ["@self"], "/App/Screen/Mid/Leaf": ["@self", "_age"],
            ])
        #expect(try graph.tree("/App/Screen/Mid/Leaf").bindings.map(\.source) == ["/App/Screen.profile.user.age"])
        // An element that is not there reads null; writing it is refused, and nothing changes.
        try graph.set("/App/Screen.items", [])
        #expect(try graph.get("/App/Screen/First.text").wire == .null)
        expectError(.unknownPath) { try graph.input("/App/Screen/First", "first", "y") }
        #expect(try graph.get("/App/Screen.items").wire == [])
    }

    @Test func aConstantBindingReadsItsValueAndRefusesAWrite() throws {
        let graph = try makeGraph()
        let mount = try graph.mount([
            "parent": "/App", "name": "P", "state": ["on": false],
            "body": [
                [
                    "view": [
                        "name": "Flag", "bindings": ["on": ["$constant": true]], "printChanges": true,
                        "body": [["text": ["if": [["get": "on"], "on", "off"]]], ["toggle": "flag", "isOn": "on"]],
                    ]
                ],
                ["view": ["name": "Mirror", "bindings": ["on": ["$constant": ["$parent": "on"]]], "printChanges": true, "body": ["{on}"]]],
                [
                    "view": [
                        "name": "Inverse", "inputs": ["label": "off"],
                        "bindings": ["off": ["$constant": ["$expr": ["not": ["get": "on"]]]], "text": ["$constant": ["$input": "label"]]],
                        "body": ["{text}: {off}"],
                    ]
                ],
            ],
        ]).commit
        #expect(mount.body(of: "/App/P/Inverse") == ["off: true"])
        #expect(mount.body(of: "/App/P/Flag") == ["on", "Toggle(\"flag\")"])
        #expect(try graph.controls(of: "/App/P/Flag").controls.map(\.value) == [.some(true)])
        for write in [{ try graph.input("/App/P/Flag", "flag", false) }, { try graph.set("/App/P/Flag.on", false) }] {
            let refused = expectError(.forbidden) { _ = try write() }
            #expect(refused?.data["reason"] == "constant")
            #expect(refused?.message == "/App/P/Flag.on: the binding is .constant(...), which cannot be written")
        }
        #expect(try graph.get("/App/P/Flag.on").wire == true)
        #expect(try graph.readers(of: "/App/P/Flag.on").isEmpty, "nothing writes a constant: nothing reads a change of it")
        #expect(try graph.tree("/App/P/Flag").wire["bindings"] == ["on": ["constant": true, "value": true]])
        // `.constant(on)`: P reads on to pass it; a new value is a new binding, which Flag's body reads.
        let flipped = try graph.set("/App/P.on", true)
        #expect(
            flipped.updates == ["/App/P": ["_on"], "/App/P/Mirror": ["@self", "_on"], "/App/P/Inverse": ["@self", "_off"]])
        #expect(flipped.body(of: "/App/P/Inverse") == ["off: false"])
        #expect(flipped.printed["/App/P/Mirror"] == "Mirror: @self, _on changed.")
        #expect(flipped.body(of: "/App/P/Mirror") == ["true"])
    }

    @Test func aBindingFormIsABindingOrAConstant() throws {
        let graph = try makeGraph()
        for (binding, reason) in [
            (["$constant": ["$new": ["type": "Counter"]]] as JSON, "$new makes an object for a @State or an input; it cannot be used here"),
            (["$input": "x"], "a binding is {\"$parent\": \"<state, binding or object.property>\"} or {\"$constant\": value}"),
        ] {
            let error = expectError(.invalidDeclaration) {
                try graph.mount(["parent": "/App", "name": "V", "inputs": ["x": 1], "bindings": ["b": binding]])
            }
            #expect(error?.data["reason"] == .string(reason))
        }
    }

    /// G7: OpenSwiftUI's `ProjectedLocation.wasRead` is its base's: a control bound into a value
    /// marks the `@State` it projects read, as one bound to the whole state does.
    @Test func aControlBoundIntoAValueMarksItsStateRead() throws {
        let graph = try makeGraph()
        try graph.mount([
            "parent": "/App", "name": "B", "printChanges": true,
            "state": ["user": ["name": "a"], "counts": [1, 2], "prefs": ["flavor": "a"]],
            "body": [
                ["textField": "n", "text": "user.name"], ["stepper": "qty", "value": "counts.0", "in": [0, 5]],
                ["picker": "flavor", "selection": "prefs.flavor", "options": ["literal": ["a", "b"]]],
                ["toggle": "fixed", "isOn": ["constant": false]],
            ],
        ])
        let typed = try graph.input("/App/B", "n", "b")
        #expect(typed.updates == ["/App/B": ["_user"]])
        #expect(typed.printed == ["/App/B": "B: _user changed."])
        #expect(try graph.input("/App/B", "qty", 3).updates == ["/App/B": ["_counts"]])
        #expect(try graph.get("/App/B.counts").wire == [3, 2])
        #expect(try graph.input("/App/B", "flavor", "b").updates == ["/App/B": ["_prefs"]])
        #expect(try graph.get("/App/B.prefs").wire == ["flavor": "b"])
        #expect(try graph.controls(of: "/App/B").controls.map(\.value) == [.some("b"), .some(3), .some("b"), .some(false)])
        expectError(.invalidParams) { try graph.input("/App/B", "qty", 6) }
        expectError(.invalidParams) { try graph.input("/App/B", "flavor", "c") }
        let constant = expectError(.forbidden) { try graph.input("/App/B", "fixed", true) }
        #expect(constant?.data["reason"] == "constant")
        #expect(constant?.message == "/App/B: Toggle(\"fixed\")'s binding is .constant(...), which cannot be written")
    }

    /// A control bound into a `@Binding`'s value reads the binding, as one bound to it does.
    @Test func aControlBoundIntoABindingReadsTheBinding() throws {
        let graph = try makeGraph()
        try graph.mount([
            "parent": "/App", "name": "Owner", "state": ["user": ["name": "a"]],
            "body": [
                ["view": ["name": "Editor", "bindings": ["user": ["$parent": "user"]], "body": [["textField": "n", "text": "user.name"]]]]
            ],
        ])
        let typed = try graph.input("/App/Owner/Editor", "n", "b")
        #expect(typed.updates == ["/App/Owner": ["_user"], "/App/Owner/Editor": ["@self", "_user"]])
    }

    /// G8: `@Bindable var vm: FormVM` is an input holding the object; `$vm.email` binds its property,
    /// and a button writes it or calls its actions (`let m: Model; m.count = 5` in Swift).
    @Test func anInputHoldingAnObjectIsBoundAndWrittenIntoAndAValueInputIsNot() throws {
        let graph = try makeGraph()
        try graph.mount([
            "parent": "/App", "name": "Screen", "state": ["vm": ["$new": ["type": "NewObservable"]]],
            "body": [
                [
                    "view": [
                        "name": "Form", "inputs": ["vm": ["$parent": "vm"], "title": ["name": "t"]], "printChanges": true,
                        "body": [
                            ["stepper": "count", "value": "vm.count"], ["text": ["get": "vm.count"]],
                            ["button": "reset", "action": [["set": "vm.count", "to": 0]]],
                            ["button": "add", "action": [["call": "vm.add"]]],
                            ["textField": "title", "text": "title.name"],
                        ],
                    ]
                ]
            ],
        ])
        let typed = try graph.input("/App/Screen/Form", "count", 5)
        #expect(try graph.get("/App/Screen.vm.count").wire == 5)
        #expect(typed.updates == ["/App/Screen/Form": ["vm.count"]])
        #expect(typed.printed == ["/App/Screen/Form": "Form: @dependencies changed."])
        try graph.tap("/App/Screen/Form", "add")
        #expect(try graph.get("/App/Screen.vm.count").wire == 6)
        #expect(try graph.tap("/App/Screen/Form", "reset").body(of: "/App/Screen/Form")?[1] == "0")
        // An input holding a value is its parent's constant, into it too: refused when written.
        let refused = expectError(.readOnly) { try graph.input("/App/Screen/Form", "title", "u") }
        #expect(refused?.data["reason"] == "input")
        for (body, field) in [
            ([["textField": "x", "text": "title"]] as JSON, "body.0.text"),
            ([["button": "x", "action": [["set": "title", "to": 1]]]], "body.0.action.0.set"),
        ] {
            let error = expectError(.invalidDeclaration) {
                try graph.mount(["parent": "/App", "name": "V", "inputs": ["title": "t"], "body": body])
            }
            #expect(error?.data["field"] == .string(field))
        }
    }

    /// G8: a `forEach` row's element that is an object is written into by a button in the row
    /// (`todo.done.toggle()`), checked to be an object when the button runs.
    @Test func aRowsObjectIsWrittenIntoAndARowsValueIsNot() throws {
        let graph = try makeGraph()
        try graph.mount([
            "parent": "/App", "name": "L",
            "state": [
                "a": ["$new": ["type": "Counter", "init": ["count": 1]]], "b": ["$new": ["type": "Counter", "init": ["count": 2]]],
                "nums": [7],
            ],
            "body": [
                [
                    "forEach": ["array": [["get": "a"], ["get": "b"]]], "as": "item",
                    "content": [
                        ["button": "ten", "action": [["set": "item.count", "to": 10]]],
                        ["button": "add", "action": [["call": "item.add"]]],
                    ],
                ],
                ["forEach": ["get": "nums"], "as": "n", "content": [["button": "n", "action": [["set": "n.x", "to": 1]]]]],
            ],
        ])
        try graph.tap("/App/L", "ten#2")
        try graph.tap("/App/L", "add#1")
        #expect(try graph.get("/App/L.a.count").wire == 2)
        #expect(try graph.get("/App/L.b.count").wire == 10)
        let refused = expectError(.readOnly) { try graph.tap("/App/L", "n") }
        #expect(refused?.message.contains("n is a local holding int, not an object") == true)
        let local = expectError(.invalidDeclaration) {
            try graph.mount([
                "parent": "/App", "name": "V", "state": ["nums": [1]],
                "body": [["forEach": ["get": "nums"], "as": "n", "content": [["button": "x", "action": [["set": "n", "to": 2]]]]]],
            ])
        }
        #expect(local?.data["reason"] == "n is a local (let), which cannot be written")
    }
}
