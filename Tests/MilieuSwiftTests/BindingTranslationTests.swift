import MilieuJSON
import MilieuProtocol
import MilieuSwift
import Testing

@testable import MilieuEngine

/// Bindings into values from Swift source (issue #28.6): `$items[0]`, `$user.name`,
/// `$profile.user.name`, `.constant(v)` passed to a `@Binding`, `@Bindable`, and writes into an
/// object a view is passed or a row holds.
@Suite struct BindingTranslationTests {
    static let nameField = """
        struct NameField: View {
            @Binding var name: String
            var body: some View {
                let _ = Self._printChanges()
                TextField("child", text: $name)
            }
        }

        """

    /// The first element of the view's `body` that is a child view named `name`, or a control with `form`.
    static func element(_ scene: JSON, view: String? = nil, form: String? = nil) -> JSON? {
        scene["views"]?.arrayValue?.first?["body"]?.arrayValue?.first { element in
            if let view { return element["view"]?["name"] == .string(view) }
            return form.map { element[$0] != nil } ?? false
        }
    }

    @Test func anArrayElementIsBoundByIndexAndWrittenThroughTheState() throws {
        let program = try LoadedProgram([
            Seeds.source(
                "Items.swift",
                Self.nameField + """
                    struct Screen: View {
                        @State private var items: [String] = []
                        var body: some View {
                            let _ = Self._printChanges()
                            TextField("first", text: $items[0])
                            NameField(name: self.$items[1])
                            Button("fill") {
                                items.append("a")
                                items.append("b")
                            }
                        }
                    }

                    #Preview { Screen() }

                    """)
        ])
        let scene = program.translation.scene
        #expect(Self.element(scene, form: "textField") == ["textField": "first", "text": "items.0"])
        #expect(Self.element(scene, view: "NameField")?["view"]?["bindings"] == ["name": ["$parent": "items.1"]])
        try program.tap("/App/Screen", "fill")
        let first = try program.input("/App/Screen", "first", "x")
        #expect(first.updates == ["/App/Screen": ["_items"]])
        #expect(first.printed == ["Screen: _items changed."])
        let child = try program.input("/App/Screen/NameField", "child", "y")
        #expect(try program.get("/App/Screen.items") == ["x", "y"])
        #expect(child.updates == ["/App/Screen": ["_items"], "/App/Screen/NameField": ["@self", "_name"]])
        #expect(child.printed == ["Screen: _items changed.", "NameField: @self, _name changed."])
    }

