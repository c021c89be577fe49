import MilieuJSON
import MilieuProtocol
import Testing

@testable import MilieuEngine

/// Views whose declarations differ only in literal values share one parsed declaration, and
/// each keeps its own literals.
@Suite struct DeclarationCacheTests {
    /// A row with a literal in every kind of literal position, and expressions beside them.
    static let row: JSON = [
        "parent": "/App/List", "name": "Row", "id": 1,
        "inputs": ["title": ["$parent": "title"], "k": 3],
        "state": ["n": 1, "tags": ["a"], "raw": ["$literal": ["$parent": "not an expression"]]],
        "stateObjects": ["cart": ["type": "Cart", "init": ["items": ["x"]]]],
        "observedObjects": ["vm": ["construct": "ViewModel", "init": ["count": 2]]],
        "environment": ["theme": ["type": "Theme"]],
        "provide": ["environment": ["scale": 0.0]],
        "body": ["{n} {title}"],
    ]

    /// `row` with `change` applied to its members.
    static func row(_ change: (inout JSONObject) -> Void) -> JSON {
        guard case .object(var object) = row else { return row }
        change(&object)
        return .object(object)
    }

    /// The literals a fresh parse finds, in the order the declaration numbers them.
    static func parsedLiterals(_ json: JSON) throws -> [JSON] {
        var literals = DeclarationLiterals()
        _ = try ViewDeclaration(json: json, literals: &literals)
        return literals.values
    }

    @Test(arguments: [
        row { $0["id"] = 2 },
        row { $0["inputs"] = ["title": ["$parent": "title"], "k": ["nested": [1, 2]]] },
        row { $0["state"] = ["n": "text", "tags": [], "raw": ["$literal": 7]] },
        row { $0["stateObjects"] = ["cart": ["type": "Cart", "init": ["items": ["y", "z"]]]] },
        row { $0["observedObjects"] = ["vm": ["construct": "ViewModel", "init": ["count": 9]]] },
    ])
    func aDeclarationDifferingOnlyInLiteralsSharesTheParsedOneAndKeepsItsOwnLiterals(_ variant: JSON) throws {
        let cache = DeclarationCache()
        let templates = TemplateCache()
        let (first, firstLiterals) = try cache.declaration(Self.row, templates: templates)
        #expect(firstLiterals == (try Self.parsedLiterals(Self.row)))
        let (second, literals) = try cache.declaration(variant, templates: templates)
        #expect(second === first)
        #expect(literals == (try Self.parsedLiterals(variant)))
        #expect(literals != firstLiterals)
    }

    @Test(arguments: [
        // A literal replaced by an expression, or the other way round.
        row { $0["id"] = ["$input": "k"] },
        row { $0["state"] = ["n": ["$parent": "n"], "tags": ["a"], "raw": ["$literal": ["$parent": "not an expression"]]] },
        row { $0["inputs"] = ["title": "a literal", "k": 3] },
        // A different expression.
        row { $0["inputs"] = ["title": ["$parent": "subtitle"], "k": 3] },
        // Members in another order: the literals would be numbered differently.
        row { $0["state"] = ["tags": ["a"], "n": 1, "raw": ["$literal": ["$parent": "not an expression"]]] },
        row { object in
            object["id"] = nil
            object["id"] = 1
        },
        // A fixed member that differs, however little.
        row { $0["body"] = ["{n}  {title}"] },
        row { $0["parent"] = "/App/Other" },
        row { $0["environment"] = ["theme": ["type": "Theme"], "login": ["type": "Login"]] },
        row { $0["provide"] = ["environment": ["scale": -0.0]] },
        row { $0["stateObjects"] = ["cart": ["type": "Cart"]] },
        row { $0["retain"] = true },
    ])
    func aDeclarationOfAnotherShapeIsParsedAfresh(_ variant: JSON) throws {
        let cache = DeclarationCache()
        let templates = TemplateCache()
        let (first, _) = try cache.declaration(Self.row, templates: templates)
        let (second, literals) = try cache.declaration(variant, templates: templates)
        #expect(second !== first)
        #expect(literals == (try Self.parsedLiterals(variant)))
    }

