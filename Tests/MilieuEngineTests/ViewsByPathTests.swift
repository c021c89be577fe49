import MilieuJSON
import Testing

@testable import MilieuEngine

/// The path index against a dictionary doing the same inserts and removals: with thousands of
/// views in a table three quarters full, runs of occupied slots are long and removals shift
/// views back through them.
@Suite struct ViewsByPathTests {
    @Test func findsEveryViewInsertedAndNoneRemovedThroughRunsOfRemovalsAndGrowth() throws {
        var literals = DeclarationLiterals()
        let declaration = try ViewDeclaration(json: ["parent": "/App", "name": "Row"], literals: &literals)
        let root = try ViewDeclaration(json: [:], literals: &literals, placement: .root)
        let app = ViewNode(
            serial: ViewSerial(rawValue: 0), declaration: root, literals: ViewLiterals([]), parent: nil, explicitID: nil, owner: nil)
        func row(_ id: Int) -> ViewNode {
            ViewNode(
                serial: ViewSerial(rawValue: id + 1), declaration: declaration, literals: ViewLiterals([]), parent: app,
                explicitID: .int(id),
                owner: nil)
        }
        var table = ViewsByPath()
        var expected: [String: ViewNode] = [:]
        func check() {
            #expect(table.count == expected.count)
            #expect(Set(table.paths) == Set(expected.keys))
            for id in 0..<3000 {
                let path = "/App/Row[\(id)]"
                #expect(table[path] === expected[path])
            }
        }
        for id in 0..<3000 {
            let node = row(id)
            #expect(table.insert(node) == nil)
            expected[node.path] = node
        }
        #expect(expected["/App/Row[2999]"] != nil)
        check()
        // A second view at a taken path is refused, and the first stays.
        let duplicate = row(42)
        #expect(table.insert(duplicate) === expected["/App/Row[42]"])
        // Remove two in three, in an order unrelated to the slots, then some twice and some never there.
        for id in (0..<3000).map({ ($0 * 7919) % 3000 }) where id % 3 != 0 {
            table.remove("/App/Row[\(id)]")
            expected["/App/Row[\(id)]"] = nil
        }
        table.remove("/App/Row[1]")
        table.remove("/App/Row[99999]")
        check()
        // Insert again into the shifted table.
        for id in stride(from: 1, to: 3000, by: 3) {
            let node = row(id)
            #expect(table.insert(node) == nil)
            expected[node.path] = node
        }
        check()
        #expect(table.find("/App/Row[4]") === expected["/App/Row[4]"])
        table.remove("/App/Row[4]")
        #expect(table.find("/App/Row[4]") == nil)
    }
}
