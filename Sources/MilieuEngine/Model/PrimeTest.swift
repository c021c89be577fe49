/// The expression language's `isPrime` (seed 003's `isCountPrime`): a deterministic Miller–Rabin
/// test, exact for every 64-bit integer and a fixed amount of work whatever the number, so that
/// it costs one step of an evaluation's budget.
enum PrimeTest {
    /// The first twelve primes as witnesses decide primality for every n below 3.3 × 10²⁴.
    private static let witnesses: [UInt64] = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37]

    static func isPrime(_ number: Int) -> Bool {
        guard number > 1 else { return false }
        let n = UInt64(number)
        for p in witnesses where n % p == 0 { return n == p }
        // n - 1 = d · 2^s with d odd; n is odd and above 37 here, so s is at least 1.
        let s = (n - 1).trailingZeroBitCount
        let d = (n - 1) >> s
        witnessLoop: for a in witnesses {
            var x = power(a, d, modulo: n)
            if x == 1 || x == n - 1 { continue }
            for _ in 1..<s {
                x = product(x, x, modulo: n)
                if x == n - 1 { continue witnessLoop }
            }
            return false
        }
        return true
    }

    /// a · b mod m without overflow, through the full 128-bit product.
    private static func product(_ a: UInt64, _ b: UInt64, modulo m: UInt64) -> UInt64 {
        let (high, low) = a.multipliedFullWidth(by: b)
        return m.dividingFullWidth((high, low)).remainder
    }

    private static func power(_ base: UInt64, _ exponent: UInt64, modulo m: UInt64) -> UInt64 {
        var result: UInt64 = 1
        var base = base % m
        var exponent = exponent
        while exponent > 0 {
            if exponent & 1 == 1 { result = product(result, base, modulo: m) }
            base = product(base, base, modulo: m)
            exponent >>= 1
        }
        return result
    }
}
