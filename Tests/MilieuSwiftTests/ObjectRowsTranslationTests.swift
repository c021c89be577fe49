import Foundation
import MilieuJSON
import MilieuProtocol
import MilieuSwift
import Testing

@testable import MilieuEngine

/// `ForEach(todos) { todo in … }` over `Identifiable` objects, from Swift source (issue #28 item 2):
/// rows keyed by `todo.id`, keeping their state when the objects move, unmounting with them.
@Suite struct ObjectRowsTranslationTests {
    static let todos = """
        import SwiftUI

        @Observable class Todo: Identifiable {
            var id: Int
            var title: String
            init(id: Int, title: String) {
                self.id = id
                self.title = title
            }
        }

        @Observable class TodoList {
            var todos: [Todo] = []
        }

        struct TodoRow: View {
            let todo: Todo
            @State private var note = ""
            var body: some View {
                Text("\\(todo.title) \\(note)")
            }
        }

        struct Screen: View {
            @State private var list = TodoList()
            @State private var a = Todo(id: 1, title: "one")
            @State private var b = Todo(id: 2, title: "two")
            var body: some View {
                ForEach(list.todos) { todo in
                    Text(todo.title)
                    TodoRow(todo: todo)
                }
                Button("add") {
                    list.todos.append(a)
                    list.todos.append(b)
                }
                Button("reverse") { list.todos = [b, a] }
                Button("drop a") { list.todos = [b] }
            }
        }

        #Preview { Screen() }
        """

    @Test func rowsOverIdentifiableObjectsAreKeyedByTheirID() throws {
        let program = try LoadedProgram([Seeds.source("Todos.swift", Self.todos)])
        #expect(program.translation.printed.isEmpty, "\(program.translation.printed)")
        let screen = "/App/Screen"
        let buttons = [#"Button("add")"#, #"Button("reverse")"#, #"Button("drop a")"#]
        let added = try program.tap(screen, "add")
        #expect(added.mounts == ["\(screen)/TodoRow[1]": "row", "\(screen)/TodoRow[2]": "row"])
        #expect(added.body(of: screen) == ["one", "two"] + buttons)
        try program.set("\(screen)/TodoRow[1].note", "kept")
        let reversed = try program.tap(screen, "reverse")
        #expect(reversed.mounts.isEmpty && reversed.unmounts.isEmpty)
        #expect(reversed.body(of: screen) == ["two", "one"] + buttons)
        #expect(try program.get("\(screen)/TodoRow[1].note") == "kept")
        let dropped = try program.tap(screen, "drop a")
        #expect(dropped.unmounts == ["\(screen)/TodoRow[1]": "row"])
        let renamed = try program.set("\(screen).b.title", "deux")
        #expect(renamed.updates == [screen: ["todo.title"], "\(screen)/TodoRow[2]": ["todo.title"]])
    }
}
