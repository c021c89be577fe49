import MilieuJSON
import MilieuSwift
import Testing

@testable import MilieuEngine

/// Closures a view passes its children, and `.equatable()`, from Swift source (#28 item 5).
@Suite struct ClosureSourceTests {
    static let counter = Seeds.source(
        "Counter.swift",
        """
        import SwiftUI
        struct Counter: View {
            @State private var taps = 0
            @State private var picked = 0
            @State private var title = "t"
            var body: some View {
                let _ = Self._printChanges()
                Text("\\(taps) \\(picked)")
                Tappable(title: title, onTap: { taps += 1 })
                Choices(onPick: { n in picked = n })
                Trailing(title: title) { taps += 10 }
                Tappable(title: title, onTap: bump).equatable()
                Button("retitle") { title = "u" }
            }
            func bump() { taps += 100 }
        }
        struct Tappable: View, Equatable {
            let title: String
            let onTap: () -> Void
            var body: some View {
                let _ = Self._printChanges()
                Button(title, action: onTap)
            }
            static func == (lhs: Tappable, rhs: Tappable) -> Bool { lhs.title == rhs.title }
        }
        struct Choices: View {
            let onPick: (Int) -> Void
            var body: some View {
                Button("three") { onPick(3) }
            }
        }
        struct Trailing: View {
            let title: String
            let action: () -> Void
            var body: some View {
                Button("ten") { action() }
            }
        }
        #Preview { Counter() }
        """)

    @Test func aClosureArgumentRunsInTheParentAndItsHolderReRendersWithIt() throws {
        let program = try LoadedProgram([Self.counter])
        #expect(program.translation.diagnostics.isEmpty, "\(program.translation.printed)")
        let tapped = try program.tap("/App/Counter/Tappable", "t")
        #expect(try program.get("/App/Counter.taps") == 1)
        #expect(tapped.printed == ["Counter: _taps changed.", "Tappable: @self changed."], "\(tapped.printed)")
        #expect(tapped.updates["/App/Counter/Tappable_2"] == nil, "its == compares the title alone")
        try program.tap("/App/Counter/Choices", "three")
        #expect(try program.get("/App/Counter.picked") == 3)
        try program.tap("/App/Counter/Trailing", "ten")
        #expect(try program.get("/App/Counter.taps") == 11)
        try program.tap("/App/Counter/Tappable_2", "t")
        #expect(try program.get("/App/Counter.taps") == 111, "a method passed as the closure runs in its view")
        let retitled = try program.tap("/App/Counter", "retitle")
        #expect(retitled.updates["/App/Counter/Tappable_2"] == ["@self"])
    }

    @Test func aClosureMakesAViewThatCannotSynthesizeEquality() throws {
        let translation = SwiftTranslator.translate([
            Seeds.source(
                "Bad.swift",
                """
                import SwiftUI
                struct Screen: View {
                    @State private var n = 0
                    var body: some View { Row(onTap: { n += 1 }).equatable() }
                }
                struct Row: View {
                    let onTap: () -> Void
                    var body: some View { Button("x", action: onTap) }
                }
                #Preview { Screen() }
                """)
        ])
        #expect(
            translation.printed.contains { $0.contains("Row is not Equatable: its closure onTap cannot be compared") },
            "\(translation.printed)")
    }
}
