import MilieuJSON
import MilieuProtocol

/// The model types every daemon knows (semantics.md, "Built-in types").
public enum BuiltinTypes {
    public static let all: [ModelType] = [
        Session.modelType, Theme.modelType, Login.modelType, Counter.modelType, CounterObject.modelType,
        LoginViewModel.modelType, ViewModel.modelType, OriginalObservable.modelType, NewObservable.modelType,
        DataModel.modelType, AppState.modelType, Cart.modelType, CartModel.modelType, SessionModel.modelType,
    ]
}

/// Who is signed in; `token` is secure.
public enum Session: ModelDeclaring {
    public static let modelType = ModelType(
        name: "Session", style: .observable,
        stored: [
            StoredProperty("user", .optional(.string)),
            StoredProperty("token", .string, secure: true),
            StoredProperty("startedAt", .optional(.string)),
            StoredProperty("isActive", .bool),
        ],
        actions: [
            Action("start", parameters: [("user", .string)]) { context throws(EngineError) in
                try context.set("user", context.arguments[0])
                try context.set("token", .string(randomToken()))
                try context.set("startedAt", .string(context.now))
                try context.set("isActive", true)
                return .null
            },
            Action("end") { context throws(EngineError) in
                try context.set("user", .null)
                try context.set("token", "")
                try context.set("startedAt", .null)
                try context.set("isActive", false)
                return .null
            },
        ])

    private static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(generator.next() as UInt64, radix: 16) }.joined()
    }
}

/// Appearance shared by the whole tree.
public enum Theme: ModelDeclaring {
    public static let modelType = ModelType(
        name: "Theme", style: .observable,
        stored: [
            StoredProperty("colorScheme", .string, default: "light", validation: Constraints(oneOf: ["light", "dark"])),
            StoredProperty("accentColor", .string, default: "blue"),
            StoredProperty("fontScale", .double, default: 1.0, validation: Constraints(min: 0.5, max: 3.0)),
        ])
}

/// The login form of seed 000; `password` is secure.
public enum Login: ModelDeclaring {
    /// Seed 000's e-mail pattern, matched against the whole string.
    public static let emailPattern = "[A-Z0-9a-z._%+-]+@[A-Za-z0-9.-]+\\.[A-Za-z]{2,4}"

    /// `emailPattern` as a whole match, without a regular-expression engine: it runs on every
    /// write of `email`. One `@`; before it, local characters; after it, domain characters, a
    /// last `.` and two to four letters. (A test checks it agrees with the pattern.)
    public static func isValidEmail(_ email: String) -> Bool {
        let bytes = Array(email.utf8)
        guard let at = bytes.firstIndex(of: UInt8(ascii: "@")), at > 0 else { return false }
        let local = bytes[..<at]
        let rest = bytes[(at + 1)...]
        guard let dot = rest.lastIndex(of: UInt8(ascii: ".")), dot > rest.startIndex else { return false }
        let domain = rest[..<dot]
        let top = rest[(dot + 1)...]
        func isLetter(_ b: UInt8) -> Bool { (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) }
        func isDigit(_ b: UInt8) -> Bool { (0x30...0x39).contains(b) }
        return local.allSatisfy { isLetter($0) || isDigit($0) || "._%+-".utf8.contains($0) }
            && domain.allSatisfy { isLetter($0) || isDigit($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }
            && (2...4).contains(top.count) && top.allSatisfy(isLetter)
    }

    public static let modelType = login(named: "Login", style: .observable, withLogout: true)

    /// Seed 000's login form: the e-mail, the secure password, whether the user is signed in,
    /// the derived `isValidEmail` and `login()`.
    static func login(named name: String, style: ObservationStyle, withLogout: Bool) -> ModelType {
        ModelType(
            name: name, style: style,
            stored: [
                StoredProperty("email", .string),
                StoredProperty("password", .string, secure: true),
                StoredProperty("isUserLoggedIn", .bool),
            ],
            computed: [
                ComputedProperty("isValidEmail", .bool) { object in .bool(isValidEmail(object["email"].stringValue ?? "")) }
            ],
            actions: [
                Action("login") { context throws(EngineError) in
                    try context.set("isUserLoggedIn", try context.get("isValidEmail"))
                    return .null
                }
            ]
                + (withLogout
                    ? [
                        Action("logout") { context throws(EngineError) in
                            try context.set("isUserLoggedIn", false)
                            return .null
                        }
                    ] : []))
    }
}

/// Seed 000's `LoginViewModel: ObservableObject`, with `@Published` properties.
public enum LoginViewModel: ModelDeclaring {
    public static let modelType = Login.login(named: "LoginViewModel", style: .observableObject, withLogout: false)
}

/// The fine-grained counter of seed 002 (`@Observable`).
public enum Counter: ModelDeclaring {
    public static let modelType = counter(named: "Counter", style: .observable)

