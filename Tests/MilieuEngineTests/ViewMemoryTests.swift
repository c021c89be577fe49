import MilieuJSON
import Testing

@testable import MilieuEngine

/// What a mounted view costs in memory: the layout decisions that keep a row of a list small
/// (docs/benchmarks.md, "Memory per view"), each held so that a change that undoes one fails here.
@Suite struct ViewMemoryTests {
    @Test func aChangeTakesAt72BytesInTheHistory() {
        // The diagnostic case is boxed; inline, it made every change 104 bytes.
        #expect(MemoryLayout<Change>.stride <= 72)
    }
}
