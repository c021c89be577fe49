import Glibc

/// Latencies in nanoseconds, kept in log-linear buckets (under 1% error) so that
/// recording costs a few instructions and memory stays fixed however long a run is.
struct LatencyHistogram {
    /// Values below 2^subBucketBits are exact; above, each power of two is split into
    /// 2^subBucketBits buckets.
    private static let subBucketBits = 7
    private static let subBuckets = 1 << subBucketBits
    private var counts = [UInt64](repeating: 0, count: (64 - subBucketBits + 1) * subBuckets)
    private(set) var count: UInt64 = 0

    mutating func record(_ nanoseconds: UInt64) {
        counts[Self.bucket(of: nanoseconds)] &+= 1
        count &+= 1
    }

    /// The value at `fraction` (0.5 for the median) of the recorded values, in
    /// nanoseconds: the middle of its bucket. Zero when nothing was recorded.
    func percentile(_ fraction: Double) -> Double {
        guard count > 0 else { return 0 }
        let rank = max(1, UInt64((Double(count) * fraction).rounded(.up)))
        var seen: UInt64 = 0
        for (index, bucketCount) in counts.enumerated() where bucketCount > 0 {
            seen += bucketCount
            if seen >= rank { return Self.midpoint(of: index) }
        }
        return Self.midpoint(of: counts.count - 1)
    }

    private static func bucket(of value: UInt64) -> Int {
        guard value >= UInt64(subBuckets) else { return Int(value) }
        let magnitude = 63 - value.leadingZeroBitCount  // ≥ subBucketBits
        let shift = magnitude - subBucketBits
        let mantissa = Int(value >> UInt64(shift)) - subBuckets  // 0..<subBuckets
        return (shift + 1) * subBuckets + mantissa
    }

    private static func midpoint(of index: Int) -> Double {
        guard index >= subBuckets else { return Double(index) }
        let shift = index / subBuckets - 1
        let low = Double((index % subBuckets) + subBuckets) * Double(UInt64(1) << UInt64(shift))
        return low + Double(UInt64(1) << UInt64(shift)) / 2
    }
}

/// The monotonic clock, in nanoseconds.
enum MonotonicClock {
    @inline(__always)
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }
}