    static func counter(named name: String, style: ObservationStyle) -> ModelType {
        ModelType(
            name: name, style: style, stored: [StoredProperty("count", .int)],
            actions: [
                Action("add") { context throws(EngineError) in
                    let count = (try context.get("count").intValue ?? 0) + 1
                    try context.set("count", .int(count))
                    return .int(count)
                },
                Action("minus") { context throws(EngineError) in
                    let count = (try context.get("count").intValue ?? 0) - 1
                    try context.set("count", .int(count))
                    return .int(count)
                },
            ])
    }
}

/// The coarse counter of seed 002 (`ObservableObject`).
public enum CounterObject: ModelDeclaring {
    public static let modelType = Counter.counter(named: "CounterObject", style: .observableObject)
}

/// Seed 002's `OriginalObservable: ObservableObject` (`@Published var count`, `add()`, `minus()`).
public enum OriginalObservable: ModelDeclaring {
    public static let modelType = Counter.counter(named: "OriginalObservable", style: .observableObject)
}

/// Seed 002's `@Observable final class NewObservable` (`var count`, `add()`, `minus()`).
public enum NewObservable: ModelDeclaring {
    public static let modelType = Counter.counter(named: "NewObservable", style: .observable)
}

/// Seed 002's first `@Observable class DataModel { var count: Int = 0 }`.
public enum DataModel: ModelDeclaring {
    public static let modelType = ModelType(name: "DataModel", style: .observable, stored: [StoredProperty("count", .int)])
}

/// Seed 001's `ViewModel: ObservableObject`, initialised from a number.
public enum ViewModel: ModelDeclaring {
    public static let modelType = ModelType(
        name: "ViewModel", style: .observableObject, stored: [StoredProperty("num", .int), StoredProperty("result", .int)])
}

/// The app state of seed 003: a counter, favourite primes and their activity feed.
public enum AppState: ModelDeclaring {
    static let user = PropertyType.record([("id", .int), ("name", .string), ("bio", .string)])
    static let activity = PropertyType.record([("timestamp", .string), ("type", .string), ("prime", .int)])

    public static let modelType = ModelType(
        name: "AppState", style: .observableObject,
        stored: [
            StoredProperty("count", .int),
            StoredProperty("favoritePrimes", .array(.int)),
            StoredProperty("loggedInUser", .optional(user)),
            StoredProperty("activityFeed", .array(activity)),
        ],
        computed: [
            ComputedProperty("isCountPrime", .bool) { object in .bool(isPrime(object["count"].intValue ?? 0)) }
        ],
        actions: [
            Action("increment") { context throws(EngineError) in try step(context, by: 1) },
            Action("decrement") { context throws(EngineError) in try step(context, by: -1) },
            Action("saveFavoritePrime") { context throws(EngineError) in
                let count = try context.get("count").intValue ?? 0
                var primes = try context.get("favoritePrimes").arrayValue ?? []
                guard isPrime(count), !primes.contains(.int(count)) else { return false }
                primes.append(.int(count))
                try context.set("favoritePrimes", .array(primes))
                try record(context, "addedFavoritePrime", count)
                return true
            },
            Action("removeFavoritePrime", parameters: [("prime", .int)]) { context throws(EngineError) in
                let prime = context.arguments[0]
                let primes = try context.get("favoritePrimes").arrayValue ?? []
                guard primes.contains(prime) else { return false }
                try context.set("favoritePrimes", .array(primes.filter { $0 != prime }))
                try record(context, "removedFavoritePrime", prime.intValue ?? 0)
                return true
            },
        ])

