import MilieuJSON
import MilieuProtocol
import Testing

@testable import MilieuEngine

/// Types declared in JSON with published flags, computed properties and actions, and the
/// expression language they are written in (SPEC §9.3).
@Suite struct DeclaredTypeTests {
    // MARK: - Helpers

    /// The properties every expression test can read.
    private static let fixture: [StoredProperty] = [
        StoredProperty("n", .int, default: 7), StoredProperty("x", .double, default: 2.5), StoredProperty("s", .string, default: "hello"),
        StoredProperty("flag", .bool, default: true), StoredProperty("list", .array(.int), default: [3, 1, 2]),
        StoredProperty("maybe", .optional(.int)), StoredProperty("any", .json, default: ["k": "v"]),
        StoredProperty("secret", .string, default: "hunter2", secure: true),
    ]

    /// `expression` evaluated as an action's would be, over `fixture`, with one int argument `a` = 10.
    private func evaluate(_ expression: JSON, limits: ExpressionLimits = ExpressionLimits()) throws(EngineError) -> JSON {
        var compiler = ExpressionCompiler(
            role: .action(parameters: [("a", .int)]), stored: Self.fixture, computed: [("derived", .int)], limits: limits)
        let (compiled, _) = try compiler.compile(expression, at: RequestPointer("/e"), depth: 1)
        let values = Dictionary(uniqueKeysWithValues: Self.fixture.map { ($0.name, $0.defaultValue) })
        let scope = ExpressionScope(property: { values[$0] ?? 42 }, arguments: [10], now: { "2026-01-01T00:00:00.000Z" })
        var evaluation = ExpressionEvaluation(scope: scope, limits: limits, place: "T.run")
        return try evaluation.evaluate(compiled)
    }

    /// The InvalidParams pointer for `declaration` registered as `/types/0`.
    private func refusal(_ declaration: JSON, limits: ExpressionLimits = ExpressionLimits()) -> String? {
        do {
            _ = try ModelType(declaration: declaration, at: "/types/0", limits: limits)
            Issue.record("\(declaration.jsonText) was accepted")
        } catch {
            #expect(error.kind == .invalidParams, "\(error)")
            return error.data["field"]?.stringValue
        }
        return nil
    }

    /// A declaration with the fixture's stored properties and `members` merged in.
    private func declaration(_ members: JSONObject) -> JSON {
        var object: JSONObject = [
            "name": "T", "style": "observableObject",
            "properties": [
                "n": ["type": "int"], "s": ["type": "string"], "flag": ["type": "bool"], "list": ["type": "[int]"],
                "secret": ["type": "string", "secure": true],
            ],
        ]
        for member in members { object[member.key] = member.value }
        return .object(object)
    }

    /// A graph with `declaration` registered and one object of it held by `/App/V`, whose body is `body`.
    private func graphHolding(_ declaration: JSON, body: [JSON] = [], limits: ExpressionLimits = ExpressionLimits()) throws -> Graph {
        let graph = try makeGraph()
        try graph.register(ModelType(declaration: declaration, limits: limits))
        let type = declaration["name"]?.stringValue ?? ""
        try graph.mount(["parent": "/App", "name": "V", "stateObjects": ["vm": ["type": .string(type)]], "body": .array(body)])
        return graph
    }

    private func result(_ graph: Graph, _ path: String, _ arguments: [JSON] = []) throws -> JSON {
        try graph.apply([.call(path: path, arguments: arguments)]).outcomes[0].returned ?? .null
    }

    // MARK: - Published

    @Test func aBadExpressionInARequestIsPointedAtWithinTheRequest() throws {
        let graph = try makeGraph()
        let good: JSON = ["name": "Fine", "properties": ["n": ["type": "int"]]]
        let bad: JSON = [
            "name": "Broken", "properties": ["n": ["type": "int"]], "computed": ["c": ["type": "int", "get": ["+": [1, "a"]]]],
        ]
        let error = expectError(.invalidParams) { _ = try graph.register(declarations: [good, bad]) }
        #expect(error?.data["field"] == "/types/1/computed/c/get/+/1")
        #expect(graph.registry["Fine"] == nil, "all or none")
    }

    @Test func publishedFalseMakesAPlainVarOfAnObservableObject() throws {
        let model = try ModelType(declaration: [
            "name": "Plain", "style": "observableObject",
            "properties": ["shown": ["type": "int"], "hidden": ["type": "int", "published": false]],
        ])
        #expect(model.stored.map(\.published) == [true, false])
    }

    @Test func publishedOnAnObservableTypeIsInvalidDeclaration() {
        let error = expectError(.invalidDeclaration) {
            _ = try ModelType(declaration: ["name": "O", "style": "observable", "properties": ["n": ["type": "int", "published": false]]])
        }
        #expect(error?.data["field"] == "properties.n.published")
        #expect(error?.message.contains("observableObject") == true)
    }

