import MilieuJSON
import MilieuTestSupport

/// The error parsing `bytes` throws, or nil if it parses.
func parseError(_ bytes: [UInt8], limits: JSONLimits = .default) -> JSONParseError? {
    do {
        _ = try JSON(parsing: bytes, limits: limits)
        return nil
    } catch {
        return error
    }
}

func parseError(_ text: String, limits: JSONLimits = .default) -> JSONParseError? {
    parseError(Array(text.utf8), limits: limits)
}

/// Random JSON values of varied shape: every case, nested containers, awkward strings and numbers.
struct JSONValueGenerator {
    var rng: SeededGenerator

    init(seed: UInt64) { rng = SeededGenerator(seed: seed) }

    /// Pieces strings are made of: plain ASCII, characters that must be escaped, `/`, non-ASCII
    /// from every UTF-8 length, astral characters (surrogate pairs when escaped), and the odd ones out.
    static let stringPieces: [String] = [
        "a", "b", "z", "A", "Q", "0", "9", " ", "key", "value", "jsonrpc", "graph/set", "login.email",
        "\"", "\\", "/", "\n", "\r", "\t", "\u{08}", "\u{0C}", "\u{00}", "\u{01}", "\u{1F}", "\u{7F}",
        "é", "ß", "ñ", "Ω", "€", "中", "文", "ー", "😀", "🎉", "𝄞", "\u{2028}", "\u{2029}", "\u{FEFF}",
        "\u{FFFD}", "\u{FFFF}", "\u{10FFFF}", "<", ">", "&", "'", "{", "}", "[", "]", ":", ",",
    ]

    mutating func string(maxPieces: Int = 8) -> String {
        let count = Int.random(in: 0...maxPieces, using: &rng)
        var result = ""
        for _ in 0..<count { result += Self.stringPieces.randomElement(using: &rng) ?? "" }
        return result
    }

    mutating func int() -> Int {
        switch Int.random(in: 0..<6, using: &rng) {
        case 0: Int.random(in: -10...10, using: &rng)
        case 1: Int.random(in: -100_000...100_000, using: &rng)
        case 2: [Int.min, Int.max, Int.min + 1, Int.max - 1, 0, -1].randomElement(using: &rng) ?? 0
        case 3: Int.random(in: Int(Int32.min)...Int(Int32.max), using: &rng)
        default: Int.random(in: Int.min...Int.max, using: &rng)
        }
    }

    mutating func double() -> Double {
        switch Int.random(in: 0..<7, using: &rng) {
        case 0:
            // Any finite bit pattern: subnormals, huge and tiny exponents, full 17-digit mantissas.
            while true {
                let candidate = Double(bitPattern: rng.next())
                if candidate.isFinite { return candidate }
            }
        case 1: return Double.random(in: -1e6...1e6, using: &rng)
        case 2: return Double(Int.random(in: -1_000_000...1_000_000, using: &rng))  // integral: 3.0
        case 3: return Double(Int.random(in: -100_000...100_000, using: &rng)) / 1000  // short decimals
        case 4:
            return [
                0.0, -0.0, 0.1, 0.5, 1.5, 1e16, 1e15, 1e-7, .leastNonzeroMagnitude, 2.2250738585072014e-308,
                1.7976931348623157e308, -1.7976931348623157e308, 9_007_199_254_740_994, 0.30000000000000004,
                123456789.125, 1e22, 1e23, 1e-300,
            ]
            .randomElement(using: &rng) ?? 0
        case 5: return Double.random(in: -1...1, using: &rng) * pow10(Int.random(in: -300...300, using: &rng))
        default: return Double.random(in: 0..<1, using: &rng)
        }
    }

    private func pow10(_ exponent: Int) -> Double {
        var result = 1.0
        for _ in 0..<abs(exponent) { result *= 10 }
        return exponent < 0 ? 1 / result : result
    }

    mutating func value(depth: Int = 0) -> JSON {
        let kinds = depth >= 5 ? 5 : 7
        switch Int.random(in: 0..<kinds, using: &rng) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return .int(int())
        case 3: return .double(double())
        case 4: return .string(string())
        case 5:
            let count = Int.random(in: 0...6, using: &rng)
            return .array((0..<count).map { _ in value(depth: depth + 1) })
        default:
            let count = Int.random(in: 0...6, using: &rng)
            var object = JSONObject()
            for _ in 0..<count { object[string(maxPieces: 3)] = value(depth: depth + 1) }
            return .object(object)
        }
    }
}
