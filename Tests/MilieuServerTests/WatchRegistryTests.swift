import MilieuEngine
import Testing

@testable import MilieuServer

/// Taking a connection's watches out costs what that connection registered, however many
/// other watches share the same objects, views and lifecycle list (issue #15 item 3).
@Suite struct WatchRegistryTests {
    /// 40,000 watches of other connections on the same targets as the closing one's 1,024.
    private func crowdedRegistry() -> WatchRegistry {
        let registry = WatchRegistry()
        let targets: [(target: WatchTarget, spelled: String)] = [
            (.object("Counter#1"), "counter"), (.property(object: "Counter#1", property: "count"), "counter.count"),
            (.state(view: "/App", variable: "n"), "/App.n"), (.view("/App"), "/App"),
        ]
        for connection in 1...40 {
            for watch in 1...1_000 {
                registry.add(WatchKey(connection: connection, watch: watch), targets: targets, lifecycle: true)
            }
        }
        for watch in 1...1_024 { registry.add(WatchKey(connection: 99, watch: watch), targets: targets, lifecycle: true) }
        return registry
    }

    @Test func removingAConnectionsWatchesLooksOnlyAtItsOwn() {
        let registry = crowdedRegistry()
        registry.removeAll(connection: 99)
        #expect(registry.count(connection: 99) == 0)
        #expect(registry.count(connection: 1) == 1_000)
        // Four targets and the lifecycle list per watch, a few steps each.
        #expect(registry.removalSteps <= 1_024 * 5 * 4)
    }

    @Test func unwatchingOneWatchLooksOnlyAtIt() {
        let registry = crowdedRegistry()
        registry.remove(WatchKey(connection: 1, watch: 1))
        #expect(!registry.contains(WatchKey(connection: 1, watch: 1)))
        #expect(registry.contains(WatchKey(connection: 1, watch: 2)))
        #expect(registry.removalSteps <= 5 * 4)
    }
}
