import MilieuProtocol

/// What milieu says about its connection: no daemon, lost, back again.
enum ConnectionMessages {
    static func noDaemon(socketPath: String, interactive: Bool, style: Style) -> String {
        var lines = [
            style.boldRed("milieu: no milieud is answering at \(socketPath)"),
            "  start one:  milieud --socket \(socketPath) &",
            "         or:  milieu --spawn   (starts milieud in the background, then connects)",
            "  another daemon: milieu --socket PATH, or set MILIEU_SOCKET",
        ]
        if interactive { lines.append(style.dim("milieu will connect as soon as a daemon answers there.")) }
        return lines.joined(separator: "\n")
    }

    static func lost(socketPath: String, style: Style) -> String {
        style.yellow("lost milieud at \(socketPath); reconnecting when it is back")
    }

    static func back(_ resumption: Link.Resumption?, restore: RestoreReport?, socketPath: String, style: Style) -> String {
        var lines = [style.green("connected to milieud at \(socketPath)" + (resumption.map { ", at version \($0.version)" } ?? ""))]
        if let restore { lines.append(restored(restore, style: style)) }
        guard let resumption else { return lines.joined(separator: "\n") }
        if resumption.restarted {
            lines.append(
                style.yellow(
                    "milieud restarted: its versions began again, so watches start from now; what it does not keep across restarts is gone")
            )
        }
        for (record, since) in resumption.resumed {
            if let since {
                lines.append("w\(record.number) resumed from version \(since): what changed meanwhile follows")
            } else {
                lines.append("w\(record.number) watching \(record.targetsText) again")
            }
        }
        for (record, oldest) in resumption.compacted {
            lines.append(
                style.yellow(
                    "w\(record.number): history before version \(oldest) was compacted, so changes in between are not shown; watching again from now"
                ))
        }
        for (record, error) in resumption.dropped {
            lines.append(style.red("w\(record.number) (\(record.targetsText)) dropped: \(error.message)"))
        }
        return lines.joined(separator: "\n")
    }

    /// At most this many of a restore's drops are shown as the connection comes up; `info` lists more.
    static let shownDrops = 5

    /// What the daemon could not bring back when it started (it kept them, and they no longer fit).
    static func restored(_ report: RestoreReport, style: Style) -> String {
        let kept = [
            DaemonRenderer.count(report.types, "type"), DaemonRenderer.count(report.views, "retained view"),
            DaemonRenderer.count(report.values, "value"),
        ]
        var lines = [
            style.yellow(
                "milieud could not restore \(report.droppedCount) of what it keeps when it started (it restored "
                    + kept.joined(separator: ", ") + "); they stay kept, for a start whose scene they fit:")
        ]
        for drop in report.dropped.prefix(shownDrops) { lines.append("  " + DaemonRenderer.dropped(drop)) }
        if report.droppedCount > shownDrops { lines.append(style.dim("  … and \(report.droppedCount - shownDrops) more: info lists them")) }
        return lines.joined(separator: "\n")
    }
}
