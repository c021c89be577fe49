import MilieuClient
import MilieuJSON

#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Where milieu's output goes. Results go to standard output and errors to standard
/// error; with `--json`, each result, error and notification is one JSON object on one
/// line of standard output: `{"result": ...}`, `{"error": ...}`, `{"method": ..., "params": ...}`.
/// Messages about the connection always go to standard error as text.
struct Console {
    let json: Bool
    let style: Style
    let errorStyle: Style

    func show(_ outcome: Outcome) {
        switch outcome {
        case .success(let text, let result):
            json ? write(JSON.object(["result": result]).jsonText, to: stdout) : write(text, to: stdout)
        case .failure(let text, let error):
            json ? write(JSON.object(["error": error]).jsonText, to: stdout) : write(text, to: stderr)
        case .quit:
            break
        }
    }

    func show(_ notifications: [ClientNotification], watches: WatchBook) {
        let renderer = NotificationRenderer(style: style, watches: watches)
        for notification in notifications {
            if json {
                // A console watch's events count only for their `_printChanges` lines.
                if watches.record(daemonID: notification.watch)?.console == true, notification.params["printChanges"] == nil {
                    continue
                }
                write(JSON.object(["method": .string(notification.method), "params": .object(notification.params)]).jsonText, to: stdout)
            } else if let text = renderer.render(notification) {
                write(text, to: stdout)
            }
        }
    }

    /// A message about the connection: lost, back, resumed.
    func status(_ text: String) { write(text, to: stderr) }

    private func write(_ text: String, to stream: UnsafeMutablePointer<FILE>) {
        if stream != stdout { fflush(stdout) }
        fputs(text + "\n", stream)
        fflush(stream)
    }
}