    // MARK: - Operators

    @Test(
        arguments: [
            // Literals and reads.
            (JSON.int(3), JSON.int(3)), ("text", "text"), (true, true), (.null, .null), (["literal": [1, ["a": 2]]], [1, ["a": 2]]),
            (["get": "n"], 7), (["get": "maybe"], .null), (["arg": "a"], 10), (["now": []], "2026-01-01T00:00:00.000Z"),
            (["object": ["id": ["get": "n"], "name": "kim"]], ["id": 7, "name": "kim"]), (["array": [1, ["get": "s"]]], [1, "hello"]),
            // Arithmetic: ints stay ints; a double makes a double.
            (["+": [1, 2, 3]], 6), (["+": [1, 0.5]], 1.5), (["-": [10, 4]], 6), (["-": [["get": "n"]]], -7),
            (["*": [3, ["get": "x"]]], 7.5),
            (["/": [7, 2]], 3), (["/": [-7, 2]], -3), (["/": [7.0, 2]], 3.5), (["%": [7, 3]], 1), (["%": [-7, 3]], -1),
            (["%": [7.5, 2]], 1.5),
            // Comparisons.
            (["==": [1, 1.0]], true), (["==": [["literal": [1, 2]], ["literal": [1.0, 2]]]], true), (["!=": ["a", "b"]], true),
            (["==": [["get": "any"], ["literal": ["k": "v"]]]], true), (["==": [.null, false]], false),
            (["<": [1, 2.5]], true), (["<=": [2, 2]], true), ([">": ["b", "a"]], true), ([">=": [1, 2]], false),
            // Logic.
            (["and": [true, ["get": "flag"]]], true), (["and": [true, false, true]], false), (["or": [false, false]], false),
            (["or": [false, true]], true), (["not": ["get": "flag"]], false), (["not": [false]], true),
            (["if": [["get": "flag"], "yes", "no"]], "yes"), (["if": [false, 1, false, 2, 3]], 3), (["if": [false, 1, true, 2, 3]], 2),
            // Strings, membership, counting.
            (["cat": ["n=", ["get": "n"], ", x=", ["get": "x"], ", ", true]], "n=7, x=2.5, true"),
            (["matches": [["get": "s"], "h[a-z]+"]], true), (["matches": [["get": "s"], "ell"]], false),
            (["in": [2, ["get": "list"]]], true), (["in": [2.0, ["get": "list"]]], true), (["in": [9, ["get": "list"]]], false),
            (["in": ["ell", ["get": "s"]]], true), (["in": ["z", "hello"]], false),
            (["count": ["get": "list"]], 3), (["count": ["get": "s"]], 5), (["count": [""]], 0),
            (["isPrime": 97], true), (["isPrime": 91], false), (["isPrime": 1], false), (["isPrime": -7], false),
            (["at": [["get": "list"], 0]], 3), (["at": [["get": "list"], 3]], .null), (["at": [["get": "list"], -1]], .null),
            (["at": [["get": "any"], "k"]], "v"), (["at": [["get": "any"], "z"]], .null),
            // Iterations.
            (["filter": [["get": "list"], "e", [">": [["var": "e"], 1]]]], [3, 2]),
            (["map": [["get": "list"], "e", ["*": [["var": "e"], 2]]]], [6, 2, 4]),
            (
                ["map": [["get": "list"], "e", ["map": [["literal": [10, 20]], "f", ["+": [["var": "e"], ["var": "f"]]]]]]],
                [[13, 23], [11, 21], [12, 22]]
            ),
            (["all": [["get": "list"], "e", [">": [["var": "e"], 0]]]], true), (["all": [["literal": []], "e", false]], true),
            (["some": [["get": "list"], "e", ["==": [["var": "e"], 2]]]], true), (["some": [["literal": []], "e", true]], false),
            (["none": [["get": "list"], "e", ["==": [["var": "e"], 2]]]], false),
            (["none": [["get": "list"], "e", [">": [["var": "e"], 5]]]], true),
        ] as [(JSON, JSON)])
    func operatorGivesItsValue(expression: JSON, expected: JSON) throws {
        #expect(try evaluate(expression) == expected, "\(expression.jsonText)")
    }

