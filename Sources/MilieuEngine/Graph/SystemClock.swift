import FoundationEssentials

extension Graph {
    /// The wall clock as ISO 8601 with milliseconds, for `Session.startedAt` and activity timestamps.
    public static let systemClock: @Sendable () -> String = {
        Date.now.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }
}
