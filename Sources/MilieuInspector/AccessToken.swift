/// The secret in the page's address that every request must carry (`?token=…`), as Jupyter's
/// token does: 24 random bytes from the system's secure generator, in hex.
struct AccessToken: Sendable {
    let text: String

    init() {
        var generator = SystemRandomNumberGenerator()
        text = (0..<24).map { _ in
            let byte = UInt8.random(in: .min ... .max, using: &generator)
            return String(byte >> 4, radix: 16) + String(byte & 15, radix: 16)
        }.joined()
    }

    init(text: String) { self.text = text }

    /// Whether `candidate` is the token, compared in constant time for its length: every byte
    /// is looked at whatever the first difference, so timing tells nothing but the length.
    func matches(_ candidate: String?) -> Bool {
        guard let candidate else { return false }
        let expected = Array(text.utf8)
        let given = Array(candidate.utf8)
        guard given.count == expected.count else { return false }
        var difference: UInt8 = 0
        for index in expected.indices { difference |= expected[index] ^ given[index] }
        return difference == 0
    }
}
