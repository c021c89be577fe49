/// Integers in decimal, written straight into memory: JSON output and the engine's view paths
/// (`Row[42]`) both spell many of them, and making a `String` of each first costs more than the digits.
public enum DecimalText {
    /// How many bytes `value` takes in decimal, with its sign.
    @inlinable public static func count(_ value: Int) -> Int {
        let magnitude = value.magnitude
        var count = value < 0 ? 2 : 1
        // An Int's magnitude is below 10^19, the last power this reaches, which a UInt holds.
        var power: UInt = 10
        while magnitude >= power {
            count &+= 1
            power &*= 10
        }
        return count
    }

    /// Writes `value` in decimal at `start`, which has room for `count(value)` bytes (20 always
    /// suffice); returns how many it wrote. Two digits a step, from a table: half the divisions
    /// of one at a time, and a version or an id is written with every answer.
    @discardableResult
    @inlinable public static func write(_ value: Int, to start: UnsafeMutablePointer<UInt8>) -> Int {
        let written = count(value)
        if value < 0 { start[0] = UInt8(ascii: "-") }
        var rest = value.magnitude
        var index = written
        let pairs = twoDigits.utf8Start
        while rest >= 100 {
            let pair = Int(truncatingIfNeeded: rest % 100) &* 2
            rest /= 100
            index &-= 2
            start[index] = pairs[pair]
            start[index &+ 1] = pairs[pair &+ 1]
        }
        if rest >= 10 {
            let pair = Int(truncatingIfNeeded: rest) &* 2
            start[index &- 2] = pairs[pair]
            start[index &- 1] = pairs[pair &+ 1]
        } else {
            start[index &- 1] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest)
        }
        return written
    }

    /// "00" to "99", each at twice its value.
    @inlinable static var twoDigits: StaticString {
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"
    }
}
