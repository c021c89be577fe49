import MilieuJSON
import MilieuProtocol
import Testing

@testable import MilieuEngine

/// Closures a parent passes its children, and `.equatable()` (#28 item 5): a closure runs in the
/// view that wrote it and never compares equal, so its holder re-renders with its parent, unless
/// the holder's own `==` says otherwise.
@Suite struct ClosureInputTests {
    /// `Counter` shows `taps` and writes `Row(title: title, onTap: { taps += 1 })`.
    private func counter(rowExtras: JSONObject = [:]) throws -> Graph {
        let graph = try makeGraph()
        var row: JSONObject = [
            "name": "Row",
            "inputs": [
                "title": ["$parent": "title"],
                "onTap": ["$closure": ["steps": [["set": "taps", "to": ["+": [["get": "taps"], 1]]]]]],
            ],
            "printChanges": true,
            "body": ["{title}", ["button": "tap", "action": [["call": "onTap"]]]],
        ]
        for (key, value) in rowExtras { row[key] = value }
        try graph.mount([
            "parent": "/App", "name": "Counter", "state": ["taps": 0, "title": "t", "other": 0],
            "body": ["taps {taps} {other}", ["view": .object(row)]],
        ])
        return graph
    }

    @Test func aClosureRunsInTheViewThatWroteItAndItsHolderReRendersWithIt() throws {
        let graph = try counter()
        let tapped = try graph.tap("/App/Counter/Row", "tap")
        #expect(tapped.updates["/App/Counter"] == ["_taps"] && tapped.body(of: "/App/Counter") == ["taps 1 0"])
        #expect(tapped.updates["/App/Counter/Row"] == ["@self"], "a closure never compares equal")
        let printed = tapped.changes.compactMap { change -> String? in
            if case .viewUpdated(_, _, _, let line?) = change { line } else { nil }
        }
        #expect(printed == ["Row: @self changed."])
        #expect(try graph.get("/App/Counter.taps").wire == 1)
        #expect(try graph.tree("/App/Counter/Row").wire["inputs"]?["onTap"] == "<closure>")
    }

    @Test func aClosureTakesItsParametersAsLocals() throws {
        let graph = try makeGraph()
        try graph.mount([
            "parent": "/App", "name": "Picker", "state": ["picked": 0],
            "body": [
                [
                    "view": [
                        "name": "Choices",
                        "inputs": ["onPick": ["$closure": ["params": ["n"], "steps": [["set": "picked", "to": ["get": "n"]]]]]],
                        "body": [
                            ["button": "three", "action": [["call": "onPick", "args": [3]]]],
                            ["button": "none", "action": [["call": "onPick"]]],
                        ],
                    ]
                ]
            ],
        ])
        try graph.tap("/App/Picker/Choices", "three")
        #expect(try graph.get("/App/Picker.picked").wire == 3)
        let before = try graph.fingerprint()
        let wrong = expectError(.invalidParams) { try graph.tap("/App/Picker/Choices", "none") }
        #expect(wrong?.message.contains("takes 1 argument (n), not 0") == true, "\(wrong?.message ?? "")")
        #expect(try graph.fingerprint() == before)
    }

    /// `ForEach(items, id: \.self) { item in Row(onDelete: { items.removeAll { $0 == item } }) }`:
    /// each row's closure keeps the element of its place.
    @Test func aClosureWrittenInARowKeepsItsElement() throws {
        let graph = try makeGraph()
        let delete: JSON = ["$closure": ["steps": [["remove": "items", "value": ["get": "item"]]]]]
        try graph.mount([
            "parent": "/App", "name": "List", "state": ["items": [1, 2, 3]],
            "body": [
                [
                    "forEach": ["get": "items"], "as": "item",
                    "content": [
                        [
                            "view": [
                                "name": "Row", "inputs": ["onDelete": delete], "body": [["button": "x", "action": [["call": "onDelete"]]]],
                            ]
                        ]
                    ],
                ]
            ],
        ])
        let deleted = try graph.tap("/App/List/Row[2]", "x")
        #expect(try graph.get("/App/List.items").wire == [1, 3])
        #expect(deleted.unmounts == ["/App/List/Row[2]": "row"])
    }