    /// Plain or wrapped in `$literal`, a literal is a literal: the parser makes the same
    /// declaration of both, so the cache shares it either way, and never reads into an empty
    /// object as if it were a wrapper.
    @Test func aLiteralWrappedOrNotIsTheSameShape() throws {
        let cache = DeclarationCache()
        let templates = TemplateCache()
        let empty: JSON = ["parent": "/App", "name": "Row", "state": ["x": [:]]]
        let wrapped: JSON = ["parent": "/App", "name": "Row", "state": ["x": ["$literal": 5]]]
        let (first, _) = try cache.declaration(empty, templates: templates)
        let (second, literals) = try cache.declaration(wrapped, templates: templates)
        #expect(second === first)
        #expect(literals == [5])
        let (third, again) = try cache.declaration(empty, templates: templates)
        #expect(third === first)
        #expect(again == [[:]])
    }

    /// The cache knows literal positions only from the parser: a `$new`'s initial values are
    /// part of the declaration, so a row with another `$new` is parsed afresh, one with the
    /// same `$new` and another literal beside it is shared.
    @Test func theParserSaysWhereLiteralsAre() throws {
        let cache = DeclarationCache()
        let templates = TemplateCache()
        func row(_ email: String, _ n: Int) -> JSON {
            [
                "parent": "/App", "name": "Row",
                "state": ["m": ["$new": ["type": "Login", "init": ["email": .string(email)]]], "n": .int(n)],
            ]
        }
        let (first, _) = try cache.declaration(row("a", 1), templates: templates)
        let (same, literals) = try cache.declaration(row("a", 2), templates: templates)
        #expect(same === first)
        #expect(literals == [2])
        let (other, _) = try cache.declaration(row("b", 2), templates: templates)
        #expect(other !== first)
    }

    @Test func aDeclarationOfAnotherShapeThatDoesNotParseIsRefused() throws {
        let cache = DeclarationCache()
        let templates = TemplateCache()
        _ = try cache.declaration(Self.row, templates: templates)
        #expect(throws: EngineError.self) { try cache.declaration(Self.row { $0["id"] = ["$parent": 5] }, templates: templates) }
        #expect(throws: EngineError.self) { try cache.declaration(Self.row { $0["state"] = ["n": ["$nope": 1]] }, templates: templates) }
    }

    @Test func viewsSharingADeclarationEachRenderReEvaluateAndRebuildFromTheirOwnLiterals() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "P", "state": ["sel": 1, "t": "old"]])
        try graph.mount([
            "parent": "/App/P", "name": "Box", "id": ["$parent": "sel"], "state": ["x": 5],
            "inputs": ["t": ["$parent": "t"]],
        ])
        func row(_ id: Int, _ label: String, _ n: Int) -> JSON {
            [
                "parent": "/App/P/Box[1]", "name": "Row", "id": .int(id), "state": ["n": .int(n)],
                "inputs": ["label": .string(label), "t": ["$parent": "t"]], "body": ["{label} {n} {t}"],
            ]
        }
        let (first, _) = try graph.mount(row(1, "one", 10))
        let (second, _) = try graph.mount(row(2, "two", 20))
        #expect(first?.body == ["one 10 old"])
        #expect(second?.body == ["two 20 old"])
        #expect(graph.views["/App/P/Box[1]/Row[1]"]?.declaration === graph.views["/App/P/Box[1]/Row[2]"]?.declaration)

        // Re-evaluated from their parent: each keeps its own literal input.
        let commit = try graph.set("/App/P.t", "new")
        #expect(commit.body(of: "/App/P/Box[1]/Row[1]") == ["one 10 new"])
        #expect(commit.body(of: "/App/P/Box[1]/Row[2]") == ["two 20 new"])

        // A new identity for Box (rule 6) builds it and its rows again with fresh state from their literals.
        try graph.set("/App/P/Box[1].x", 7)
        try graph.set("/App/P/Box[1]/Row[1].n", 99)
        let rebuilt = try graph.set("/App/P.sel", 2)
        #expect(try graph.get("/App/P/Box[2]").wire["state"] == ["x": 5])
        #expect(rebuilt.body(of: "/App/P/Box[2]/Row[1]") == ["one 10 new"])
        #expect(rebuilt.body(of: "/App/P/Box[2]/Row[2]") == ["two 20 new"])
    }
}
