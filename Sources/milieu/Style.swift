#if canImport(Glibc)
import Glibc
#endif

/// ANSI colours for one output stream: on only when the stream is a terminal, and never
/// with `NO_COLOR` set (https://no-color.org) or on a dumb terminal.
struct Style: Sendable {
    let enabled: Bool

    static let plain = Style(enabled: false)

    /// The style for the stream `fd` under `environment`.
    static func forStream(_ fd: Int32, environment: [String: String]) -> Style {
        let noColor = !(environment["NO_COLOR"] ?? "").isEmpty
        return Style(enabled: isatty(fd) == 1 && !noColor && environment["TERM"] != "dumb")
    }

    func bold(_ text: String) -> String { paint(text, "1") }
    func dim(_ text: String) -> String { paint(text, "2") }
    func red(_ text: String) -> String { paint(text, "31") }
    func boldRed(_ text: String) -> String { paint(text, "1;31") }
    func green(_ text: String) -> String { paint(text, "32") }
    func yellow(_ text: String) -> String { paint(text, "33") }
    func blue(_ text: String) -> String { paint(text, "34") }
    func magenta(_ text: String) -> String { paint(text, "35") }
    func cyan(_ text: String) -> String { paint(text, "36") }

    private func paint(_ text: String, _ code: String) -> String {
        enabled && !text.isEmpty ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}