    @Test func isPrimeAgreesWithTrialDivisionAndHandlesTheWhole64BitRange() throws {
        func byTrialDivision(_ n: Int) -> Bool { n > 1 && (2...).prefix { $0 * $0 <= n }.allSatisfy { n % $0 != 0 } }
        for n in -5...3000 { #expect(try evaluate(["isPrime": .int(n)]) == .bool(byTrialDivision(n)), "\(n)") }
        // 2^61 - 1 and the largest prime below 2^63; Int.max and strong pseudoprimes to small bases are composite.
        #expect(try evaluate(["isPrime": 2_305_843_009_213_693_951]) == true)
        #expect(try evaluate(["isPrime": 9_223_372_036_854_775_783]) == true)
        #expect(try evaluate(["isPrime": .int(Int.max)]) == false)
        for composite in [561, 2047, 3_215_031_751, 3_825_123_056_546_413_051] {
            #expect(try evaluate(["isPrime": .int(composite)]) == false)
        }
    }

    @Test func aPlainVarDeclaredInJSONChangesSilentlyAsASwiftOneDoes() throws {
        let graph = try graphHolding(
            [
                "name": "Draft", "style": "observableObject",
                "properties": ["title": ["type": "string"], "notes": ["type": "string", "published": false]],
            ],
            body: ["{vm.title} {vm.notes}"])
        let silent = try graph.set("/App/V.vm.notes", "later")
        #expect(silent.updates.isEmpty)
        let announced = try graph.set("/App/V.vm.title", "Plan")
        #expect(announced.updates == ["/App/V": ["_vm"]])
        #expect(announced.body(of: "/App/V") == ["Plan later"])
    }

    // MARK: - Run-time failures

    @Test(
        arguments: [
            (["/": [1, 0]] as JSON, "a divisor other than 0"), (["%": [1, 0]], "a divisor other than 0"),
            (["/": [1.5, 0]], "a divisor other than 0"),
            (["+": [.int(Int.max), 1]], "a result that fits a 64-bit int"), (["*": [.int(Int.max), 2]], "a result that fits a 64-bit int"),
            (["-": [.int(Int.min)]], "a result that fits a 64-bit int"), (["/": [.int(Int.min), -1]], "a result that fits a 64-bit int"),
            (["*": [1e308, 10]], "a finite result"), (["+": [["get": "maybe"], 1]], "number"),
            (["<": [1, ["get": "any"]]], "two numbers or two strings"),
            (["and": [true, ["get": "any"]]], "bool"), (["count": ["get": "any"]], "array or string"),
            (["at": [["get": "list"], "k"]], "[array, int] or [object, string]"), (["cat": [["get": "any"]]], "string, number or bool"),
            (["in": [1, ["get": "any"]]], "[value, array] or [string, string]"), (["isPrime": ["get": "maybe"]], "int"),
            (["filter": [["get": "any"], "e", true]], "array"),
        ] as [(JSON, String)])
    func aFailureAtRunTimeIsTypeMismatchNamingTheNode(expression: JSON, expected: String) {
        let error = expectError(.typeMismatch) { _ = try evaluate(expression) }
        #expect(error?.data["expected"] == .string(expected), "\(expression.jsonText)")
        #expect(error?.data["path"] == "T.run")
        #expect(error?.message.hasPrefix("T.run: ") == true)
    }

    @Test func shortCircuitFormsDoNotEvaluateWhatTheyDoNotNeed() throws {
        // The untaken side would fail (division by zero): it is never evaluated.
        #expect(try evaluate(["and": [false, ["==": [["/": [1, 0]], 1]]]]) == false)
        #expect(try evaluate(["or": [true, ["==": [["/": [1, 0]], 1]]]]) == true)
        #expect(try evaluate(["if": [true, 1, ["/": [1, 0]]]]) == 1)
        #expect(try evaluate(["some": [["literal": [1, 0]], "d", ["==": [["/": [1, ["var": "d"]]], 1]]]]) == true)
    }

    @Test func randomExpressionsAreRefusedOrEvaluatedButNeverTrap() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        let names =
            ExpressionOperator.allCases.map(\.rawValue) + ExpressionIteration.allCases.map(\.rawValue) + [
                "get", "arg", "var", "now", "literal", "object", "bogus",
            ]
        let leaves: [JSON] = [
            0, 1, -1, .int(Int.max), .int(Int.min), 2.5, 0.0, "", "a", "[a-z]+", "(", true, false, .null, ["get": "n"], ["get": "list"],
            ["get": "s"],
            ["get": "maybe"], ["get": "any"], ["get": "secret"], ["arg": "a"], ["var": "e"], ["literal": [1, "x", .null]], ["now": []],
        ]
        func expression(_ depth: Int) -> JSON {
            if depth == 0 || next(4) == 0 { return leaves[next(leaves.count)] }
            let arguments = (0..<next(5)).map { _ in next(6) == 0 ? JSON.string("e") : expression(depth - 1) }
            return [names[next(names.count)]: next(5) == 0 ? arguments.first ?? .null : .array(arguments)]
        }
        var evaluated = 0
        for _ in 0..<3000 {
            if (try? evaluate(expression(5), limits: ExpressionLimits(maxSteps: 500, maxStringLength: 64, maxArrayLength: 16))) != nil {
                evaluated += 1
            }
        }
        #expect(evaluated > 100)
    }

