/// A moment on the loop's monotonic clock (`TimerQueue.now()`), for the ages a server checks
/// against its limits. Not a `ContinuousClock.Instant`: that type's layout is the standard
/// library's to change (it is not frozen), so each write of an optional one went through its
/// value witnesses, some 50 instructions, and a session writes two every round trip (callgrind).
public struct Moment: Sendable {
    private let nanoseconds: UInt64

    /// Now.
    public static var now: Moment { Moment(nanoseconds: TimerQueue.now()) }

    /// The time from this moment to `later`; zero if `later` is not later.
    public func duration(to later: Moment) -> Duration {
        later.nanoseconds > nanoseconds ? .nanoseconds(Int64(later.nanoseconds - nanoseconds)) : .zero
    }
}
