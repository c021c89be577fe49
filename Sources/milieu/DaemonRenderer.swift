import MilieuProtocol

/// The text of `info` and `clients`: which daemon this is, how loaded, and who is connected.
///
///     milieud 0.1.0, protocol 1, pid 4242, up 1m 13s
///       instance  5f0c2a9e41d7b3c8
///       socket    /run/user/1000/milieu/milieu.sock
///       state     /home/kim/.local/state/milieu, fsync everysec
///       version   v12, history from v1
///       serving   2 connections, 1 watch, 9 views, 3 objects
///       memory    9.0 MiB resident, 0 B unsent, 0 B of unfinished lines
///       restored  2 types, 1 retained view, 5 values at start; dropped 1:
///                 view /App/Extra: UnknownPath: no view at /App/Gone
struct DaemonRenderer {
    let style: Style

    func info(_ info: DaemonInfoRequest.Result) -> String {
        let state =
            info.dataDirectory.map { "\($0), fsync \(info.durability)" } ?? "nothing kept (\(info.durability)): it starts afresh"
        var rows = [
            ("instance", info.instance),
            ("socket", info.socket ?? "inherited from systemd"),
            ("state", state),
            ("version", "v\(info.version), history from v\(info.oldestVersion)"),
            (
                "serving",
                [
                    Self.count(info.connections, "connection"), Self.count(info.watches, "watch", plural: "watches"),
                    Self.count(info.views, "view"), Self.count(info.objects, "object"),
                ].joined(separator: ", ")
            ),
            (
                "memory",
                "\(Self.bytes(info.residentBytes)) resident, \(Self.bytes(info.bufferedOutputBytes)) unsent, "
                    + "\(Self.bytes(info.bufferedInputBytes)) of unfinished lines"
            ),
        ]
        if let restore = info.restore { rows.append(("restored", Self.restored(restore))) }
        let width = rows.map(\.0.count).max() ?? 0
        let heading =
            "\(style.bold("\(info.serverName) \(info.serverVersion)")), protocol \(info.protocolVersion), pid \(info.pid), "
            + "up \(Self.duration(info.uptimeSeconds))"
        let indent = "\n" + String(repeating: " ", count: width + 4)
        let lines = rows.map { "  \($0.0.padding(to: width))  " + $0.1.split(separator: "\n").joined(separator: indent) }
        return ([heading] + lines).joined(separator: "\n")
    }

    /// The `restored` row: what came back at start, then each drop on a line of its own.
    private static func restored(_ report: RestoreReport) -> String {
        let kept =
            [count(report.types, "type"), count(report.views, "retained view"), count(report.values, "value")].joined(separator: ", ")
        guard report.droppedCount > 0 else { return kept + " at start; nothing dropped" }
        var lines = ["\(kept) at start; dropped \(report.droppedCount):"] + report.dropped.map(dropped)
        if report.droppedCount > report.dropped.count {
            lines.append("… and \(report.droppedCount - report.dropped.count) more (the log names each)")
        }
        return lines.joined(separator: "\n")
    }

    /// One drop of a restore: what, and why.
    static func dropped(_ drop: RestoreReport.Dropped) -> String {
        let kind =
            switch drop.kind {
            case .type: "type"
            case .environmentKey: "environment key"
            case .view: "view"
            case .value: "value"
            }
        return "\(kind) \(drop.name): \(drop.reason)"
    }

    /// One row per connection; `*` marks this one.
    func clients(_ clients: [DaemonClient]) -> String {
        let header = ["conn", "pid", "uid", "name", "watches", "views", "unsent", "connected"]
        let rows = clients.map { client in
            [
                "\(client.connection)", "\(client.pid)", "\(client.uid)", client.name ?? "-", "\(client.watches)", "\(client.views)",
                Self.bytes(client.bufferedOutputBytes), Self.duration(client.connectedSeconds),
            ]
        }
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            zip(cells, widths).map { $0.padding(to: $1) }.joined(separator: "  ").trimmingTrailingSpaces
        }
        var lines = ["  " + style.dim(line(header))]
        for (client, row) in zip(clients, rows) {
            lines.append((client.isCaller ? style.bold("* ") + style.bold(line(row)) : "  " + line(row)))
        }
        lines.append(style.dim("\(Self.count(clients.count, "connection")); * is this one"))
        return lines.joined(separator: "\n")
    }

    static func count(_ n: Int, _ noun: String, plural: String? = nil) -> String {
        "\(n) \(n == 1 ? noun : plural ?? noun + "s")"
    }

    /// `512 B`, `4.0 KiB`, `9.1 MiB`, `1.2 GiB`.
    static func bytes(_ n: Int) -> String {
        var value = Double(n)
        var unit = "B"
        for larger in ["KiB", "MiB", "GiB"] where value >= 1024 {
            value /= 1024
            unit = larger
        }
        return unit == "B" ? "\(n) B" : "\((value * 10).rounded() / 10) \(unit)"
    }

    /// `45s`, `1m 13s`, `2h 5m`, `3d 4h`.
    static func duration(_ seconds: Int) -> String {
        switch seconds {
        case ..<60: "\(seconds)s"
        case ..<3600: "\(seconds / 60)m \(seconds % 60)s"
        case ..<86400: "\(seconds / 3600)h \(seconds % 3600 / 60)m"
        default: "\(seconds / 86400)d \(seconds % 86400 / 3600)h"
        }
    }
}

extension String {
    fileprivate func padding(to width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }

    fileprivate var trimmingTrailingSpaces: String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
