import MilieuJSON
import MilieuProtocol
import Testing

@testable import MilieuEngine

/// Every kind of bad input is a typed error that names the culprit and changes nothing.
@Suite struct BadInputTests {
    private func graphWithParent() throws -> Graph {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "Parent", "state": ["n": 1, "name": "x"], "stateObjects": ["cart": ["type": "Cart"]]])
        return graph
    }

    /// Runs `body`, expecting `kind`, and checks the graph is exactly as before.
    private func expectRefused(
        _ graph: Graph, _ kind: EngineError.Kind, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
    ) throws -> EngineError? {
        let before = try graph.fingerprint()
        let error = expectError(kind, sourceLocation: sourceLocation, body)
        #expect(try graph.fingerprint() == before, sourceLocation: sourceLocation)
        return error
    }

    @Test func unknownTypeNamesTheType() throws {
        let graph = try graphWithParent()
        let error = try expectRefused(graph, .unknownType) {
            try graph.mount(["parent": "/App", "name": "V", "stateObjects": ["x": ["type": "Nope"]]])
        }
        #expect(error?.data["type"] == "Nope")
    }

    @Test func unknownPathsNameThePath() throws {
        let graph = try graphWithParent()
        for path in ["/App/Missing.n", "login.nope", "nope", "Login#99.email", "/App/Parent.zzz"] {
            let error = try expectRefused(graph, .unknownPath) { try graph.set(path, 1) }
            #expect(error?.data["path"] == .string(path))
        }
        _ = try expectRefused(graph, .unknownPath) { try graph.mount(["parent": "/App/Nowhere", "name": "V"]) }
        _ = try expectRefused(graph, .unknownPath) { try graph.unmount("/App/Nowhere") }
    }

    /// A key path costs what its length justifies: past 128 members or 8192 bytes it is refused
    /// before anything is built from it, wherever it is written (SPEC §13).
    @Test func longKeyPathsAreLimitExceededEverywhere() throws {
        let graph = try makeGraph()
        let members = String(repeating: ".a", count: 20_000)
        for path in ["login" + members, "Login#3" + members, "/App.login" + members, "/App" + String(repeating: "/V", count: 5000)] {
            let error = try expectRefused(graph, .limitExceeded) { _ = try graph.get(path) }
            #expect(["keyPathMembers", "keyPathBytes"].contains(error?.data["limit"]?.stringValue ?? ""), "\(path.prefix(20))")
            _ = try expectRefused(graph, .limitExceeded) { try graph.set(path, 1) }
            _ = try expectRefused(graph, .limitExceeded) { _ = try graph.watchTarget(path) }
        }
        let justUnder = "login" + String(repeating: ".a", count: 127)
        _ = try expectRefused(graph, .unknownPath) { _ = try graph.get(justUnder) }
        let tooMany = "login" + String(repeating: ".a", count: 128)
        _ = try expectRefused(graph, .limitExceeded) { _ = try graph.get(tooMany) }
        _ = try expectRefused(graph, .limitExceeded) {
            try graph.mount([
                "parent": "/App", "name": "V", "environment": ["login": ["type": "Login"]], "body": .array([.string("{\(tooMany)}")]),
            ])
        }
        _ = try expectRefused(graph, .limitExceeded) {
            try graph.mount(["parent": "/App", "name": "V", "inputs": ["x": ["$parent": .string(tooMany)]]])
        }
    }

    @Test func unknownActionListsTheActionsThereAre() throws {
        let graph = try graphWithParent()
        let error = try expectRefused(graph, .unknownAction) { try graph.call("/App/Parent.cart.remove", ["x"]) }
        #expect(error?.data["action"] == "remove")
        #expect(error?.data["type"] == "Cart")
        #expect(error?.message.contains("add") == true)
    }

    @Test func wrongValueTypesAreTypeMismatches() throws {
        let graph = try graphWithParent()
        var error = try expectRefused(graph, .typeMismatch) { try graph.set("login.email", 5) }
        #expect(error?.data["expected"] == "string")
        #expect(error?.data["actual"] == "int")
        error = try expectRefused(graph, .typeMismatch) { try graph.set("/App/Parent.n", "one") }
        #expect(error?.data["expected"] == "int")
        let count = try expectRefused(graph, .invalidParams) { try graph.call("/App/Parent.cart.add", []) }
        #expect(count?.data["field"] == "/args")
        let argument = try expectRefused(graph, .invalidParams) { try graph.call("/App/Parent.cart.add", [1]) }
        #expect(argument?.data["field"] == "/args/0")
        _ = try expectRefused(graph, .typeMismatch) { try graph.set("/App/Parent.cart.items", ["a", 2]) }
        // An int written to a double is a double, not a mismatch.
        try graph.set("theme.fontScale", 2)
        #expect(try graph.get("theme.fontScale").wire == .double(2))
    }

    @Test func validationRefusesValuesOutsideTheDeclaredRange() throws {
        let graph = try graphWithParent()
        let error = try expectRefused(graph, .invalidValue) { try graph.set("theme.fontScale", 9.5) }
        #expect(error?.data["constraint"] == "max")
        #expect(error?.data["value"] == .double(9.5))
        #expect(error?.message.contains("max 3") == true)
        _ = try expectRefused(graph, .invalidValue) { try graph.set("theme.colorScheme", "purple") }
    }

    @Test func writingAComputedPropertyIsReadOnly() throws {
        let graph = try graphWithParent()
        let error = try expectRefused(graph, .readOnly) { try graph.set("login.isValidEmail", true) }
        #expect(error?.data["path"] == "login.isValidEmail")
        _ = try expectRefused(graph, .readOnly) { try graph.set("login", 1) }
    }

    @Test func versionConflictNamesBothVersions() throws {
        let graph = try graphWithParent()
        try graph.set("login.email", "a@b.co")
        let current = try graph.get("login").wire["version"]?.intValue ?? -1
        let error = try expectRefused(graph, .versionConflict) { try graph.set("login.email", "c@d.co", ifVersion: current - 1) }
        #expect(error?.data["expected"] == .int(current - 1))
        #expect(error?.data["actual"] == .int(current))
        try graph.set("login.email", "c@d.co", ifVersion: current)
    }

    @Test func danglingAndCyclicReferencesAreInvalidDeclarations() throws {
        let graph = try graphWithParent()
        let cases: [JSON] = [
            ["parent": "/App/Parent", "name": "A", "inputs": ["x": ["$parent": "missing"]]],
            ["parent": "/App/Parent", "name": "B", "id": ["$input": "missing"]],
            ["parent": "/App/Parent", "name": "C", "inputs": ["a": ["$input": "b"], "b": ["$input": "a"]]],
            ["parent": "/App/Parent", "name": "D", "bindings": ["x": ["$parent": "cart"]]],
            ["parent": "/App/Parent", "name": "E", "body": ["{undeclared}"]],
            ["parent": "/App/Parent", "name": "F", "observedObjects": ["x": ["$parent": "n"]]],
            ["parent": "/App/Parent", "name": "G", "stateObjects": ["c": ["type": "Cart"]], "body": ["{c.nothing}"]],
        ]
        for declaration in cases {
            let error = try expectRefused(graph, .invalidDeclaration) { try graph.mount(declaration) }
            #expect(error?.data["field"] != nil)
        }
        let cycle = try expectRefused(graph, .invalidDeclaration) { try graph.mount(cases[2]) }
        #expect(cycle?.message.contains("cycle") == true)
    }

    @Test func malformedDeclarationsAreInvalid() throws {
        let graph = try graphWithParent()
        let cases: [JSON] = [
            "not an object", ["name": "NoParent"], ["parent": "/App"], ["parent": "/App", "name": "bad name"],
            ["parent": "/App", "name": "V", "body": "text"],
            ["parent": "/App", "name": "V", "body": ["{unclosed"]], ["parent": "/App", "name": "V", "retain": "yes"],
            ["parent": "/App", "name": "V", "state": ["a": 1], "inputs": ["a": 2]],
            ["parent": "/App", "name": "V", "environment": [1]],
            ["parent": "/App", "name": "V", "stateObjects": ["x": "Cart"]],
        ]
        for declaration in cases { _ = try expectRefused(graph, .invalidDeclaration) { try graph.mount(declaration) } }
        // An unknown member is a mistake in the params, pointed at.
        let typo = try expectRefused(graph, .invalidParams) {
            try graph.mount(["parent": "/App", "name": "V", "stateObjects": ["vm": ["type": "Login", "inti": [:]]]])
        }
        #expect(typo?.data["field"] == "/stateObjects/vm/inti")
    }

    @Test func duplicateSiblingPathsAreRefused() throws {
        let graph = try graphWithParent()
        try graph.mount(["parent": "/App/Parent", "name": "Row", "id": 1])
        let error = try expectRefused(graph, .duplicateView) { try graph.mount(["parent": "/App/Parent", "name": "Row", "id": 1]) }
        #expect(error?.data["path"] == "/App/Parent/Row[1]")
        try graph.mount(["parent": "/App/Parent", "name": "Row", "id": 2])
    }

    @Test func malformedTypeDeclarationsAreInvalid() throws {
        let graph = try makeGraph()
        let cases: [JSON] = [
            ["name": "Bad Name"], ["name": "Session"], ["name": "T", "properties": ["x": ["type": "float"]]],
            ["name": "T", "properties": ["x": ["type": "int", "default": "zero"]]], ["name": "T", "style": "reactive"],
            ["name": "T", "properties": ["x": ["type": "string", "pattern": "("]]],
            ["name": "T", "properties": ["x": ["type": "int", "min": 5, "default": 1]]],
        ]
        for declaration in cases {
            expectError(.invalidDeclaration) { _ = try graph.register(declaration: declaration) }
        }
        expectError(.invalidParams) { _ = try graph.register(declaration: ["name": "T", "extra": 1]) }
        expectError(.unknownType) { _ = try graph.register(declaration: ["name": "T", "properties": ["x": ["type": "@Nope"]]]) }
        #expect(graph.registry["T"] == nil)
    }

    @Test func aFailedOperationInATransactionReportsItsIndex() throws {
        let graph = try graphWithParent()
        let error = try expectRefused(graph, .unknownPath) {
            _ = try graph.apply([
                .mount(declaration: ["parent": "/App", "name": "New"], owner: nil),
                .set(path: "/App/New.nothing", value: 1, ifVersion: nil),
            ])
        }
        #expect(error?.operationIndex == 1)
        #expect(!graph.viewPaths.contains("/App/New"))
    }

    @Test func aViewMountedAndEvaluatedInAFailedTransactionLeavesNothingInTheReverseIndex() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "P", "state": ["sel": ["k": 1]]])
        try graph.mount(["parent": "/App/P", "name": "C", "id": ["$parent": "sel.k"]])
        // A is evaluated (reading theme.accentColor) before P, whose new value gives C an id that is not one.
        _ = try expectRefused(graph, .invalidDeclaration) {
            _ = try graph.apply([
                .mount(
                    declaration: [
                        "parent": "/App", "name": "A", "environment": ["theme": ["type": "Theme"]], "body": ["{theme.accentColor}"],
                    ], owner: nil),
                .set(path: "/App/P.sel", value: ["k": 1.5], ifVersion: nil),
            ])
        }
        #expect(try graph.set("theme.accentColor", "red").updatedViews.isEmpty)
    }

    @Test func aTransactionThatUnmountsThenFailsPutsTheViewsBack() throws {
        let graph = try graphWithParent()
        try graph.mount(["parent": "/App/Parent", "name": "A", "state": ["k": 1]])
        try graph.mount(["parent": "/App/Parent", "name": "B"])
        _ = try expectRefused(graph, .invalidValue) {
            _ = try graph.apply([
                .unmount(path: "/App/Parent"), .set(path: "theme.colorScheme", value: "sepia", ifVersion: nil),
            ])
        }
        #expect(try graph.tree("/App/Parent").wire["children"]?.arrayValue?.map { $0["name"] } == ["A", "B"])
        try graph.set("/App/Parent/A.k", 2)
    }

    /// Why a single `graph/set` still runs through the undo journal: the write itself is valid, but
    /// the re-render it causes builds the child's observed object from the new value, which the
    /// object's type refuses, so the whole transaction, the write included, is taken back (rule 14).
    @Test func aSingleWriteWhoseReRenderFailsChangesNothing() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "Shop", "state": ["items": ["apple"]]])
        try graph.mount([
            "parent": "/App/Shop", "name": "List",
            "observedObjects": ["cart": ["construct": "Cart", "init": ["items": ["$parent": "items"]]]],
        ])
        _ = try expectRefused(graph, .typeMismatch) { try graph.set("/App/Shop.items", [1]) }
        try graph.set("/App/Shop.items", ["pear"])
    }

    @Test func theRootViewCannotBeUnmounted() throws {
        let graph = try makeGraph()
        _ = try expectRefused(graph, .forbidden) { try graph.unmount("/App") }
    }

    @Test func viewLimitIsALimitError() throws {
        let graph = try Graph(limits: GraphLimits(maxViews: 3))
        try graph.mount(["parent": "/App", "name": "A"])
        try graph.mount(["parent": "/App", "name": "B"])
        let error = expectError(.limitExceeded) { try graph.mount(["parent": "/App", "name": "C"]) }
        #expect(error?.data["max"] == 3)
    }
}

