/// A double's text as ECMAScript's `Number.prototype.toString` writes it (SPEC §1.4): the
/// shortest digits that read back as the same double, in exponent form only when the decimal
/// exponent is below -6 or at least 21 (`1e+21`, `1.5e-7`, `0.00001`); and, as Milieu keeps
/// doubles and integers apart, an integral value with `.0` (`10000000000000000.0`).
enum ECMAScriptNumber {
    /// The text of the finite, nonzero double that Swift's `description` wrote as `description`
    /// (`-1.5e-07`, `12345.678`, `1e+16`): the same digits, laid out again.
    static func text(fromSwiftDescription description: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var bytes = description[...]
        var text: [UInt8] = []
        if bytes.first == UInt8(ascii: "-") {
            text.append(UInt8(ascii: "-"))
            bytes = bytes.dropFirst()
        }
        // The mantissa's digits, and where its point falls among them once the exponent moves it.
        var digits: [UInt8] = []
        var point: Int?
        var exponent = 0
        var index = bytes.startIndex
        while index < bytes.endIndex, bytes[index] != UInt8(ascii: "e") {
            if bytes[index] == UInt8(ascii: ".") { point = digits.count } else { digits.append(bytes[index]) }
            index += 1
        }
        if index < bytes.endIndex, let parsed = Int(String(decoding: bytes[(index + 1)...], as: UTF8.self)) { exponent = parsed }
        var decimal = (point ?? digits.count) + exponent
        while digits.first == UInt8(ascii: "0") {
            digits.removeFirst()
            decimal -= 1
        }
        while digits.last == UInt8(ascii: "0") { digits.removeLast() }
        let count = digits.count
        if count <= decimal && decimal <= 21 {
            text += digits
            text += repeatElement(UInt8(ascii: "0"), count: decimal - count)
            text += Array(".0".utf8)
        } else if 0 < decimal && decimal <= 21 {
            text += digits[..<decimal]
            text.append(UInt8(ascii: "."))
            text += digits[decimal...]
        } else if -6 < decimal && decimal <= 0 {
            text += Array("0.".utf8)
            text += repeatElement(UInt8(ascii: "0"), count: -decimal)
            text += digits
        } else {
            text.append(digits[0])
            if count > 1 {
                text.append(UInt8(ascii: "."))
                text += digits[1...]
            }
            text += Array((decimal - 1 < 0 ? "e-" : "e+").utf8)
            text += Array(String((decimal - 1).magnitude).utf8)
        }
        return text
    }
}
