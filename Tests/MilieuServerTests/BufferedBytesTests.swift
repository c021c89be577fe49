import Testing

@testable import MilieuServer

@Suite struct BufferedBytesTests {
    @Test func theTotalFollowsEachSessionsLatestCount() {
        var buffered = BufferedBytes()
        buffered.set(100, for: 1)
        buffered.set(300, for: 2)
        buffered.set(50, for: 1)
        #expect(buffered.total == 350)
        buffered.set(0, for: 2)
        #expect(buffered.total == 50 && buffered.sessions == [1])
    }

    @Test func theLargestHolderIsTheOneWithTheMostAndTheLowestIdAmongEquals() {
        var buffered = BufferedBytes()
        #expect(buffered.largest == nil)
        for (session, bytes) in [(3, 10), (1, 40), (2, 40)] { buffered.set(bytes, for: session) }
        #expect(buffered.largest == 1)
    }
}