@Suite struct DeclarationFormTests {
    @Test func literalEscapePassesAnObjectThatLooksLikeAnExpression() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "V", "state": ["raw": ["$literal": ["$parent": "x"]]]])
        #expect(try graph.get("/App/V.raw").wire == ["$parent": "x"])
        expectError(.invalidDeclaration) { try graph.mount(["parent": "/App", "name": "W", "state": ["x": ["$other": 1]]]) }
    }

    @Test func viewIdsAreStringsIntegersOrBooleans() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "A", "id": true])
        expectError(.invalidDeclaration) { try graph.mount(["parent": "/App", "name": "B", "id": 1.5]) }
        expectError(.invalidDeclaration) { try graph.mount(["parent": "/App", "name": "C", "id": [1]]) }
    }

    @Test func anObservedObjectCanComeFromAnInput() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "P", "stateObjects": ["cart": ["type": "Cart"]]])
        let (result, _) = try graph.mount([
            "parent": "/App/P", "name": "C", "inputs": ["given": ["$parent": "cart"]], "observedObjects": ["cart": ["$input": "given"]],
        ])
        #expect(result?.objects.map { "\($0.variable)=\($0.object)" }.sorted() == ["cart=Cart#4", "given=Cart#4"])
    }

    @Test func envIsAReservedVariableName() throws {
        let graph = try makeGraph()
        expectError(.invalidDeclaration) { try graph.mount(["parent": "/App", "name": "V", "state": ["env": 1]]) }
    }

    @Test func viewsDeeperThanTheLimitAreRefused() throws {
        let graph = try Graph(limits: GraphLimits(maxDepth: 2))
        try graph.mount(["parent": "/App", "name": "A"])
        try graph.mount(["parent": "/App/A", "name": "B"])
        let error = expectError(.limitExceeded) { try graph.mount(["parent": "/App/A/B", "name": "C"]) }
        #expect(error?.data["limit"] == "viewDepth")
    }

    @Test func changesComeInProtocolOrderAndVersionsStartAtTheScene() throws {
        let graph = try makeGraph()
        #expect(graph.version == Version(1))
        #expect(try graph.get("login").wire["version"] == 1)
        try graph.mount(["parent": "/App", "name": "P", "state": ["k": 1], "body": ["{k}"]])
        try graph.mount(["parent": "/App/P", "name": "C", "id": ["$parent": "k"], "stateObjects": ["m": ["type": "CounterObject"]]])
        let commit = try graph.set("/App/P.k", 2)
        let kinds = commit.changes.map { change -> String in
            switch change {
            case .property, .state: "change"
            case .objectCreated: "create"
            case .viewUnmounted: "unmount"
            case .viewMounted: "mount"
            case .viewUpdated: "update"
            case .diagnostic: "diagnostic"
            case .objectDestroyed: "destroy"
            }
        }
        #expect(kinds == ["change", "create", "unmount", "mount", "update", "update", "destroy"])
        #expect(try graph.get("/App/P/C[2]").wire["version"] == .int(commit.version.rawValue))
    }
}
