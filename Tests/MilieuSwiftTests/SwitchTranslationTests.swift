import Foundation
import MilieuJSON
import MilieuProtocol
import MilieuSwift
import Testing

@testable import MilieuEngine

/// `switch`, `if case` and `if let` from Swift source (issue #28 item 1): each case is its own
/// place, as SwiftUI's `_ConditionalContent` makes it, so switching case unmounts the old case's
/// views (reason `condition`) and mounts the new case's fresh; enum cases with associated values
/// bind their values.
@Suite struct SwitchTranslationTests {
    static let counter = """
        import SwiftUI

        struct Counter: View {
            @State private var n = 0
            var body: some View {
                Text("\\(n)")
                Button("inc") { n += 1 }
            }
        }
        """

    /// `switch mode { case 0: …; case 1: Counter(); default: … }` and a `switch` in a button.
    @Test func eachCaseOfASwitchIsItsOwnPlace() throws {
        let source =
            Self.counter + """

                struct Screen: View {
                    @State private var mode = 0
                    var body: some View {
                        let _ = Self._printChanges()
                        switch mode {
                        case 0: Text("zero")
                        case 1, 2: Counter()
                        case 3...5: Text("some")
                        default: Text("many")
                        }
                        Button("next") {
                            switch mode {
                            case 0: mode = 1
                            case 1: mode = 3
                            default: mode = 0
                            }
                        }
                    }
                }

                #Preview { Screen() }
                """
        let program = try LoadedProgram([Seeds.source("Switch.swift", source)])
        #expect(!program.translation.printed.contains { $0.contains("not modelled") }, "\(program.translation.printed)")
        let screen = "/App/Screen"
        #expect(program.mount.body(of: screen) == ["zero", #"Button("next")"#])
        let one = try program.tap(screen, "next")
        #expect(one.mounts == ["\(screen)/Counter": "condition"])
        #expect(one.printed.first == "Screen: _mode changed.")
        try program.tap("\(screen)/Counter", "inc")
        #expect(try program.set("\(screen).mode", 2).mounts.isEmpty, "case 1, 2 is one place: Counter stays")
        #expect(try program.get("\(screen)/Counter.n") == 1)
        let three = try program.tap(screen, "next")
        #expect(try program.get("\(screen).mode") == 0, "mode 2 is the default case of the button's switch")
        #expect(three.unmounts == ["\(screen)/Counter": "condition"])
        #expect(try program.set("\(screen).mode", 4).body(of: screen) == ["some", #"Button("next")"#])
        #expect(try program.set("\(screen).mode", 4).isEmpty)
        let many = try program.set("\(screen).mode", 9)
        #expect(many.body(of: screen) == ["many", #"Button("next")"#])
        let back = try program.set("\(screen).mode", 1)
        #expect(back.mounts == ["\(screen)/Counter": "condition"])
        #expect(try program.get("\(screen)/Counter.n") == 0, "a case that comes back is a new identity")
    }

    static let activity = """
        import SwiftUI

        enum Activity {
            case added(Int)
            case removed(prime: Int)
            case cleared
        }

        struct Detail: View {
            let prime: Int
            @State private var note = ""
            var body: some View { Text("removed \\(prime) \\(note)") }
        }

        struct Feed: View {
            @State private var last: Activity = .cleared
            var body: some View {
                switch last {
                case .cleared: Text("nothing")
                case .added(let n) where n > 10: Text("many \\(n)")
                case .added(let n): Text("added \\(n)")
                case .removed(prime: let p): Detail(prime: p)
                }
                if case .added(let n) = last {
                    Text("last added \\(n)")
                }
                Button("add") {
                    switch last {
                    case .added(let n): last = .added(n + 1)
                    default: last = .added(1)
                    }
                }
                Button("remove") { last = .removed(prime: 7) }
                Button("clear") { last = .cleared }
            }
        }

        #Preview { Feed() }
        """

