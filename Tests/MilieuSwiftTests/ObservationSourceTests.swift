import MilieuJSON
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
}
