@preconcurrency import CReadline
import Foundation

/// The history kept across runs: `$MILIEU_HISTFILE`, else `$XDG_STATE_HOME/milieu/history`
/// (`~/.local/state/milieu/history` when that is unset). `/dev/null` or an empty
/// `MILIEU_HISTFILE` keeps the history of this run only.
struct HistoryFile {
    /// How many lines are kept.
    static let limit: Int32 = 1000

    /// Nil when nothing is saved.
    let path: String?

    /// The history file `environment` asks for.
    static func resolve(environment: [String: String]) -> HistoryFile {
        if let explicit = environment["MILIEU_HISTFILE"] {
            return HistoryFile(path: explicit.isEmpty || explicit == "/dev/null" ? nil : explicit)
        }
        let state: String
        if let xdg = environment["XDG_STATE_HOME"], xdg.hasPrefix("/") {
            state = xdg
        } else if let home = environment["HOME"], !home.isEmpty {
            state = home + "/.local/state"
        } else {
            return HistoryFile(path: nil)
        }
        return HistoryFile(path: state + "/milieu/history")
    }

    /// Reads the file into readline's history, creating it (and its directory) if missing.
    func load() {
        stifle_history(Self.limit)
        guard let path else { return }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try? FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        if FileManager.default.fileExists(atPath: path) {
            read_history(path)
        } else {
            write_history(path)
        }
    }

    /// Adds a line, unless it is blank or repeats the one before; saved at once, so that
    /// a crash loses nothing.
    func add(_ line: String) {
        guard !line.allSatisfy(\.isWhitespace) else { return }
        if history_length > 0, let last = history_get(history_base + history_length - 1)?.pointee.line,
            String(cString: last) == line
        {
            return
        }
        add_history(line)
        if let path { append_history(1, path) }
    }

    /// Keeps the file to the last `limit` lines.
    func trim() {
        if let path { history_truncate_file(path, Self.limit) }
    }
}
