import MilieuJSON
import MilieuProtocol
import Testing

@testable import MilieuEngine

/// Each view's body-evaluation count and the version it was last evaluated in (`view/tree`).
@Suite struct EvaluationCountTests {
    @Test func eachViewCountsItsEvaluationsAndTheVersionOfTheLast() throws {
        let graph = try makeToggleScreen()
        let mounted = try graph.tree("/App/ParentView")
        #expect(mounted.evaluations == 1)
        #expect(mounted.children?.first?.evaluations == 1)
        #expect(mounted.children?.first?.lastEvaluated == graph.version.rawValue)
        let commit = try graph.set("/App/ParentView/ToggleRow.isOn", true)
        let after = try graph.tree("/App/ParentView")
        #expect(after.evaluations == 2)
        #expect(after.lastEvaluated == commit.version.rawValue)
        #expect(after.children?.first?.evaluations == 2)
        try graph.mount(["parent": "/App", "name": "Other", "body": ["x"]])
        #expect(try graph.tree("/App/ParentView").lastEvaluated == commit.version.rawValue, "a view nothing invalidated keeps its count")
        #expect(try graph.tree("/App").evaluations == 1)
    }

    @Test func aFailedTransactionLeavesTheCountsAsTheyWere() throws {
        let graph = try makeToggleScreen()
        let before = try graph.tree("/App/ParentView")
        _ = expectError(.unknownPath) {
            _ = try graph.apply([
                .set(path: "/App/ParentView.isOn", value: true, ifVersion: nil), .set(path: "nope.x", value: 1, ifVersion: nil),
            ])
        }
        #expect(try graph.tree("/App/ParentView") == before)
    }

    @Test func aNewIdentityCountsFromOneAgain() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "Start", "state": ["n": 10], "body": ["{n}"]])
        try graph.mount(["parent": "/App/Start", "name": "Row", "id": ["$parent": "n"], "inputs": ["n": ["$parent": "n"]], "body": ["{n}"]])
        let commit = try graph.set("/App/Start.n", 11)
        let row = try graph.tree("/App/Start/Row[11]")
        #expect(row.evaluations == 1)
        #expect(row.lastEvaluated == commit.version.rawValue)
    }

    @Test func theLastEvaluatedVersionIsWholePastThirtyTwoBits() throws {
        let graph = try makeToggleScreen()
        graph.version = Version(Int(UInt32.max) + 5)
        let commit = try graph.set("/App/ParentView.isOn", true)
        #expect(commit.version.rawValue == Int(UInt32.max) + 6)
        #expect(try graph.tree("/App/ParentView").lastEvaluated == commit.version.rawValue)
    }
}