    /// Enum cases with associated values as patterns: `.added(let n)`, with `where`, and
    /// `.removed(prime: let p)`; the value is read only once the case matched.
    @Test func enumCasesBindTheirAssociatedValues() throws {
        let program = try LoadedProgram([Seeds.source("Feed.swift", Self.activity)])
        #expect(!program.translation.printed.contains { $0.contains("not modelled") }, "\(program.translation.printed)")
        let feed = "/App/Feed"
        let buttons = [#"Button("add")"#, #"Button("remove")"#, #"Button("clear")"#]
        #expect(program.mount.body(of: feed) == ["nothing"] + buttons)
        #expect(try program.tap(feed, "add").body(of: feed) == ["added 1", "last added 1"] + buttons)
        try program.set("\(feed).last", ["added": 11])
        #expect(try program.tap(feed, "add").body(of: feed) == ["many 12", "last added 12"] + buttons)
        let removed = try program.tap(feed, "remove")
        #expect(removed.mounts == ["\(feed)/Detail": "condition"])
        #expect(removed.body(of: "\(feed)/Detail") == ["removed 7 "])
        #expect(removed.body(of: feed) == buttons)
        let cleared = try program.tap(feed, "clear")
        #expect(cleared.unmounts == ["\(feed)/Detail": "condition"])
        #expect(cleared.body(of: feed) == ["nothing"] + buttons)
    }

    /// `if let name` on `@State var name: String? = "kim"`: the @State takes nil (its type is
    /// `string?`), which unmounts the `then` branch's view (`condition`) and shows the `else`.
    @Test func ifLetOnAnOptionalStateUnmountsItsBranchWhenItGoesNil() throws {
        let source = """
            import SwiftUI

            struct Detail: View {
                let who: String
                @State private var note = ""
                var body: some View { Text("detail \\(who) \\(note)") }
            }

            struct Screen: View {
                @State private var name: String? = "kim"
                var body: some View {
                    if let name {
                        Detail(who: name)
                    } else {
                        Text("nobody")
                    }
                    Button("forget") { name = nil }
                }
            }

            #Preview { Screen() }
            """
        let program = try LoadedProgram([Seeds.source("IfLet.swift", source)])
        let screen = "/App/Screen"
        #expect(program.mount.body(of: "\(screen)/Detail") == ["detail kim "])
        try program.set("\(screen)/Detail.note", "x")
        let forgotten = try program.tap(screen, "forget")
        #expect(forgotten.unmounts == ["\(screen)/Detail": "condition"])
        #expect(forgotten.body(of: screen) == ["nobody", #"Button("forget")"#])
        let named = try program.set("\(screen).name", "lee")
        #expect(named.mounts == ["\(screen)/Detail": "condition"])
        #expect(named.body(of: "\(screen)/Detail") == ["detail lee "])
        #expect(throws: EngineError.self) { try program.set("\(screen).name", 3) }
    }

    /// A model's method with a `switch` over its own enum property, binding a value.
    @Test func aSwitchInAModelsMethod() throws {
        let source = """
            import SwiftUI

            enum Phase {
                case idle
                case running(Int)
            }

            @Observable class Timer {
                var phase: Phase = .idle
                func tick() {
                    switch phase {
                    case .idle: phase = .running(1)
                    case .running(let n): phase = .running(n + 1)
                    }
                }
            }

            struct Screen: View {
                @State private var timer = Timer()
                var body: some View {
                    Button("tick") { timer.tick() }
                }
            }

            #Preview { Screen() }
            """
        let program = try LoadedProgram([Seeds.source("Timer.swift", source)])
        #expect(!program.translation.printed.contains { $0.contains("not modelled") }, "\(program.translation.printed)")
        try program.tap("/App/Screen", "tick")
        #expect(try program.get("/App/Screen.timer.phase") == ["running": 1])
        try program.tap("/App/Screen", "tick")
        #expect(try program.get("/App/Screen.timer.phase") == ["running": 2])
    }

    /// A case of an enum the source does not declare cannot say how its values are written: a
    /// diagnostic, not a guess.
    @Test func aCaseOfAnUndeclaredEnumIsReported() throws {
        let source = """
            import SwiftUI
            struct Screen: View {
                @State private var result: Result<Int, Error>? = nil
                var body: some View {
                    switch result {
                    case .success(let n): Text("\\(n)")
                    default: Text("none")
                    }
                }
            }
            #Preview { Screen() }
            """
        let translation = SwiftTranslator.translate([Seeds.source("Result.swift", source)])
        #expect(translation.printed.contains { $0.contains("the case .success(…) of an enum the source does not declare") })
    }
}

extension LoadedProgram {
    @discardableResult
    func set(_ path: String, _ value: JSON) throws -> Commit {
        try graph.apply([.set(path: path, value: value, ifVersion: nil)]).commit
    }
}