    // MARK: - Budgets and limits

    @Test func evaluationStopsAtItsStepBudget() {
        let limits = ExpressionLimits(maxSteps: 50)
        let error = expectError(.limitExceeded) {
            _ = try evaluate(
                ["map": [["literal": .array(Array(repeating: 1, count: 30))], "e", ["+": [["var": "e"], 1]]]], limits: limits)
        }
        #expect(error?.data["limit"] == "expressionSteps")
        #expect(error?.data["max"] == 50)
        // Nested walks multiply: each element visited counts.
        expectError(.limitExceeded) {
            _ = try evaluate(
                ["map": [["literal": [1, 2, 3, 4, 5, 6, 7, 8]], "e", ["map": [["literal": [1, 2, 3, 4, 5, 6, 7, 8]], "f", 0]]]],
                limits: limits)
        }
        #expect((try? evaluate(["+": [1, 2]], limits: limits)) == 3)
    }

    @Test func builtStringsAndArraysHaveLimits() {
        let limits = ExpressionLimits(maxStringLength: 8, maxArrayLength: 4)
        let string = expectError(.limitExceeded) { _ = try evaluate(["cat": ["hello", " world"]], limits: limits) }
        #expect(string?.data["limit"] == "expressionString")
        let array = expectError(.limitExceeded) {
            _ = try evaluate(["map": [["literal": [1, 2, 3, 4, 5]], "e", ["var": "e"]]], limits: limits)
        }
        #expect(array?.data["limit"] == "expressionArray")
        expectError(.limitExceeded) { _ = try evaluate(["array": [1, 2, 3, 4, 5]], limits: limits) }
        expectError(.limitExceeded) { _ = try evaluate(["matches": ["123456789", "[0-9]+"]], limits: limits) }
        #expect((try? evaluate(["cat": ["hello", "!"]], limits: limits)) == "hello!")
    }

    /// RE2's NFA steps every instruction of `(.*){1000}` (9003) per byte: 64 KiB would take about 1 s.
    @Test func aMatchPastTheWorkBudgetStopsTheEvaluation() {
        let text = JSON.string(String(repeating: "a", count: 65_536))
        let error = expectError(.limitExceeded) { _ = try evaluate(["matches": [text, "(.*){1000}"]]) }
        #expect(error?.data["limit"] == "patternWork")
        #expect(error?.data["max"] == .int(WholeMatch.maxWork))
        #expect(error?.message.contains("T.run: matches at /e") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("65536") == false, "the string may be secret: no length")
        #expect((try? evaluate(["matches": ["aaaa", "(.*){1000}"]])) == true)
    }

    @Test func aComputedGetterThatFailsReadsNull() throws {
        let graph = try graphHolding(
            declaration([
                "computed": [
                    "ratio": ["type": "int", "get": ["/": [100, ["get": "n"]]]],
                    "long": ["type": "[int]", "get": ["map": [["get": "list"], "e", ["var": "e"]]]],
                ]
            ]), limits: ExpressionLimits(maxArrayLength: 2))
        #expect(try graph.get("/App/V.vm.ratio").wire == .null)
        try graph.set("/App/V.vm.n", 4)
        #expect(try graph.get("/App/V.vm.ratio").wire == 25)
        try graph.set("/App/V.vm.list", [1, 2])
        #expect(try graph.get("/App/V.vm.long").wire == [1, 2])
        try graph.set("/App/V.vm.list", [1, 2, 3])
        #expect(try graph.get("/App/V.vm.long").wire == .null)
    }

    /// Issue #26.6: every getter and action a request runs spends one budget, so that many small
    /// writes, each re-evaluating an expensive getter, cannot each spend a whole evaluation's budget.
    /// Past it the request is refused whole, `LimitExceeded` `requestSteps`, and nothing changes.
    @Test func aRequestsEvaluationsShareOneBudget() throws {
        // `count` of a 1000-byte string costs about 1000 steps; 30 objects share one request's 20k.
        let graph = try makeHeavyRows()
        let long = JSON.string(String(repeating: "x", count: 1000))
        let few = (0..<10).map { Operation.set(path: "/App/H\($0).h.text", value: long, ifVersion: nil) }
        #expect(try graph.apply(few).commit.body(of: "/App/H0") == ["1000"])
        let before = try graph.fingerprint()
        let longer = JSON.string(String(repeating: "y", count: 1001))
        let many = (0..<30).map { Operation.set(path: "/App/H\($0).h.text", value: longer, ifVersion: nil) }
        let error = expectError(.limitExceeded) { _ = try graph.apply(many) }
        #expect(error?.data["limit"] == "requestSteps")
        #expect(error?.data["max"] == 20_000)
        #expect(try graph.fingerprint() == before)
        // The next request has a budget of its own.
        #expect(try graph.apply(Array(many.prefix(10))).commit.body(of: "/App/H0") == ["1001"])
    }

