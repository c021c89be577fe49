import MilieuEngine
import MilieuJSON

/// What closing a connection costs the engine (the loop stalls for that long): the connection
/// mounted N rows, another connection N more, and the close must cost what it removes.
enum TeardownBenchmark {
    struct Row {
        let views: Int
        let closeSeconds: Double
    }

    static func run(sizes: [Int]) throws -> [Row] { try sizes.map(measure) }

    private static func measure(views: Int) throws -> Row {
        let graph = try Graph()
        // Each row shows its own @State and the theme: what closing must unindex.
        func row(_ name: String, _ i: Int) -> JSON {
            [
                "parent": "/App", "name": .string(name), "id": .int(i), "state": ["n": .int(i)],
                "environment": ["theme": ["type": "Theme"]], "body": ["{n} {theme.accentColor}"],
            ]
        }
        for i in 0..<views { _ = try graph.apply([.mount(declaration: row("Other", i), owner: ConnectionID(2))]) }
        for i in 0..<views { _ = try graph.apply([.mount(declaration: row("Row", i), owner: ConnectionID(1))]) }
        var commit: Commit?
        let close = ContinuousClock().measure { commit = graph.connectionClosed(ConnectionID(1)) }
        precondition(commit?.changes.count == views, "every row of the closed connection unmounted")
        return Row(views: views, closeSeconds: close.seconds)
    }
}
