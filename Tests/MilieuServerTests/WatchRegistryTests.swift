import MilieuEngine
import MilieuJSON
import MilieuProtocol
import MilieuTestSupport
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

    /// Watches of one property spelled differently, and a watch of its whole object, told of one
    /// write: each line reports the change under the path its own watch spelled, however the
    /// spellings alternate from one watcher to the next.
    @Test func eachWatcherIsToldUnderThePathItSpelled() {
        let registry = WatchRegistry()
        let count = WatchTarget.property(object: "Counter#1", property: "count")
        let watches: [(target: WatchTarget, spelled: String, told: String)] = [
            (count, "counter.count", "counter.count"), (count, "/App.counter.count", "/App.counter.count"),
            (.object("Counter#1"), "counter", "counter.count"), (count, "counter.count", "counter.count"),
            (count, "/App.counter.count", "/App.counter.count"),
            // A property watch spelled as the object watch after it is: the object's watch still
            // reports under its own path with the property after it.
            (count, "counter", "counter"), (.object("Counter#1"), "counter", "counter.count"),
        ]
        for (connection, watch) in watches.enumerated() {
            registry.add(
                WatchKey(connection: connection + 1, watch: 1), targets: [(watch.target, watch.spelled)], lifecycle: false, commits: false)
        }
        let change = Change.property(object: "Counter#1", type: "Counter", property: "count", value: 42)
        let fan = registry.notifications(for: Commit(version: Version(9), changes: [change]), cause: nil)
        for (connection, watch) in watches.enumerated() {
            var line = JSONWriter()
            ServerNotification.didChange(WatchStamp(watch: 1, version: 9), changes: [ValueChange(path: watch.told, value: 42)])
                .write(into: &line)
            #expect(fan.bytes(for: connection + 1) == line.bytes, "watch \(connection + 1), spelled \(watch.spelled)")
        }
    }

    /// A view id may be any string, so two watches can name one property or `@State` in
    /// canonically equivalent spellings (a precomposed `é`, and an `e` with a combining accent),
    /// which Swift's `==` calls equal. Each watcher is still told its own bytes (SPEC §11.2),
    /// whichever spelling came before it in the fan-out or was registered before it.
    @Test func canonicallyEquivalentSpellingsAreEachToldTheirOwnBytes() {
        let registry = WatchRegistry()
        let composed = "/App/V[\"\u{E9}\"]"
        let decomposed = "/App/V[\"e\u{301}\"]"
        let count = WatchTarget.property(object: "Model#3", property: "count")
        let state = WatchTarget.state(view: composed, variable: "n")
        let watches: [(target: WatchTarget, spelled: String)] = [
            (count, composed + ".model.count"), (count, decomposed + ".model.count"), (count, composed + ".model.count"),
            (.object("Model#3"), decomposed + ".model"), (state, composed + ".n"), (state, decomposed + ".n"), (state, composed + ".n"),
        ]
        for (connection, watch) in watches.enumerated() {
            registry.add(
                WatchKey(connection: connection + 1, watch: 1), targets: [(watch.target, watch.spelled)], lifecycle: false, commits: false)
        }
        let changes = [
            Change.property(object: "Model#3", type: "Model", property: "count", value: 42),
            Change.state(view: composed, variable: "n", value: 7),
        ]
        for change in changes {
            let fan = registry.notifications(for: Commit(version: Version(9), changes: [change]), cause: nil)
            for (connection, watch) in watches.enumerated() {
                let told: String
                switch (change, watch.target) {
                case (.property, .object): told = watch.spelled + ".count"
                case (.property, .property), (.state, .state): told = watch.spelled
                default: continue
                }
                let value: JSON = if case .state = change { 7 } else { 42 }
                var line = JSONWriter()
                ServerNotification.didChange(WatchStamp(watch: 1, version: 9), changes: [ValueChange(path: told, value: value)])
                    .write(into: &line)
                #expect(fan.bytes(for: connection + 1) == line.bytes, "watch \(connection + 1), spelled \(Array(watch.spelled.utf8))")
            }
        }
    }

    /// Each watch's line carries its own id, and the lines go out in the order of the watches'
    /// keys even once taking a watch out has moved the last one into its place.
    @Test func aWritesWatchersAreToldInKeyOrderEachUnderItsOwnId() {
        let registry = WatchRegistry()
        for connection in 1...4 {
            registry.add(
                WatchKey(connection: connection, watch: 10 + connection),
                targets: [(.property(object: "Counter#1", property: "count"), "counter.count")], lifecycle: false, commits: false)
        }
        registry.add(
            WatchKey(connection: 2, watch: 20), targets: [(.object("Counter#1"), "counter")], lifecycle: false, commits: false)
        registry.remove(WatchKey(connection: 1, watch: 11))
        let change = Change.property(object: "Counter#1", type: "Counter", property: "count", value: 7)
        let fan = registry.notifications(for: Commit(version: Version(3), changes: [change]), cause: nil)
        #expect(fan.parts.map(\.connection) == [2, 3, 4])
        for (connection, watches) in [(2, [12, 20]), (3, [13]), (4, [14])] {
            var lines = JSONWriter()
            for watch in watches {
                ServerNotification.didChange(WatchStamp(watch: watch, version: 3), changes: [ValueChange(path: "counter.count", value: 7)])
                    .write(into: &lines)
            }
            #expect(fan.bytes(for: connection) == lines.bytes)
        }
    }
}

/// A view target need not be mounted, so what a connection's watches spell is bounded in bytes.
@Suite struct WatchTargetBytesTests {
    @Test func watchesPastTheTargetBytesOfAConnectionAreRefusedAndUnwatchingGivesThemBack() throws {
        let embedded = try EmbeddedServer { $0.maxWatchTargetBytes = 100 }
        let client = embedded.connect()
        let waiting = "/App/Waiting[\"" + String(repeating: "a", count: 40) + "\"]"  // 57 bytes
        embedded.receive(EmbeddedServer.request(1, "watch", ["views": [.string(waiting)]]), from: client)
        embedded.receive(EmbeddedServer.request(2, "watch", ["views": [.string(waiting)]]), from: client)
        embedded.receive(EmbeddedServer.request(3, "watch", ["paths": ["login"]]), from: client)
        embedded.endTurn()
        let answers = try client.read()
        #expect(answers[0]["result"]?["notMounted"] == [.string(waiting)])
        #expect(answers[1]["error"]?["data"] == ["limit": "watchTargetBytes", "max": 100, "kind": "LimitExceeded"])
        #expect(answers[2]["result"]?["watch"] == 2, "a small target still fits")
        embedded.receive(EmbeddedServer.request(4, "unwatch", ["watch": 1]), from: client)
        embedded.receive(EmbeddedServer.request(5, "watch", ["views": [.string(waiting)]]), from: client)
        embedded.endTurn()
        #expect(try client.read().last?["result"]?["watch"] == 3)
    }
}