    @Test func appendingPastTheArrayLimitFailsTheAction() throws {
        let graph = try graphHolding(
            declaration(["actions": ["push": ["steps": [["append": "list", "value": 0]]]]]), limits: ExpressionLimits(maxArrayLength: 2))
        try graph.call("/App/V.vm.push")
        try graph.call("/App/V.vm.push")
        let error = expectError(.limitExceeded) { try graph.call("/App/V.vm.push") }
        #expect(error?.data["limit"] == "expressionArray")
        #expect(try graph.get("/App/V.vm.list").wire == [0, 0])
    }

    // MARK: - Declaration errors, each with its pointer

    @Test(
        arguments: [
            (["computed": ["c": ["type": "int", "get": ["nope": [1]]]]] as JSONObject, "/types/0/computed/c/get/nope"),
            (["computed": ["c": ["type": "int", "get": ["+": [1]]]]], "/types/0/computed/c/get/+"),
            (["computed": ["c": ["type": "int", "get": ["/": [1, 2, 3]]]]], "/types/0/computed/c/get/~1"),
            (["computed": ["c": ["type": "bool", "get": ["if": [true, 1]]]]], "/types/0/computed/c/get/if"),
            (["computed": ["c": ["type": "int", "get": ["get": "zz"]]]], "/types/0/computed/c/get/get"),
            (["computed": ["c": ["type": "int", "get": ["get": 3]]]], "/types/0/computed/c/get/get"),
            (["computed": ["c": ["type": "int", "get": ["get": "d"]], "d": ["type": "int", "get": 1]]], "/types/0/computed/c/get/get"),
            (["computed": ["c": ["type": "int", "get": ["arg": "a"]]]], "/types/0/computed/c/get/arg"),
            (["computed": ["c": ["type": "string", "get": ["now": []]]]], "/types/0/computed/c/get/now"),
            (["computed": ["c": ["type": "int", "get": ["var": "e"]]]], "/types/0/computed/c/get/var"),
            (["computed": ["c": ["type": "int", "get": ["+": [1, "a"]]]]], "/types/0/computed/c/get/+/1"),
            (["computed": ["c": ["type": "int", "get": ["+": [1, ["get": "s"]]]]]], "/types/0/computed/c/get/+/1"),
            (["computed": ["c": ["type": "bool", "get": ["<": [1, "a"]]]]], "/types/0/computed/c/get/</1"),
            (["computed": ["c": ["type": "bool", "get": ["and": [true, 1]]]]], "/types/0/computed/c/get/and/1"),
            (["computed": ["c": ["type": "bool", "get": ["not": "x"]]]], "/types/0/computed/c/get/not"),
            (["computed": ["c": ["type": "int", "get": ["count": 5]]]], "/types/0/computed/c/get/count"),
            (["computed": ["c": ["type": "bool", "get": ["matches": [["get": "s"], "("]]]]], "/types/0/computed/c/get/matches/1"),
            (
                ["computed": ["c": ["type": "bool", "get": ["matches": [["get": "s"], ["get": "s"]]]]]], "/types/0/computed/c/get/matches/1"
            ),
            (["computed": ["c": ["type": "bool", "get": ["matches": [["get": "n"], "[0-9]"]]]]], "/types/0/computed/c/get/matches/0"),
            (["computed": ["c": ["type": "bool", "get": ["in": [1, "abc"]]]]], "/types/0/computed/c/get/in/0"),
            (["computed": ["c": ["type": "bool", "get": ["isPrime": "7"]]]], "/types/0/computed/c/get/isPrime"),
            (["computed": ["c": ["type": "int", "get": [1, 2]]]], "/types/0/computed/c/get"),
            (["computed": ["c": ["type": "int", "get": ["+": [1, 2], "-": [1]]]]], "/types/0/computed/c/get"),
            (["computed": ["c": ["type": "[int]", "get": ["filter": [["get": "list"], "e"]]]]], "/types/0/computed/c/get/filter"),
            (
                ["computed": ["c": ["type": "[int]", "get": ["filter": [["get": "list"], "1e", true]]]]], "/types/0/computed/c/get/filter/1"
            ),
            (["computed": ["c": ["type": "[int]", "get": ["filter": [["get": "list"], "e", 1]]]]], "/types/0/computed/c/get/filter/2"),
            (["computed": ["c": ["type": "[int]", "get": ["map": [["get": "n"], "e", 1]]]]], "/types/0/computed/c/get/map/0"),
            (["computed": ["c": ["type": "bool", "get": ["get": "n"]]]], "/types/0/computed/c/get"),
            (["computed": ["c": ["type": "string", "get": ["get": "secret"]]]], "/types/0/computed/c/get"),
            (["computed": ["c": ["type": "string", "get": ["cat": ["pw: ", ["get": "secret"]]]]]], "/types/0/computed/c/get"),
            (["computed": ["c": ["type": "int"]]], "/types/0/computed/c"),
            (["computed": ["c": ["type": "int", "get": 1, "set": 2]]], "/types/0/computed/c/set"),
            (["computed": 3], "/types/0/computed"),
            (["actions": ["a": ["steps": [["set": "n", "to": ["arg": "b"]]]]]], "/types/0/actions/a/steps/0/to/arg"),
            (["actions": ["a": ["steps": [["set": "zz", "to": 1]]]]], "/types/0/actions/a/steps/0/set"),
            (
                ["actions": ["a": ["steps": [["set": "c", "to": 1]]]], "computed": ["c": ["type": "int", "get": 1]]],
                "/types/0/actions/a/steps/0/set"
            ),
            (["actions": ["a": ["steps": [["set": "n", "to": "x"]]]]], "/types/0/actions/a/steps/0/to"),
            (["actions": ["a": ["steps": [["set": "n"]]]]], "/types/0/actions/a/steps/0"),
            (["actions": ["a": ["steps": [["set": "n", "to": 1, "value": 2]]]]], "/types/0/actions/a/steps/0/value"),
            (["actions": ["a": ["steps": [["loop": true]]]]], "/types/0/actions/a/steps/0"),
            (["actions": ["a": ["steps": [["append": "n", "value": 1]]]]], "/types/0/actions/a/steps/0/append"),
            (["actions": ["a": ["steps": [["append": "list", "value": "x"]]]]], "/types/0/actions/a/steps/0/value"),
            (["actions": ["a": ["steps": [["remove": "list", "at": "x"]]]]], "/types/0/actions/a/steps/0/at"),
            (["actions": ["a": ["steps": [["if": 1, "then": []]]]]], "/types/0/actions/a/steps/0/if"),
            (
                ["actions": ["a": ["steps": [["if": true, "then": [["return": ["nope": 1]]]]]]]],
                "/types/0/actions/a/steps/0/then/0/return/nope"
            ),
            (["actions": ["a": ["steps": [["return": ["get": "secret"]]]]]], "/types/0/actions/a/steps/0/return"),
            (["actions": ["a": ["steps": [["set": "s", "to": ["get": "secret"]]]]]], "/types/0/actions/a/steps/0/to"),
            (["actions": ["a": ["steps": [["set": "s", "to": ["if": [true, ["get": "secret"], ""]]]]]]], "/types/0/actions/a/steps/0/to"),
            (["actions": ["a": ["steps": "none"]]], "/types/0/actions/a/steps"),
            (["actions": ["a": ["parameters": [["name": "p"]], "steps": []]]], "/types/0/actions/a/parameters/0"),
            (
                ["actions": ["a": ["parameters": [["name": "p", "type": "int"], ["name": "p", "type": "int"]], "steps": []]]],
                "/types/0/actions/a/parameters/1/name"
            ),
            (["actions": ["a": ["parameters": [["name": "1p", "type": "int"]], "steps": []]]], "/types/0/actions/a/parameters/0/name"),
            (["actions": ["a": ["steps": [], "body": []]]], "/types/0/actions/a/body"),
            (["properties": ["n": ["type": "int", "bogus": 1]]], "/types/0/properties/n/bogus"),
            (["extra": 1], "/types/0/extra"),
        ] as [(JSONObject, String)])
    func aBadDeclarationIsInvalidParamsPointingAtTheCulprit(members: JSONObject, pointer: String) {
        #expect(refusal(declaration(members)) == pointer, "\(JSON.object(members).jsonText)")
    }

