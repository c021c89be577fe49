import Testing

@testable import MilieuTransport

#if canImport(Glibc)
import Glibc
#endif

@Suite struct MomentTests {
    /// The time between two moments is at least the time slept between them, and nothing the
    /// other way.
    @Test func aMomentMeasuresTheTimeToALaterOne() {
        let before = Moment.now
        usleep(2_000)
        let after = Moment.now
        #expect(before.duration(to: after) >= .milliseconds(2))
        #expect(before.duration(to: after) < .seconds(3600))
        #expect(after.duration(to: before) == .zero)
        #expect(before.duration(to: before) == .zero)
    }
}
