import MilieuEngine
import MilieuJSON
import MilieuProtocol
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
                registry.add(WatchKey(connection: connection, watch: watch), targets: targets, lifecycle: true, commits: true)
            }
        }
        for watch in 1...1_024 { registry.add(WatchKey(connection: 99, watch: watch), targets: targets, lifecycle: true, commits: true) }
        return registry
    }

    @Test func removingAConnectionsWatchesLooksOnlyAtItsOwn() {
        let registry = crowdedRegistry()
        registry.removeAll(connection: 99)
        #expect(registry.count(connection: 99) == 0)
        #expect(registry.count(connection: 1) == 1_000)
        // Four targets, the lifecycle list and the commit list per watch, a few steps each.
        #expect(registry.removalSteps <= 1_024 * 6 * 4)
    }

    @Test func unwatchingOneWatchLooksOnlyAtIt() {
        let registry = crowdedRegistry()
        registry.remove(WatchKey(connection: 1, watch: 1))
        #expect(!registry.contains(WatchKey(connection: 1, watch: 1)))
        #expect(registry.contains(WatchKey(connection: 1, watch: 2)))
        #expect(registry.removalSteps <= 6 * 4)
    }

    /// Three watchers of `Counter#1.count` on three connections, told of a write of `value`.
    private func fanOut(of value: JSON) -> FanOut {
        let registry = WatchRegistry()
        for connection in 1...3 {
            registry.add(
                WatchKey(connection: connection, watch: 1), targets: [(.property(object: "Counter#1", property: "count"), "counter.count")],
                lifecycle: false, commits: false)
        }
        let change = Change.property(object: "Counter#1", type: "Counter", property: "count", value: value)
        return registry.notifications(for: Commit(version: Version(9), changes: [change]), cause: nil)
    }

    @Test func aLargeChangeIsSharedByEveryWatcherAndASmallOneCopied() {
        let large = fanOut(of: .string(String(repeating: "x", count: FanOut.sharedMinimum)))
        let shared = large.parts.compactMap { if case .shared(let bytes) = $0.part { bytes } else { nil } }
        #expect(shared.count == 3)
        #expect(shared.allSatisfy { $0 === shared[0] })
        let small = fanOut(of: 42)
        #expect(small.parts.allSatisfy { if case .text = $0.part { true } else { false } })
        // Either way each watcher's line is the notification's own.
        for (fan, value) in [(large, JSON.string(String(repeating: "x", count: FanOut.sharedMinimum))), (small, 42)] {
            var line = JSONWriter()
            ServerNotification.didChange(WatchStamp(watch: 1, version: 9), changes: [ValueChange(path: "counter.count", value: value)])
                .write(into: &line)
            for connection in 1...3 { #expect(fan.bytes(for: connection) == line.bytes) }
        }
    }
}
