import MilieuJSON
import MilieuProtocol
import Testing

@testable import MilieuEngine

/// `ForEach(todos) { todo in TodoRow(todo: todo) }` over `Identifiable` objects (issue #28 item 2,
/// SPEC §6.3): each row is keyed by the object's `id`, read through the object as any body read.
@Suite struct ObjectRowsTests {
    static func makeTodoScreen() throws -> Graph {
        let graph = try makeGraph()
        _ = try graph.register(
            declaration: [
                "name": "Todo", "style": "observable",
                "properties": ["id": ["type": "int"], "title": ["type": "string"]],
            ])
        _ = try graph.register(
            declaration: ["name": "TodoList", "style": "observable", "properties": ["todos": ["type": ["array": "@Todo?"]]]])
        try graph.mount([
            "parent": "/App", "name": "L",
            "state": [
                "list": ["$new": ["type": "TodoList"]], "a": ["$new": ["type": "Todo", "init": ["id": 1, "title": "one"]]],
                "b": ["$new": ["type": "Todo", "init": ["id": 2, "title": "two"]]],
            ],
            "body": [
                [
                    "forEach": ["get": "list.todos"], "id": "id", "as": "todo",
                    "content": [
                        [
                            "view": [
                                "name": "TodoRow", "inputs": ["todo": ["$expr": ["get": "todo"]]], "state": ["note": ""],
                                "body": ["{todo.title} {note}"],
                            ]
                        ]
                    ],
                ],
                ["button": "add a", "action": [["append": "list.todos", "value": ["get": "a"]]]],
                ["button": "add b", "action": [["append": "list.todos", "value": ["get": "b"]]]],
                ["button": "reverse", "action": [["set": "list.todos", "to": ["array": [["get": "b"], ["get": "a"]]]]]],
                ["button": "drop a", "action": [["set": "list.todos", "to": ["array": [["get": "b"]]]]]],
            ],
        ])
        return graph
    }

    /// The rows are named by the objects' ids, `TodoRow[1]`, and mount as rows.
    @Test func rowsOverObjectsAreKeyedByTheirID() throws {
        let graph = try Self.makeTodoScreen()
        let first = try graph.tap("/App/L", "add a")
        #expect(first.mounts == ["/App/L/TodoRow[1]": "row"])
        #expect(first.body(of: "/App/L/TodoRow[1]") == ["one "])
        let second = try graph.tap("/App/L", "add b")
        #expect(second.mounts == ["/App/L/TodoRow[2]": "row"])
        #expect(try graph.tree("/App/L").children?.map(\.path) == ["/App/L/TodoRow[1]", "/App/L/TodoRow[2]"])
    }

    /// Reordering moves the rows with their state; a removed object's row unmounts (`row`).
    @Test func aRowKeepsItsStateWhenItsObjectMovesAndGoesWithIt() throws {
        let graph = try Self.makeTodoScreen()
        try graph.tap("/App/L", "add a")
        try graph.tap("/App/L", "add b")
        try graph.set("/App/L/TodoRow[1].note", "kept")
        let reversed = try graph.tap("/App/L", "reverse")
        #expect(reversed.mounts.isEmpty && reversed.unmounts.isEmpty)
        #expect(try graph.tree("/App/L").children?.map(\.path) == ["/App/L/TodoRow[2]", "/App/L/TodoRow[1]"])
        #expect(try graph.get("/App/L/TodoRow[1].note").wire == "kept")
        let dropped = try graph.tap("/App/L", "drop a")
        #expect(dropped.unmounts == ["/App/L/TodoRow[1]": "row"])
        #expect(dropped.mounts.isEmpty)
    }

    /// The id is read through the object, as the body reads: a new id re-renders the list, whose
    /// row for the old id goes and one for the new id comes, with fresh state.
    @Test func anObjectsIDIsADependencyOfTheList() throws {
        let graph = try Self.makeTodoScreen()
        try graph.tap("/App/L", "add b")
        try graph.set("/App/L/TodoRow[2].note", "old")
        let renumbered = try graph.set("/App/L.b.id", 5)
        #expect(renumbered.updates["/App/L"] == ["todo.id"])
        #expect(renumbered.unmounts == ["/App/L/TodoRow[2]": "row"])
        #expect(renumbered.mounts == ["/App/L/TodoRow[5]": "row"])
        #expect(try graph.get("/App/L/TodoRow[5].note").wire == "")
        // A title is the row's own read, not the list's.
        #expect(try graph.set("/App/L.b.title", "deux").updates == ["/App/L/TodoRow[5]": ["todo.title"]])
    }
}

extension ObjectRowsTests {
    /// `ForEach(todos) { todo in Text(todo.title) }`: the row's content reads through the element's
    /// object, tracked as the body's read (reason `todo.title`), where it used to read null.
    @Test func aRowsContentReadsThroughItsElementsObject() throws {
        let graph = try makeGraph()
        _ = try graph.register(
            declaration: [
                "name": "Todo", "style": "observable",
                "properties": ["id": ["type": "int"], "title": ["type": "string"], "done": ["type": "bool"]],
            ])
        try graph.mount([
            "parent": "/App", "name": "L",
            "state": [
                "a": ["$new": ["type": "Todo", "init": ["id": 1, "title": "one"]]],
                "b": ["$new": ["type": "Todo", "init": ["id": 2, "title": "two"]]],
            ],
            "body": [
                [
                    "forEach": ["array": [["get": "a"], ["get": "b"]]], "id": "id", "as": "todo",
                    "content": [
                        ["text": ["cat": [["get": "todo.title"], " ", ["get": "todo.done"]]]],
                        ["button": ["get": "todo.title"], "action": [["set": "b.done", "to": ["not": ["get": "todo.done"]]]]],
                    ],
                ]
            ],
        ])
        #expect(try graph.tree("/App/L").body == ["one false", #"Button("one")"#, "two false", #"Button("two")"#])
        let renamed = try graph.set("/App/L.b.title", "deux")
        #expect(renamed.updates == ["/App/L": ["todo.title"]])
        #expect(renamed.body(of: "/App/L") == ["one false", #"Button("one")"#, "deux false", #"Button("deux")"#])
        // A button in the row reads its element's object too: `b.done = !todo.done`.
        let done = try graph.tap("/App/L", "deux")
        #expect(done.updates == ["/App/L": ["todo.done"]])
        #expect(try graph.get("/App/L.b.done").wire == true)
    }
}
