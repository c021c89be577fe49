/// Bytes that need no attention inside a JSON string — none is a quote, a backslash, a control
/// character or outside ASCII — found eight at a time. The reader skips them before it looks at
/// what stops them; the hot request scanner (`HotRequest`) takes keys and paths made only of them.
package enum PlainASCII {
    /// The index of the first byte of `base[start..<end]` that is a quote, a backslash, a control
    /// character or outside ASCII; `end` if there is none. Inlinable: it runs for every string
    /// of every request.
    @inlinable @inline(__always)
    package static func end(of base: UnsafePointer<UInt8>, from start: Int, to end: Int) -> Int {
        var index = start
        #if _endian(little)
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        while index &+ 8 <= end {
            let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
            let quotes = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
            let backslashes = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
            let flagged =
                (((quotes &- ones) & ~quotes) | ((backslashes &- ones) & ~backslashes) | ((word &- ones &* 0x20) & ~word) | word)
                & highs
            // Borrows only spread towards later bytes, so the first flagged byte is exact.
            if flagged != 0 { return index &+ flagged.trailingZeroBitCount &>> 3 }
            index &+= 8
        }
        #endif
        while index < end {
            let byte = base[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 || byte >= 0x80 { return index }
            index &+= 1
        }
        return end
    }
}