    @Test func aFieldOfAStructAndANestedOneAreBoundAsKeyPaths() throws {
        let translation = SwiftTranslator.translate([
            Seeds.source(
                "Users.swift",
                Self.nameField + """
                    struct User {
                        var name: String
                        var age: Int
                    }

                    struct Profile {
                        var user: User
                    }

                    struct Screen: View {
                        @State private var user = User(name: "kim", age: 3)
                        @State private var profile = Profile(user: User(name: "lee", age: 4))
                        var body: some View {
                            TextField("user", text: $user.name)
                            NameField(name: $profile.user.name)
                        }
                    }

                    #Preview { Screen() }

                    """)
        ])
        #expect(Self.element(translation.scene, form: "textField") == ["textField": "user", "text": "user.name"])
        #expect(
            Self.element(translation.scene, view: "NameField")?["view"]?["bindings"] == ["name": ["$parent": "profile.user.name"]])
        #expect(!translation.printed.contains { $0.contains("binding") }, "\(translation.printed)")
    }

    @Test func aConstantPassedToABindingReadsItsValueAndRefusesAWrite() throws {
        let program = try LoadedProgram([
            Seeds.source(
                "Flag.swift",
                """
                struct Flag: View {
                    @Binding var on: Bool
                    var body: some View {
                        let _ = Self._printChanges()
                        Text(on ? "on" : "off")
                        Toggle("flag", isOn: $on)
                    }
                }

                struct Screen: View {
                    @State private var shown = false
                    var body: some View {
                        Flag(on: .constant(true))
                        Flag(on: Binding.constant(shown))
                        Button("show") { shown = true }
                    }
                }

                #Preview { Screen() }

                """)
        ])
        let flags = program.translation.scene["views"]?.arrayValue?.first?["body"]?.arrayValue?.compactMap { $0["view"]?["bindings"] }
        #expect(flags == [["on": ["$constant": true]], ["on": ["$constant": ["$parent": "shown"]]]])
        #expect(program.mount.body(of: "/App/Screen/Flag") == ["on", "Toggle(\"flag\")"])
        let refused = #expect(throws: EngineError.self) { try program.input("/App/Screen/Flag", "flag", false) }
        #expect(refused?.kind == .forbidden && refused?.data["reason"] == "constant")
        let shown = try program.tap("/App/Screen", "show")
        #expect(shown.updates == ["/App/Screen": ["_shown"], "/App/Screen/Flag_2": ["@self", "_on"]])
        #expect(shown.printed == ["Flag: @self, _on changed."])
        #expect(shown.body(of: "/App/Screen/Flag_2") == ["on", "Toggle(\"flag\")"])
    }

    /// `@Bindable var vm: FormVM` is an input holding the object (it is not a dynamic property:
    /// `_printChanges` does not list it); `$vm.email` binds its property.
    @Test func aBindableObjectIsAnInputWhosePropertiesAreBound() throws {
        let program = try LoadedProgram([
            Seeds.source(
                "Bindable.swift",
                """
                @Observable class FormVM {
                    var email = ""
                }

                struct EmailForm: View {
                    @Bindable var vm: FormVM
                    var body: some View {
                        let _ = Self._printChanges()
                        TextField("email", text: $vm.email)
                        Text(vm.email)
                    }
                }

                struct Screen: View {
                    @State private var vm = FormVM()
                    var body: some View {
                        EmailForm(vm: vm)
                    }
                }

                #Preview { Screen() }

                """)
        ])
        #expect(Self.element(program.translation.scene, view: "EmailForm")?["view"]?["inputs"] == ["vm": ["$parent": "vm"]])
        let typed = try program.input("/App/Screen/EmailForm", "email", "kim@example.com")
        #expect(try program.get("/App/Screen.vm.email") == "kim@example.com")
        #expect(typed.updates == ["/App/Screen/EmailForm": ["vm.email"]])
        #expect(typed.printed == ["EmailForm: @dependencies changed."])
        #expect(typed.body(of: "/App/Screen/EmailForm") == ["TextField(\"email\")", "kim@example.com"])
    }

    /// `let m: Model` holds a reference: `m.count = 5` in a button writes the object.
    @Test func aButtonWritesIntoAnObjectItsViewIsPassed() throws {
        let program = try LoadedProgram([
            Seeds.source(
                "Passed.swift",
                """
                @Observable class Model {
                    var count = 0
                    func bump() { count += 1 }
                }

                struct Child: View {
                    let m: Model
                    var body: some View {
                        Text("\\(m.count)")
                        Button("five") { m.count = 5 }
                        Button("more") { m.bump() }
                    }
                }

                struct Screen: View {
                    @State private var m = Model()
                    var body: some View {
                        Child(m: m)
                    }
                }

                #Preview { Screen() }

                """)
        ])
        let five = try program.tap("/App/Screen/Child", "five")
        #expect(five.updates == ["/App/Screen/Child": ["m.count"]])
        #expect(five.body(of: "/App/Screen/Child")?.first == "5")
        try program.tap("/App/Screen/Child", "more")
        #expect(try program.get("/App/Screen.m.count") == 6)
    }

    /// `todo.done.toggle()` in a `ForEach` row: a write into the object the row's element is.
    @Test func aRowsObjectIsWrittenFromItsButton() throws {
        let translation = SwiftTranslator.translate([
            Seeds.source(
                "Rows.swift",
                """
                @Observable class Todo: Identifiable {
                    var id = 0
                    var done = false
                }

                struct Screen: View {
                    @State private var todos: [Todo] = []
                    var body: some View {
                        ForEach(todos) { todo in
                            Button("done") { todo.done.toggle() }
                        }
                    }
                }

                #Preview { Screen() }

                """)
        ])
        let rows = Self.element(translation.scene, form: "forEach")
        #expect(rows?["content"] == [["button": "done", "action": [["toggle": "todo.done"]]]])
        #expect(!translation.printed.contains { $0.contains("todo") }, "\(translation.printed)")
    }
}
