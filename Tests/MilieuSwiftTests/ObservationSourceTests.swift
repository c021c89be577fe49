import MilieuJSON
import MilieuSwift
import Testing

@testable import MilieuEngine

/// Swift source whose observation is not the plain one: `@ObservationIgnored`, a nested
/// `ObservableObject` forwarding its `objectWillChange`.
@Suite struct ObservationSourceTests {
    /// `@ObservationIgnored var hits`: a button that bumps it re-renders nothing; the next render
    /// of the view shows it (#28 item 7).
    @Test func anObservationIgnoredPropertyIsWrittenWithoutARender() throws {
        let program = try LoadedProgram([
            Seeds.source(
                "Tally.swift",
                """
                import SwiftUI
                @Observable class Tally {
                    var count = 0
                    @ObservationIgnored var hits = 0
                }
                struct Board: View {
                    @State private var tally = Tally()
                    var body: some View {
                        let _ = Self._printChanges()
                        Text("\\(tally.count) \\(tally.hits)")
                        Button("hit") { tally.hits += 1 }
                        Button("count") { tally.count += 1 }
                    }
                }
                #Preview { Board() }
                """)
        ])
        let hit = try program.tap("/App/Board", "hit")
        #expect(hit.printed.isEmpty && hit.updates.isEmpty, "\(hit.changes)")
        #expect(try program.get("/App/Board.tally.hits") == 1)
        let count = try program.tap("/App/Board", "count")
        #expect(count.printed == ["Board: @dependencies changed."])
        #expect(count.body(of: "/App/Board")?.first == "1 1")
    }

    static func nested(forwarding: Bool) -> SourceFile {
        let sink =
            forwarding
            ? """
                init() {
                    cancellable = inner.objectWillChange.sink { [weak self] _ in
                        self?.objectWillChange.send()
                    }
                }
            """ : ""
        return Seeds.source(
            "Nest.swift",
            """
            import SwiftUI
            import Combine
            class Inner: ObservableObject {
                @Published var count = 0
            }
            class Outer: ObservableObject {
                @Published var inner = Inner()
                private var cancellable: AnyCancellable?
            \(sink)
            }
            struct Screen: View {
                @StateObject private var outer = Outer()
                var body: some View {
                    let _ = Self._printChanges()
                    Text("\\(outer.inner.count)")
                    Button("+") { outer.inner.count += 1 }
                }
            }
            #Preview { Screen() }
            """)
    }

    /// The nested-object pitfall and its standard fix, as the article writes them (#28 item 7).
    @Test func aNestedObjectsChangeReachesTheViewOnlyWhenItsHolderForwardsIt() throws {
        let pitfall = try LoadedProgram([Self.nested(forwarding: false)])
        #expect(pitfall.translation.diagnostics.isEmpty, "\(pitfall.translation.printed)")
        #expect(pitfall.mount.created.map(\.reason) == ["stateObject", "stateObject"], "Outer makes its Inner")
        let missed = try pitfall.tap("/App/Screen", "+")
        #expect(missed.printed.isEmpty)
        #expect(try pitfall.get("/App/Screen.outer.inner.count") == 1)

        let fixed = try LoadedProgram([Self.nested(forwarding: true)])
        #expect(fixed.translation.diagnostics.isEmpty, "\(fixed.translation.printed)")
        let forwarded = try fixed.tap("/App/Screen", "+")
        #expect(forwarded.printed == ["Screen: _outer changed."])
        #expect(forwarded.body(of: "/App/Screen")?.first == "1", "\(forwarded.body(of: "/App/Screen") ?? [])")
    }
}
