import MilieuJSON
import MilieuProtocol
import Testing

@testable import MilieuEngine

/// The seeds' models declared in JSON, driven through a graph side by side with the built-in
/// Swift type of the same behaviour: values, action results, bodies and reasons must agree.
@Suite struct DeclaredSeedModelTests {
    // MARK: - The seeds' models, declared

    /// Seed 000's `LoginViewModel` (an ObservableObject), or in the `@Observable` style the `Login` of `/App`.
    static func loginViewModel(named name: String, style: ObservationStyle) -> JSON {
        [
            "name": .string(name), "style": .string(style.rawValue),
            "properties": [
                "email": ["type": "string"], "password": ["type": "string", "secure": true], "isUserLoggedIn": ["type": "bool"],
            ],
            "computed": ["isValidEmail": ["type": "bool", "get": ["matches": [["get": "email"], .string(Login.emailPattern)]]]],
            "actions": ["login": ["steps": [["set": "isUserLoggedIn", "to": ["get": "isValidEmail"]]]]],
        ]
    }

    /// Seed 001's `ViewModel`.
    static let viewModel: JSON = [
        "name": "DeclaredViewModel", "style": "observableObject",
        "properties": ["num": ["type": "int"], "result": ["type": "int", "default": 0]],
    ]

    /// Seed 002's counters: `OriginalObservable` (an ObservableObject) and `NewObservable` (`@Observable`).
    static func counter(named name: String, style: ObservationStyle) -> JSON {
        let step = { (delta: Int) -> JSON in
            ["steps": [["set": "count", "to": ["+": [["get": "count"], .int(delta)]]], ["return": ["get": "count"]]]]
        }
        return [
            "name": .string(name), "style": .string(style.rawValue), "properties": ["count": ["type": "int"]],
            "actions": ["add": step(1), "minus": step(-1)],
        ]
    }

    /// Seed 003's `AppState`.
    static let appState: JSON = {
        func feedEntry(_ type: String, prime: JSON) -> JSON {
            ["append": "activityFeed", "value": ["object": ["timestamp": ["now": []], "type": .string(type), "prime": prime]]]
        }
        let step = { (delta: Int) -> JSON in
            ["steps": [["set": "count", "to": ["+": [["get": "count"], .int(delta)]]], ["return": ["get": "count"]]]]
        }
        return [
            "name": "DeclaredAppState", "style": "observableObject",
            "properties": [
                "count": ["type": "int"], "favoritePrimes": ["type": "[int]"],
                "loggedInUser": ["type": ["optional": ["record": ["id": "int", "name": "string", "bio": "string"]]]],
                "activityFeed": ["type": ["array": ["record": ["timestamp": "string", "type": "string", "prime": "int"]]]],
            ],
            "computed": ["isCountPrime": ["type": "bool", "get": ["isPrime": ["get": "count"]]]],
            "actions": [
                "increment": step(1), "decrement": step(-1),
                "saveFavoritePrime": [
                    "steps": [
                        [
                            "if": ["or": [["not": ["get": "isCountPrime"]], ["in": [["get": "count"], ["get": "favoritePrimes"]]]]],
                            "then": [["return": false]],
                        ],
                        ["append": "favoritePrimes", "value": ["get": "count"]],
                        feedEntry("addedFavoritePrime", prime: ["get": "count"]),
                        ["return": true],
                    ]
                ],
                "removeFavoritePrime": [
                    "parameters": [["name": "prime", "type": "int"]],
                    "steps": [
                        ["if": ["not": ["in": [["arg": "prime"], ["get": "favoritePrimes"]]]], "then": [["return": false]]],
                        ["remove": "favoritePrimes", "value": ["arg": "prime"]],
                        feedEntry("removedFavoritePrime", prime: ["arg": "prime"]),
                        ["return": true],
                    ],
                ],
            ],
        ]
    }()

    /// Seed 004's `CartModel`.
    static let cart: JSON = [
        "name": "DeclaredCart", "style": "observableObject", "properties": ["items": ["type": "[string]"]],
        "actions": [
            "add": [
                "parameters": [["name": "item", "type": "string"]],
                "steps": [["append": "items", "value": ["arg": "item"]], ["return": ["count": ["get": "items"]]]],
            ]
        ],
    ]

    // MARK: - Side by side

    /// A graph with the declared type registered, and two views that hold, as `vm`, an object of
    /// the built-in type (`/App/BuiltIn`) and of the declared one (`/App/Declared`), with the same body:
    /// an ObservableObject as a `@StateObject`, an `@Observable` object in `@State` (rule 16).
    private struct SideBySide {
        let graph: Graph
        let builtIn: String
        let declared: String

        init(builtIn: String, declared: JSON, body: [JSON], initial: JSONObject = [:]) throws {
            graph = try makeGraph()
            self.builtIn = builtIn
            self.declared = declared["name"]?.stringValue ?? ""
            try graph.register(ModelType(declaration: declared))
            for (view, type) in [("BuiltIn", builtIn), ("Declared", self.declared)] {
                var spec: JSONObject = ["type": .string(type)]
                if !initial.isEmpty { spec["init"] = .object(initial) }
                let holder: JSONObject =
                    graph.registry[type]?.model.style == .observable
                    ? ["state": ["vm": ["$new": .object(spec)]]] : ["stateObjects": ["vm": .object(spec)]]
                let declaration: JSON = ["parent": "/App", "name": .string(view), "body": .array(body)]
                try graph.mount(declaration.merging(holder))
            }
        }

