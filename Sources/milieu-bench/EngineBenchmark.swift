import MilieuEngine
import MilieuJSON

/// Invalidation and mounting cost of the engine alone, without sockets or JSON text:
/// a write that one view among N reads should cost the same for every N.
enum EngineBenchmark {
    struct Row {
        let views: Int
        let style: ObservationStyle
        let mountSeconds: Double
        let writeMicros: Double
        let broadcastSeconds: Double
    }

    static func run(sizes: [Int], writes: Int) throws -> [Row] {
        var rows: [Row] = []
        for style in ObservationStyle.allCases {
            for size in sizes { rows.append(try measure(views: size, style: style, writes: writes)) }
        }
        return rows
    }

    private static func measure(views: Int, style: ObservationStyle, writes: Int) throws -> Row {
        let graph = try Graph()
        try graph.register(ModelType(name: "Probe", style: style, stored: [StoredProperty("value", .int)]))
        let clock = ContinuousClock()
        // N-1 rows that each show their own state and the theme's accent colour; one reader of the probe.
        // Declarations are built first: their JSON would arrive parsed from the wire.
        let rows: [JSON] = (0..<(views - 1)).map { i in
            [
                "parent": "/App/Rows", "name": "Row", "id": .int(i), "state": ["n": .int(i)],
                "environment": ["theme": ["type": "Theme"]], "body": ["{n} {theme.accentColor}"],
            ]
        }
        let mount = try clock.measure {
            _ = try graph.apply([.mount(declaration: ["parent": "/App", "name": "Rows", "retain": true], owner: nil)])
            for row in rows { _ = try graph.apply([.mount(declaration: row, owner: nil)]) }
            _ = try graph.apply([
                .mount(
                    declaration: [
                        // Each style owned by its own wrapper (rule 16): @State or @StateObject.
                        "parent": "/App", "name": "Reader",
                        style == .observable ? "state" : "stateObjects": style == .observable
                            ? ["probe": ["$new": ["type": "Probe"]]] : ["probe": ["type": "Probe"]],
                        "body": ["{probe.value}"],
                    ], owner: nil)
            ])
        }
        let write = try clock.measure {
            for i in 0..<writes {
                let (_, commit) = try graph.apply([.set(path: "/App/Reader.probe.value", value: .int(i + 1), ifVersion: nil)])
                precondition(commit.changes.count == 2, "one property change and one view update")
            }
        }
        let broadcast = try clock.measure {
            let (_, commit) = try graph.apply([.set(path: "theme.accentColor", value: "red", ifVersion: nil)])
            precondition(commit.changes.count == views, "every row re-evaluated")
        }
        return Row(
            views: views, style: style, mountSeconds: mount.seconds, writeMicros: write.seconds * 1e6 / Double(writes),
            broadcastSeconds: broadcast.seconds)
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