    /// Deterministic Miller–Rabin: the first twelve primes as bases decide every 64-bit integer,
    /// in a few hundred multiplications, where trial division would take billions for a large `count`.
    static func isPrime(_ n: Int) -> Bool {
        guard n > 1 else { return false }
        let bases: [UInt64] = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37]
        let value = UInt64(n)
        for base in bases where value % base == 0 { return value == base }
        var odd = value - 1
        var twos = 0
        while odd % 2 == 0 {
            odd /= 2
            twos += 1
        }
        /// `a * b mod value`, through the 128-bit product (a, b < value, so it divides without overflow).
        func multiply(_ a: UInt64, _ b: UInt64) -> UInt64 {
            value.dividingFullWidth(a.multipliedFullWidth(by: b)).remainder
        }
        func power(_ base: UInt64, _ exponent: UInt64) -> UInt64 {
            var (result, square, rest) = (UInt64(1), base % value, exponent)
            while rest > 0 {
                if rest & 1 == 1 { result = multiply(result, square) }
                square = multiply(square, square)
                rest >>= 1
            }
            return result
        }
        witnesses: for base in bases {
            var x = power(base, odd)
            if x == 1 || x == value - 1 { continue }
            for _ in 0..<max(twos - 1, 0) {
                x = multiply(x, x)
                if x == value - 1 { continue witnesses }
            }
            return false
        }
        return true
    }

    private static func step(_ context: ActionContext, by delta: Int) throws(EngineError) -> JSON {
        let count = (try context.get("count").intValue ?? 0) + delta
        try context.set("count", .int(count))
        return .int(count)
    }

    private static func record(_ context: ActionContext, _ type: String, _ prime: Int) throws(EngineError) {
        var feed = try context.get("activityFeed").arrayValue ?? []
        feed.append(["timestamp": .string(context.now), "type": .string(type), "prime": .int(prime)])
        try context.set("activityFeed", .array(feed))
    }
}

/// The shopping cart of seed 004 and the design card.
public enum Cart: ModelDeclaring {
    public static let modelType = cart(named: "Cart")

    static func cart(named name: String) -> ModelType {
        ModelType(
            name: name, style: .observableObject, stored: [StoredProperty("items", .array(.string))],
            actions: [
                Action("add", parameters: [("item", .string)]) { context throws(EngineError) in
                    var items = try context.get("items").arrayValue ?? []
                    items.append(context.arguments[0])
                    try context.set("items", .array(items))
                    return .int(items.count)
                }
            ])
    }
}

/// Seed 004's `CartModel: ObservableObject` (`@Published var items`, `add(_:)`); items are strings.
public enum CartModel: ModelDeclaring {
    public static let modelType = Cart.cart(named: "CartModel")
}

/// Seed 004's `SessionModel: ObservableObject`, injected with `.environmentObject(session)`. The
/// seed elides its body (`...`): here it holds who is signed in, with `signIn(user)` and `signOut()`.
public enum SessionModel: ModelDeclaring {
    public static let modelType = ModelType(
        name: "SessionModel", style: .observableObject, stored: [StoredProperty("user", .optional(.string))],
        actions: [
            Action("signIn", parameters: [("user", .string)]) { context throws(EngineError) in
                try context.set("user", context.arguments[0])
                return .null
            },
            Action("signOut") { context throws(EngineError) in
                try context.set("user", .null)
                return .null
            },
        ])
}