        /// Applies `operation` (a path below `vm`) to both objects and checks that both commits agree.
        @discardableResult
        func both(_ operation: (String) -> Operation, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSON {
            var outcomes: [(result: JSON, commit: Commit)] = []
            for view in ["/App/BuiltIn", "/App/Declared"] {
                let (results, commit) = try graph.apply([operation("\(view).vm")])
                outcomes.append((results[0].returned ?? .null, commit))
            }
            let (a, b) = (outcomes[0], outcomes[1])
            #expect(a.result == b.result, sourceLocation: sourceLocation)
            #expect(a.commit.body(of: "/App/BuiltIn") == b.commit.body(of: "/App/Declared"), sourceLocation: sourceLocation)
            #expect(a.commit.updates["/App/BuiltIn"] == b.commit.updates["/App/Declared"], sourceLocation: sourceLocation)
            #expect(propertyChanges(a.commit) == propertyChanges(b.commit), sourceLocation: sourceLocation)
            #expect(try values("/App/BuiltIn") == values("/App/Declared"), sourceLocation: sourceLocation)
            return a.result
        }

        /// Each changed property by name (the object's name differs between the two types).
        private func propertyChanges(_ commit: Commit) -> [String: JSON?] {
            Dictionary(commit.propertyChanges.map { (String($0.key.split(separator: ".").last ?? ""), $0.value) }, uniquingKeysWith: { $1 })
        }

        func values(_ view: String) throws -> JSON? { try graph.get("\(view).vm").wire["values"] }
    }

    @Test func declaredAppStateBehavesAsTheBuiltInOne() throws {
        let pair = try SideBySide(
            builtIn: "AppState", declared: Self.appState,
            body: ["{vm.count} {vm.isCountPrime}", "{vm.favoritePrimes}", "{vm.activityFeed}"])
        // A fixed pseudo-random walk through every action, with removals of primes saved or not.
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        for _ in 0..<300 {
            switch next(6) {
            case 0, 1: try pair.both { .call(path: "\($0).increment", arguments: []) }
            case 2: try pair.both { .call(path: "\($0).decrement", arguments: []) }
            case 3: try pair.both { .call(path: "\($0).saveFavoritePrime", arguments: []) }
            case 4:
                let prime = JSON.int([2, 3, 5, 7, 11, 13, 4][next(7)])
                try pair.both { .call(path: "\($0).removeFavoritePrime", arguments: [prime]) }
            default:
                let count = JSON.int(next(40) - 5)
                try pair.both { .set(path: "\($0).count", value: count, ifVersion: nil) }
            }
        }
        #expect(try pair.values("/App/Declared")?["activityFeed"]?.arrayValue?.isEmpty == false)
    }

    @Test(arguments: [("LoginViewModel", ObservationStyle.observableObject), ("Login", .observable)])
    func declaredLoginAgreesWithTheBuiltInOneOnEveryEmail(builtIn: String, style: ObservationStyle) throws {
        let pair = try SideBySide(
            builtIn: builtIn, declared: Self.loginViewModel(named: "Declared" + builtIn, style: style),
            body: ["{vm.email} {vm.isValidEmail} {vm.isUserLoggedIn} {vm.password}"])
        let emails = [
            "", "kim", "kim@example.com", "KIM.LEE+tag@mail.example.co", "a@b.c", "a@b.comm", "a@b.comme", "@example.com", "kim@.com",
            "kim@example.", "kim@@example.com", "kim example@x.org", "k%m@x-y.org", "kim@exa_mple.com", "한@example.com", "kim@example.c0m",
        ]
        for email in emails {
            try pair.both { .set(path: "\($0).email", value: .string(email), ifVersion: nil) }
            try pair.both { .call(path: "\($0).login", arguments: []) }
            #expect(try pair.graph.get("/App/Declared.vm.isValidEmail").wire == .bool(Login.isValidEmail(email)), "\(email)")
        }
        try pair.both { .set(path: "\($0).password", value: "hunter2-secret", ifVersion: nil) }
    }

    @Test func declaredCountersBehaveAsOriginalObservableAndNewObservable() throws {
        let counters = [
            ("OriginalObservable", Self.counter(named: "DeclaredOriginalObservable", style: .observableObject)),
            ("NewObservable", Self.counter(named: "DeclaredNewObservable", style: .observable)),
        ]
        for (builtIn, declared) in counters {
            let pair = try SideBySide(builtIn: builtIn, declared: declared, body: ["{vm.count}"])
            #expect(try pair.both { .call(path: "\($0).add", arguments: []) } == 1)
            #expect(try pair.both { .call(path: "\($0).add", arguments: []) } == 2)
            #expect(try pair.both { .call(path: "\($0).minus", arguments: []) } == 1)
            try pair.both { .set(path: "\($0).count", value: -3, ifVersion: nil) }
            #expect(try pair.both { .call(path: "\($0).minus", arguments: []) } == -4)
        }
    }

    @Test func declaredCartBehavesAsCartModel() throws {
        let pair = try SideBySide(builtIn: "CartModel", declared: Self.cart, body: ["{vm.items}"])
        for (index, item) in ["apple", "pear", "apple"].enumerated() {
            #expect(try pair.both { .call(path: "\($0).add", arguments: [.string(item)]) } == .int(index + 1))
        }
    }

    @Test func declaredViewModelStartsFromItsInitializerAsViewModel() throws {
        let pair = try SideBySide(builtIn: "ViewModel", declared: Self.viewModel, body: ["{vm.num} {vm.result}"], initial: ["num": 5])
        #expect(try pair.values("/App/Declared") == ["num": 5, "result": 0])
        try pair.both { .set(path: "\($0).result", value: 25, ifVersion: nil) }
    }
}

extension JSON {
    /// This object with `other`'s members added.
    fileprivate func merging(_ other: JSONObject) -> JSON {
        guard case .object(var object) = self else { return self }
        for member in other { object[member.key] = member.value }
        return .object(object)
    }
}
