import MilieuJSON
import MilieuProtocol
import Testing

@testable import MilieuEngine

/// Bindings into values (issue #28.6, SPEC §6.1, §6.5, semantics.md rules 1, 10, 23): `@Bindable`
/// and row objects written from a view.
@Suite struct BindingIntoValueTests {
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
