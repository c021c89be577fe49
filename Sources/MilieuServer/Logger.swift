import MilieuEngine
#if canImport(Glibc)
import Glibc
#endif

/// One line per event on stderr: time, level, message. stdout is never used, so nothing
/// printed can mix with the protocol, and no value of the graph is ever logged.
public struct Logger: Sendable {
    public enum Level: Int, Sendable, Comparable, CaseIterable {
        case debug, info, warning, error

        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }

        public init?(name: String) {
            guard let level = Level.allCases.first(where: { "\($0)" == name }) else { return nil }
            self = level
        }
    }

    public var level: Level

    public init(level: Level = .info) { self.level = level }

    public func log(_ level: Level, _ message: @autoclosure () -> String) {
        guard level >= self.level else { return }
        let line = "\(WallClock.iso8601(milliseconds: false)) \(level) \(message())\n"
        var bytes = Array(line.utf8)
        // One write(2) per line on fd 2, so lines from one process never interleave.
        _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
    }

    public func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
    public func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    public func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    public func error(_ message: @autoclosure () -> String) { log(.error, message()) }
}
