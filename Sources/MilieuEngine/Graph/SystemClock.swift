import Glibc

extension Graph {
    /// The wall clock as ISO 8601 with milliseconds, for `Session.startedAt` and activity timestamps.
    public static let systemClock: @Sendable () -> String = { WallClock.iso8601(milliseconds: true) }
}

/// The wall clock in UTC as ISO 8601 (`2026-12-06T01:10:15Z`, or `…15.123Z`), from
/// `clock_gettime` and `gmtime_r`: no Foundation in the daemon, whose pages would be most of
/// its idle memory.
public enum WallClock {
    public static func iso8601(milliseconds: Bool) -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func digits(_ value: Int32, _ count: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, count - text.count)) + text
        }
        var text =
            digits(parts.tm_year + 1900, 4) + "-" + digits(parts.tm_mon + 1, 2) + "-" + digits(parts.tm_mday, 2) + "T"
            + digits(parts.tm_hour, 2) + ":" + digits(parts.tm_min, 2) + ":" + digits(parts.tm_sec, 2)
        if milliseconds { text += "." + digits(Int32(now.tv_nsec / 1_000_000), 3) }
        return text + "Z"
    }
}
