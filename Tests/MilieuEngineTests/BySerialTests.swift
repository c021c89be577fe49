import MilieuJSON
import Testing

@testable import MilieuEngine

/// The serial index against a dictionary doing the same inserts, replacements and removals,
/// through growth and through removals that shift elements back along runs of slots.
@Suite struct BySerialTests {
    @Test func findsEveryElementInsertedAndNoneRemovedThroughRunsOfRemovalsAndGrowth() throws {
        var literals = DeclarationLiterals()
        let declaration = try ViewDeclaration(json: [:], literals: &literals, placement: .root)
        func view(_ serial: Int) -> ViewNode {
            ViewNode(
                serial: ViewSerial(rawValue: serial), declaration: declaration, literals: ViewLiterals([]), parent: nil, explicitID: nil,
                owner: nil)
        }
        var table = BySerial<ViewNode>()
        var expected: [Int: ViewNode] = [:]
        func check() {
            #expect(table.count == expected.count)
            #expect(Set(table.values.map(\.serial.rawValue)) == Set(expected.keys))
            for serial in 0..<3000 { #expect(table[ViewSerial(rawValue: serial)] === expected[serial]) }
        }
        for serial in 0..<3000 {
            let node = view(serial)
            table[node.serial] = node
            expected[serial] = node
        }
        check()
        // A second element under a serial replaces the first.
        let replacement = view(42)
        table[replacement.serial] = replacement
        expected[42] = replacement
        // Remove two in three, in an order unrelated to the slots, then some twice and some never there.
        for serial in (0..<3000).map({ ($0 * 7919) % 3000 }) where serial % 3 != 0 {
            table[ViewSerial(rawValue: serial)] = nil
            expected[serial] = nil
        }
        table[ViewSerial(rawValue: 1)] = nil
        table[ViewSerial(rawValue: 99_999)] = nil
        check()
        for serial in stride(from: 1, to: 3000, by: 3) {
            let node = view(serial)
            table[node.serial] = node
            expected[serial] = node
        }
        check()
    }
}
