import MilieuTransport
import Testing

/// `IDTable` against `Dictionary`: the same answers through inserts, replacements, removals
/// (whose backward shifts must keep every other id findable) and growth.
@Suite struct IDTableTests {
    /// xorshift64: reproducible, with no dependency.
    private struct Numbers {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        mutating func next(below bound: Int) -> Int {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Int(state % UInt64(bound))
        }
    }

    @Test func agreesWithADictionaryThroughRemovalsAndGrowth() {
        var table = IDTable<Int>()
        var model: [Int: Int] = [:]
        var numbers = Numbers()
        // More ids than the first 16 slots hold: the table grows, and clusters wrap around its end.
        let ids = 0..<300
        for step in 0..<20_000 {
            let id = numbers.next(below: ids.count)
            switch numbers.next(below: 5) {
            case 0, 1:
                table[id] = step
                model[id] = step
            case 2:
                table[id] = nil
                model[id] = nil
            default:
                #expect(table.removeValue(forKey: id) == model.removeValue(forKey: id))
            }
            if step % 7 == 0 {
                #expect(table.count == model.count)
                for id in ids where table[id] != model[id] {
                    Issue.record("step \(step): id \(id) holds \(String(describing: table[id])), not \(String(describing: model[id]))")
                    return
                }
            }
        }
        #expect(table.values.sorted() == model.values.sorted())
        table.removeAll()
        #expect(table.count == 0 && table.values.isEmpty && ids.allSatisfy { table[$0] == nil })
        table[7] = 1
        #expect(table[7] == 1 && table.count == 1)
    }

    @Test func idsFromACounterStayFindableAsOldOnesGo() {
        // As connections come and go: a window of the newest 50 ids of a counter.
        var table = IDTable<Int>()
        for id in 0..<10_000 {
            table[id] = id * 2
            if id >= 50 { #expect(table.removeValue(forKey: id - 50) == (id - 50) * 2) }
        }
        #expect(table.count == 50)
        #expect((9_950..<10_000).allSatisfy { table[$0] == $0 * 2 })
        #expect(table[9_949] == nil)
    }
}
