/// Integers in decimal, written straight into memory: JSON output and the engine's view paths
/// (`Row[42]`) both spell many of them, and making a `String` of each first costs more than the digits.
public enum DecimalText {
    /// How many bytes `value` takes in decimal, with its sign.
    @inlinable public static func count(_ value: Int) -> Int {
        var count = value < 0 ? 2 : 1
        var rest = value.magnitude
        while rest >= 10 {
            rest /= 10
            count &+= 1
        }
        return count
    }

    /// Writes `value` in decimal at `start`, which has room for `count(value)` bytes (20 always
    /// suffice); returns how many it wrote.
    @discardableResult
    @inlinable public static func write(_ value: Int, to start: UnsafeMutablePointer<UInt8>) -> Int {
        let written = count(value)
        if value < 0 { start[0] = UInt8(ascii: "-") }
        var rest = value.magnitude
        var index = written
        repeat {
            index &-= 1
            start[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
        } while rest != 0
        return written
    }
}