    @Test func aMalformedMemberTypeIsInvalidDeclarationNamingIt() {
        let computed = expectError(.invalidDeclaration) {
            _ = try ModelType(declaration: declaration(["computed": ["c": ["type": "integer", "get": 1]]]))
        }
        #expect(computed?.data["field"] == "computed.c.type")
        let parameter = expectError(.invalidDeclaration) {
            _ = try ModelType(declaration: declaration(["actions": ["a": ["parameters": [["name": "p", "type": "[int"]], "steps": []]]]))
        }
        #expect(parameter?.data["field"] == "actions.a.parameters.0.type")
    }

    @Test func expressionsDeeperOrLargerThanTheLimitsAreRefused() {
        var deep: JSON = 1
        for _ in 0..<40 { deep = ["-": [deep]] }
        let depth = refusal(declaration(["computed": ["c": ["type": "int", "get": deep]]]))
        #expect(depth == "/types/0/computed/c/get" + String(repeating: "/-/0", count: 32))
        let wide = JSON.object(["array": .array(Array(repeating: 1, count: 20))])
        #expect(
            refusal(declaration(["computed": ["c": ["type": "[int]", "get": wide]]]), limits: ExpressionLimits(maxNodes: 10))
                == "/types/0/computed/c/get/array/9")
        let steps = JSON.array(Array(repeating: ["set": "n", "to": 1], count: 6))
        #expect(
            refusal(declaration(["actions": ["a": ["steps": steps]]]), limits: ExpressionLimits(maxNodes: 10))
                == "/types/0/actions/a/steps/5")
    }

    // MARK: - Computed properties read only what they evaluate (rule 12)

    @Test func aGetterRecordsOnlyTheReadsOfTheBranchesItTook() throws {
        let graph = try graphHolding(
            declaration([
                "computed": [
                    "pick": ["type": "int", "get": ["if": [["get": "flag"], ["get": "n"], ["count": ["get": "s"]]]]],
                    "either": ["type": "bool", "get": ["or": [["get": "flag"], ["in": [1, ["get": "list"]]]]]],
                ]
            ]))
        guard let record = graph.objectsByName.values.first(where: { $0.type.name == "T" }) else {
            Issue.record("no object")
            return
        }
        let slot = { (property: String) in record.type.slots[property] ?? -1 }
        try graph.set("/App/V.vm.flag", true)
        _ = record.evaluateComputed(0, budget: graph.budget)
        _ = record.evaluateComputed(1, budget: graph.budget)
        #expect(record.computedReads == [[slot("flag"), slot("n")], [slot("flag")]])
        try graph.set("/App/V.vm.flag", false)
        _ = record.evaluateComputed(0, budget: graph.budget)
        _ = record.evaluateComputed(1, budget: graph.budget)
        #expect(record.computedReads == [[slot("flag"), slot("s")], [slot("flag"), slot("list")]])
    }

    @Test func aBodyReadingADeclaredComputedPropertyDependsOnWhatItsGetterRead() throws {
        let graph = try makeGraph()
        try graph.register(
            ModelType(declaration: [
                "name": "Mail", "style": "observable", "properties": ["email": ["type": "string"], "name": ["type": "string"]],
                "computed": ["valid": ["type": "bool", "get": ["matches": [["get": "email"], "[a-z]+@[a-z]+"]]]],
            ]))
        try graph.mount(["parent": "/App", "name": "V", "state": ["vm": ["$new": ["type": "Mail"]]], "body": ["{vm.valid}"]])
        // Still invalid after both writes: the body re-renders anyway (rule 12), and not for `name`.
        #expect(try graph.set("/App/V.vm.email", "a").updates == ["/App/V": ["vm.email"]])
        #expect(try graph.set("/App/V.vm.email", "b").updates == ["/App/V": ["vm.email"]])
        #expect(try graph.set("/App/V.vm.name", "kim").updates.isEmpty)
    }

    // MARK: - Actions

    @Test func stepsSetAppendRemoveBranchAndReturn() throws {
        let graph = try graphHolding(
            declaration([
                "actions": [
                    "edit": [
                        "parameters": [["name": "v", "type": "int"]],
                        "steps": [
                            ["append": "list", "value": ["arg": "v"]], ["append": "list", "value": ["arg": "v"]],
                            ["remove": "list", "at": 0],
                            [
                                "if": [">=": [["count": ["get": "list"]], 2]], "then": [["set": "n", "to": ["count": ["get": "list"]]]],
                                "else": [["return": "short"]],
                            ],
                            ["return": ["get": "list"]], ["set": "n", "to": -1],
                        ],
                    ],
                    "drop": ["parameters": [["name": "v", "type": "int"]], "steps": [["remove": "list", "value": ["arg": "v"]]]],
                ]
            ]))
        #expect(try result(graph, "/App/V.vm.edit", [5]) == "short")
        #expect(try graph.get("/App/V.vm.list").wire == [5])
        #expect(try result(graph, "/App/V.vm.edit", [5]) == [5, 5])
        #expect(try graph.get("/App/V.vm.n").wire == 2)
        #expect(try result(graph, "/App/V.vm.drop", [5]) == .null)
        #expect(try graph.get("/App/V.vm.list").wire == [])
    }

    @Test func aFailingStepUndoesTheWholeAction() throws {
        let graph = try graphHolding(
            declaration([
                "actions": [
                    "risky": [
                        "parameters": [["name": "d", "type": "int"]],
                        "steps": [
                            ["append": "list", "value": 1], ["set": "n", "to": ["/": [10, ["arg": "d"]]]], ["remove": "list", "at": 99],
                        ],
                    ]
                ]
            ]))
        let before = try graph.fingerprint()
        let division = expectError(.typeMismatch) { try graph.call("/App/V.vm.risky", [0]) }
        #expect(division?.data["path"] == "T.risky")
        #expect(division?.data["expected"] == "a divisor other than 0")
        #expect(division?.data["actual"] == "0")
        #expect(division?.message.contains("/actions/risky/steps/1/to/~1") == true)
        #expect(try graph.fingerprint() == before)
        let index = expectError(.typeMismatch) { try graph.call("/App/V.vm.risky", [2]) }
        #expect(index?.data["actual"] == "out of range")
        #expect(try graph.fingerprint() == before)
    }

    @Test func aWriteStillPassesThePropertysTypeAndConstraints() throws {
        let graph = try graphHolding([
            "name": "Bounded", "style": "observableObject", "properties": ["n": ["type": "int", "max": 3], "any": ["type": "json"]],
            "actions": [
                "bump": ["steps": [["set": "n", "to": ["+": [["get": "n"], 2]]]]],
                "store": ["steps": [["set": "n", "to": ["get": "any"]]]],
            ],
        ])
        try graph.call("/App/V.vm.bump")
        expectError(.invalidValue) { try graph.call("/App/V.vm.bump") }
        expectError(.typeMismatch) { try graph.call("/App/V.vm.store") }
        #expect(try graph.get("/App/V.vm.n").wire == 2)
    }

    @Test func declaredMembersAreDescribedLikeBuiltInOnes() throws {
        let graph = try graphHolding(
            declaration([
                "computed": ["twice": ["type": "int", "get": ["*": [["get": "n"], 2]]]],
                "actions": [
                    "add": ["parameters": [["name": "item", "type": "int"]], "steps": [["append": "list", "value": ["arg": "item"]]]]
                ],
            ]))
        let described = graph.typeDescriptions().first { $0.name == "T" }
        #expect(described?.properties.last?.wire == ["name": "twice", "type": "int", "computed": true, "secure": false])
        #expect(described?.actions.first?.wire == ["name": "add", "params": ["item: int"]])
    }

    /// An argument is a secret when the action writes it, or what is computed from it, into a secure
    /// property, or uses it with a secure value; `schema/types` says which (issue #26, item 10).
    @Test func argumentsThatMeetASecretAreSecureParameters() throws {
        func secureParameters(_ steps: JSON, _ names: [String] = ["a", "b"]) throws -> [String] {
            let action: JSON = ["parameters": .array(names.map { ["name": .string($0), "type": "string"] }), "steps": steps]
            let type = try ModelType(declaration: declaration(["actions": ["act": action]]), at: "/types/0", limits: ExpressionLimits())
            return type.actions.first?.secureParameters ?? ["?"]
        }
        #expect(try secureParameters([["set": "secret", "to": ["arg": "b"]]]) == ["b"], "written into a secure property")
        #expect(
            try secureParameters([["set": "secret", "to": ["cat": [["arg": "a"], "-", ["arg": "b"]]]]]) == ["a", "b"], "computed from")
        #expect(try secureParameters([["set": "flag", "to": ["==": [["arg": "a"], ["get": "secret"]]]]]) == ["a"], "compared with one")
        #expect(
            try secureParameters([
                ["if": ["in": [["get": "secret"], ["array": [["arg": "a"]]]]], "then": [["set": "s", "to": ["arg": "b"]]]]
            ])
                == ["a"], "only what meets the secret")
        #expect(try secureParameters([["set": "s", "to": ["arg": "a"]], ["append": "list", "value": ["count": ["arg": "b"]]]]).isEmpty)
        let described = try graphHolding(
            declaration([
                "actions": ["pin": ["parameters": [["name": "p", "type": "string"]], "steps": [["set": "secret", "to": ["arg": "p"]]]]]
            ])
        )
        .typeDescriptions().first { $0.name == "T" }
        #expect(described?.actions.first?.wire == ["name": "pin", "params": ["p: string"], "secureParams": ["p"]])
    }

    @Test func aSecurePropertyCanBeUsedButNotShown() throws {
        let graph = try graphHolding(
            declaration([
                "computed": ["strong": ["type": "bool", "get": [">=": [["count": ["get": "secret"]], 8]]]],
                "actions": [
                    "rotate": [
                        "parameters": [["name": "to", "type": "string"]],
                        "steps": [["set": "secret", "to": ["cat": [["get": "secret"], ["arg": "to"]]]]],
                    ]
                ],
            ]),
            body: ["{vm.strong}"])
        #expect(try graph.get("/App/V.vm.strong").wire == false)
        let commit = try graph.call("/App/V.vm.rotate", ["-and-more"])
        #expect(try graph.get("/App/V.vm.strong").wire == true)
        #expect(!commit.changes.map { "\($0)" }.joined().contains("and-more"))
    }
}
