import Foundation
import MilieuJSON
import MilieuProtocol
import MilieuSwift
import Testing

@testable import MilieuEngine

/// Value types from Swift source (issue #28 items 7 and 10): struct and enum initial values of
/// `@State` and of properties, a `@State`'s annotation as its type, and `vm = Model()`.
@Suite struct ValueTranslationTests {
    static let activity = """
        import SwiftUI

        enum ActivityType {
            case added(Int)
            case removed(prime: Int)
            case pair(Int, Int)
            case cleared
        }

        struct Activity {
            let timestamp: Date
            let type: ActivityType
        }

        struct Point: Equatable {
            var x: Int
            var y: Int
        }

        class AppState: ObservableObject {
            @Published var feed: [Activity] = []
            @Published var last: ActivityType = .cleared
            func add(_ n: Int) {
                feed.append(Activity(timestamp: Date(), type: .added(n)))
                last = .removed(prime: n)
            }
        }

        @Observable class Canvas {
            var origin = Point(x: 0, y: 0)
            var kind: ActivityType = .cleared
        }

        struct Screen: View {
            @StateObject private var state = AppState()
            @State private var canvas = Canvas()
            @State private var p = Point(x: 1, y: 2)
            @State private var mode: ActivityType = .cleared
            @State private var primes = [2, 3, 5]
            @State private var name: String? = "kim"
            var body: some View {
                let _ = Self._printChanges()
                Text("\\(state.feed.count)")
                Text("\\(canvas.origin.x)")
                Text("\\(p.x)")
                Button("add") { state.add(5) }
                Button("same") { p = Point(x: 1, y: 2) }
                Button("move") { p.x += 1 }
                Button("mode") { mode = .added(3) }
                Button("pair") { mode = .pair(1, 2) }
                Button("origin") { canvas.origin = Point(x: 0, y: 0) }
                Button("prime") { primes.append(7) }
                Button("forget") { name = nil }
            }
        }

        #Preview { Screen() }
        """