    /// A closure passed on (`Inner(onTap: onTap)`) still runs where it was written.
    @Test func aClosurePassedOnRunsWhereItWasWritten() throws {
        let inner: JSON = [
            "view": [
                "name": "Inner", "inputs": ["onTap": ["$parent": "onTap"]], "body": [["button": "deep", "action": [["call": "onTap"]]]],
            ]
        ]
        let graph = try counter(rowExtras: ["body": [inner]])
        try graph.tap("/App/Counter/Row/Inner", "deep")
        #expect(try graph.get("/App/Counter.taps").wire == 1)
    }

    @Test func aClosureHasNoValueToReadOrWrite() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "P", "state": ["n": 0]])
        let read = expectError(.invalidDeclaration) {
            try graph.mount([
                "parent": "/App", "name": "Q", "state": ["n": 0],
                "body": [["view": ["name": "C", "inputs": ["go": ["$closure": ["steps": []]]], "body": [["text": ["get": "go"]]]]]],
            ])
        }
        #expect(read?.message.contains("go is a closure") == true, "\(read?.message ?? "")")
        let written = expectError(.invalidDeclaration) {
            try graph.mount([
                "parent": "/App", "name": "Q", "state": ["n": 0],
                "body": [
                    [
                        "view": [
                            "name": "C", "inputs": ["go": ["$closure": ["steps": []]]],
                            "body": [["button": "b", "action": [["set": "go", "to": 1]]]],
                        ]
                    ]
                ],
            ])
        }
        #expect(written?.message.contains("call it") == true, "\(written?.message ?? "")")
        expectError(.invalidDeclaration) {
            try graph.mount(["parent": "/App/P", "name": "Mounted", "inputs": ["go": ["$closure": ["steps": []]]]])
        }
        expectError(.invalidDeclaration) {
            try graph.mount([
                "parent": "/App", "name": "Q", "body": [["view": ["name": "C", "state": ["go": ["$closure": ["steps": []]]]]]],
            ])
        }
    }

    // MARK: .equatable()

    /// `Row(title:onTap:).equatable()` with `==` comparing `title`: a parent re-render that passes the
    /// same title does not re-render the row, closure or not; another title does.
    @Test func anEquatableViewReRendersOnlyWhenItsEqualitySaysSo() throws {
        let graph = try counter(rowExtras: ["equatable": ["title"]])
        let other = try graph.set("/App/Counter.other", 1)
        #expect(other.updates["/App/Counter"] == ["_other"] && other.updates["/App/Counter/Row"] == nil)
        let retitled = try graph.set("/App/Counter.title", "u")
        #expect(retitled.updates["/App/Counter/Row"] == ["@self"] && retitled.body(of: "/App/Counter/Row")?.first == "u")
    }

    /// What `==` ignores is not taken either: SwiftUI keeps the view value it had.
    @Test func anEquatableViewKeepsWhatItsEqualityIgnores() throws {
        let graph = try makeGraph()
        try graph.mount([
            "parent": "/App", "name": "P", "state": ["n": 1, "note": "a"],
            "body": [
                [
                    "view": [
                        "name": "C", "inputs": ["n": ["$parent": "n"], "note": ["$parent": "note"]], "equatable": ["n"],
                        "body": ["{n} {note}"],
                    ]
                ]
            ],
        ])
        try graph.set("/App/P.note", "b")
        #expect(try graph.get("/App/P/C.note").wire == "a")
        let both = try graph.set("/App/P.n", 2)
        #expect(both.body(of: "/App/P/C") == ["2 b"])
        expectError(.invalidDeclaration) {
            try graph.mount(["parent": "/App/P", "name": "Bad", "inputs": ["n": 1], "equatable": ["m"]])
        }
    }
}