    /// The translation keeps every initial value and gives each `@State` its Swift type.
    @Test func structAndEnumInitialValuesAreTranslated() throws {
        let translation = SwiftTranslator.translate([Seeds.source("Values.swift", Self.activity)])
        #expect(!translation.printed.contains { $0.contains("not modelled") }, "\(translation.printed)")
        let screen = try #require(translation.scene["views"]?.arrayValue?.first)
        #expect(
            screen["state"]
                == [
                    "canvas": ["$new": ["type": "Canvas"]], "p": ["x": 1, "y": 2], "mode": "cleared", "primes": [2, 3, 5],
                    "name": "kim",
                ])
        #expect(
            screen["stateTypes"]
                == ["p": ["record": ["x": "int", "y": "int"]], "mode": "json", "primes": ["array": "int"], "name": ["optional": "string"]])
        let types = try #require(translation.scene["types"]?.arrayValue)
        let canvas = try #require(types.first { $0["name"] == "Canvas" })
        #expect(canvas["properties"]?["origin"] == ["type": ["record": ["x": "int", "y": "int"]], "default": ["x": 0, "y": 0]])
        #expect(canvas["properties"]?["kind"] == ["type": "json", "default": "cleared"])
        let state = try #require(types.first { $0["name"] == "AppState" })
        #expect(state["properties"]?["last"] == ["type": "json", "default": "cleared"])
    }

    /// Struct values compare memberwise (rule 9): an equal point written is no change, a member
    /// written is `_p`; an enum case with associated values is written to a `json` `@State`, its
    /// label kept (`.removed(prime: 5)`); an optional `@State` takes nil.
    @Test func structAndEnumValuesRunAsSwiftUIRunsThem() throws {
        let program = try LoadedProgram([Seeds.source("Values.swift", Self.activity)])
        let screen = "/App/Screen"
        #expect(try program.tap(screen, "same").isEmpty)
        let moved = try program.tap(screen, "move")
        #expect(moved.updates == [screen: ["_p"]])
        #expect(moved.printed == ["Screen: _p changed."])
        #expect(try program.get("\(screen).p") == ["x": 2, "y": 2])
        // The body does not read mode: the write changes it and re-renders nothing.
        let mode = try program.tap(screen, "mode")
        #expect(!mode.isEmpty && mode.updates.isEmpty)
        #expect(try program.get("\(screen).mode") == ["added": 3])
        #expect(try program.tap(screen, "mode").isEmpty)
        try program.tap(screen, "pair")
        #expect(try program.get("\(screen).mode") == ["pair": ["_0": 1, "_1": 2]])
        #expect(try program.tap(screen, "origin").isEmpty)
        let added = try program.tap(screen, "add")
        #expect(added.updates == [screen: ["_state"]])
        #expect(try program.get("\(screen).state.last") == ["removed": ["prime": 5]])
        #expect(try program.get("\(screen).state.feed.0.type") == ["added": 5])
        try program.tap(screen, "prime")
        #expect(try program.get("\(screen).primes") == [2, 3, 5, 7])
        #expect(try program.tap(screen, "forget").updates.isEmpty, "the body does not read name")
        #expect(try program.get("\(screen).name") == .null)
    }

    static let replace = """
        import SwiftUI

        @Observable class Model {
            var count = 0
            init(count: Int = 0) { self.count = count }
        }

        struct Reader: View {
            let model: Model
            var body: some View {
                let _ = Self._printChanges()
                Text("reader \\(model.count)")
            }
        }

        struct Screen: View {
            @State private var vm = Model()
            var body: some View {
                let _ = Self._printChanges()
                Text("\\(vm.count)")
                Button("reset") { vm = Model() }
                Button("seven") { vm = Model(count: 7) }
                Reader(model: vm)
            }
        }

        #Preview { Screen() }
        """

    /// `vm = Model()` in a button: the `@State` holds a new object, the old one is destroyed
    /// `replaced` (though Reader held it too), the view re-renders with `_vm` and Reader with `@self`.
    @Test func aButtonReplacesTheObjectAStateHolds() throws {
        let program = try LoadedProgram([Seeds.source("Replace.swift", Self.replace)])
        #expect(!program.translation.printed.contains { $0.contains("not modelled") }, "\(program.translation.printed)")
        let screen = "/App/Screen"
        let old = program.mount.created.first { $0.reason == "state" }?.object
        let seven = try program.tap(screen, "seven")
        #expect(seven.updates == [screen: ["_vm"], "\(screen)/Reader": ["@self"]])
        #expect(seven.printed == ["Screen: _vm changed.", "Reader: @self changed."])
        #expect(seven.body(of: "\(screen)/Reader") == ["reader 7"])
        #expect(seven.created.map(\.reason) == ["state"])
        #expect(seven.destroyed.map(\.object) == [old])
        #expect(seven.destroyed.map(\.reason) == ["replaced"])
        let reset = try program.tap(screen, "reset")
        #expect(reset.body(of: screen)?.first == "0")
    }

    /// A struct whose one member is `type` reads as a `$new` left out: it is written in `$literal`.
    @Test func aStructThatLooksLikeAnObjectToMakeIsALiteral() throws {
        let source = """
            import SwiftUI
            struct Tag { var type: String }
            struct Screen: View {
                @State private var tag = Tag(type: "Work")
                var body: some View { Text(tag.type) }
            }
            #Preview { Screen() }
            """
        let program = try LoadedProgram([Seeds.source("Tag.swift", source)])
        let state = program.translation.scene["views"]?.arrayValue?.first?["state"]
        #expect(state == ["tag": ["$literal": ["type": "Work"]]])
        #expect(program.mount.body(of: "/App/Screen") == ["Work"])
    }

    /// A struct made memberwise takes its properties' defaults for what it does not pass, so that
    /// it fits its record (`var done = false`); a struct with a default that is not a constant
    /// (`let id = UUID()`) cannot be filled in, and is `json`, and the translation says which
    /// property is left out where such a value is made (each `Note` would get its own id).
    @Test func aStructsDefaultsFillWhatItsInitializerDoesNotPass() throws {
        let source = """
            import SwiftUI
            struct Item {
                var id: Int
                var done = false
            }
            struct Note: Identifiable {
                let id = UUID()
                var text: String
            }
            struct Screen: View {
                @State private var first = Item(id: 1)
                @State private var items: [Item] = []
                @State private var notes: [Note] = []
                var body: some View {
                    Button("add") { items.append(Item(id: 2)) }
                    Button("note") { notes.append(Note(text: "a")) }
                }
            }
            #Preview { Screen() }
            """
        let program = try LoadedProgram([Seeds.source("Items.swift", source)])
        let screen = try #require(program.translation.scene["views"]?.arrayValue?.first)
        #expect(screen["state"]?["first"] == ["id": 1, "done": false])
        let item: JSON = ["record": ["id": "int", "done": "bool"]]
        #expect(screen["stateTypes"] == ["first": item, "items": ["array": item]])
        try program.tap("/App/Screen", "add")
        #expect(try program.get("/App/Screen.items") == [["id": 2, "done": false]])
        try program.tap("/App/Screen", "note")
        #expect(try program.get("/App/Screen.notes") == [["text": "a"]])
        #expect(program.translation.printed.contains { $0.contains("Note.id") && $0.contains("UUID()") }, "\(program.translation.printed)")
    }

    /// `Button("+", action: vm.add)`: a method of an object the view holds, as `{ vm.add() }`.
    @Test func aButtonsActionMayNameAnObjectsMethod() throws {
        let source = """
            import SwiftUI
            class VM: ObservableObject {
                @Published var count = 0
                func add() { count += 1 }
            }
            struct Screen: View {
                @StateObject private var vm = VM()
                var body: some View {
                    Text("\\(vm.count)")
                    Button("+", action: vm.add)
                }
            }
            #Preview { Screen() }
            """
        let program = try LoadedProgram([Seeds.source("Action.swift", source)])
        #expect(program.translation.printed.isEmpty, "\(program.translation.printed)")
        #expect(try program.tap("/App/Screen", "+").body(of: "/App/Screen")?.first == "1")
    }

    /// `append(contentsOf:)` adds each element; Milieu's actions have no step for it, so the
    /// translation says it leaves the call out rather than appending the array as one element.
    @Test func appendContentsOfIsLeftOutAndSaidSoNotAppendedWhole() throws {
        let source = """
            import SwiftUI
            struct Numbers: View {
                @State private var items: [Int] = [1]
                var body: some View {
                    Text("\\(items.count)")
                    Button("more") { items.append(contentsOf: [2, 3]) }
                }
            }
            #Preview { Numbers() }
            """
        let program = try LoadedProgram([Seeds.source("Numbers.swift", source)])
        #expect(program.translation.printed.contains { $0.contains("append(contentsOf:)") }, "\(program.translation.printed)")
        _ = try program.tap("/App/Numbers", "more")
        #expect(try program.get("/App/Numbers.items") == [1])
    }

    /// A stored property with a `didSet` or `willSet` is a stored property all the same; the
    /// observer is not run, and the translation says so.
    @Test func aPropertyWithAnObserverIsStoredAndTheObserverSaidToBeLeftOut() throws {
        let source = """
            import SwiftUI
            final class Form: ObservableObject {
                @Published var username: String = "" {
                    didSet { edits += 1 }
                }
                @Published var edits = 0
            }
            struct Screen: View {
                @StateObject private var form = Form()
                var body: some View {
                    TextField("Name", text: $form.username)
                    Text(form.username)
                }
            }
            #Preview { Screen() }
            """
        let program = try LoadedProgram([Seeds.source("Observer.swift", source)])
        #expect(program.translation.printed.contains { $0.contains("didSet") }, "\(program.translation.printed)")
        let typed = try program.input("/App/Screen", "Name", "kim")
        #expect(typed.body(of: "/App/Screen") == [#"TextField("Name")"#, "kim"])
    }

    /// `self.count = count` in `init` writes a `@State` through its value before the view is
    /// installed: SwiftUI ignores it when the property has an initial value (`= 0`), keeping that,
    /// and warns at run time; without one, Swift makes it `_count = State(initialValue:)`.
    @Test func anInitWritingAStateThatHasAnInitialValueKeepsTheInitialValue() throws {
        let source = """
            import SwiftUI
            struct Counter: View {
                @State private var count = 0
                init(count: Int) { self.count = count }
                var body: some View { Text("\\(count)") }
            }
            struct Started: View {
                @State private var count: Int
                init(count: Int) { self.count = count }
                var body: some View { Text("\\(count)") }
            }
            struct Screen: View {
                var body: some View {
                    Counter(count: 5)
                    Started(count: 5)
                }
            }
            #Preview { Screen() }
            """
        let program = try LoadedProgram([Seeds.source("Counter.swift", source)])
        #expect(program.mount.body(of: "/App/Screen/Counter") == ["0"])
        #expect(program.mount.body(of: "/App/Screen/Started") == ["5"])
        let warned = program.translation.printed.contains { $0.contains("self.count") && $0.contains("State(initialValue:") }
        #expect(warned, "\(program.translation.printed)")
    }

    /// A dynamic property Milieu does not model (`@AppStorage`) is read as a plain property, and
    /// the translation says so rather than leaving it to be found.
    @Test func aDynamicPropertyMilieuDoesNotModelIsNamed() throws {
        let source = """
            import SwiftUI
            struct Launches: View {
                @AppStorage("launches") private var launches = 0
                var body: some View { Text("\\(launches)") }
            }
            #Preview { Launches() }
            """
        let program = try LoadedProgram([Seeds.source("Launches.swift", source)])
        #expect(program.translation.printed.contains { $0.contains("@AppStorage on Launches.launches") }, "\(program.translation.printed)")
        #expect(program.mount.body(of: "/App/Launches") == ["0"])
    }

    /// `init(name: String = "Guest") { self.name = name }`: an object made without the argument
    /// starts with the parameter's default, as Swift runs `init` with it.
    @Test func aModelInitsDefaultArgumentIsThePropertysStart() throws {
        let source = """
            import SwiftUI
            final class Profile: ObservableObject {
                @Published var name: String
                init(name: String = "Guest") { self.name = name }
            }
            struct Screen: View {
                @StateObject private var guest = Profile()
                @StateObject private var kim = Profile(name: "Kim")
                var body: some View {
                    Text(guest.name)
                    Text(kim.name)
                }
            }
            #Preview { Screen() }
            """
        let program = try LoadedProgram([Seeds.source("Profile.swift", source)])
        #expect(program.mount.body(of: "/App/Screen") == ["Guest", "Kim"], "\(program.translation.printed)")
    }

    /// `static let shared = Store()` and `@StateObject var store = Store.shared`: a shared instance
    /// is not modelled, and both places say so, instead of a nested object made with every
    /// `Store` and a wrapper dropped without a word.
    @Test func aSharedInstanceIsSaidToBeLeftOutWhereItIsDeclaredAndUsed() throws {
        let translation = SwiftTranslator.translate([
            Seeds.source(
                "Shared.swift",
                """
                import SwiftUI
                final class Store: ObservableObject {
                    static let shared = Store()
                    @Published var count = 0
                }
                struct Screen: View {
                    @StateObject private var store = Store.shared
                    var body: some View { Text("\\(store.count)") }
                }
                #Preview { Screen() }
                """)
        ])
        let type = try #require(translation.scene["types"]?.arrayValue?.first)
        #expect(type["properties"]?["shared"] == nil)
        #expect(translation.printed.contains { $0.contains("static") && $0.contains("Store.shared") }, "\(translation.printed)")
        #expect(translation.printed.contains { $0.contains("@StateObject store") }, "\(translation.printed)")
    }

    /// `Self._logChanges()` (iOS 17) logs what `_printChanges()` prints: Milieu prints it alike.
    @Test func logChangesPrintsAsPrintChangesDoes() throws {
        let source = """
            import SwiftUI
            struct Tally: View {
                @State private var count = 0
                var body: some View {
                    let _ = Self._logChanges()
                    Button("+") { count += 1 }
                    Text("\\(count)")
                }
            }
            #Preview { Tally() }
            """
        let program = try LoadedProgram([Seeds.source("Tally.swift", source)])
        #expect(program.mount.printed == ["Tally: @self, @identity, _count changed."])
        #expect(try program.tap("/App/Tally", "+").printed == ["Tally: _count changed."])
    }
}
