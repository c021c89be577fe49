import MilieuClient
import MilieuJSON
import MilieuProtocol
import MilieuTestSupport
import Testing

@testable import milieu

/// What the REPL's watches have shown, so that a broken connection resumes where they stopped
/// (SPEC §11.3, §11.4): no notification twice, none skipped.
struct WatchBookTests {
    private func note(_ watch: Int, _ version: Int, _ path: String) -> ClientNotification {
        ClientNotification(method: "view/didUpdate", params: ["watch": .int(watch), "version": .int(version), "path": .string(path)])
    }

    /// A connection that breaks in the middle of a version's notifications resumes from the
    /// version before it, and what the replay repeats of that version is not shown again.
    @Test func aVersionCutShortByABreakIsResumedAndNotShownTwice() {
        let book = WatchBook()
        let record = book.add(paths: [], views: ["/App"], lifecycle: false, commits: false, daemonID: 1, version: 6, instance: "a")
        #expect(book.admit(note(1, 7, "/App")) && book.admit(note(1, 7, "/App/A")))
        book.detachAll()
        #expect(record.resumeFrom(on: "a") == 6, "version 7 was not shown whole")
        record.daemonID = 2
        let replay = [note(2, 7, "/App"), note(2, 7, "/App/A"), note(2, 7, "/App/B"), note(2, 8, "/App")]
        #expect(replay.filter(book.admit).map { $0.params["path"] } == ["/App/B", "/App"])
        book.caughtUp(to: 8)
        #expect(record.lastShown == 8)
    }

    /// A resume that fails and is tried again still leaves out what was shown before the break.
    @Test func aSecondTryAtResumingStillLeavesOutWhatWasShown() {
        let book = WatchBook()
        let record = book.add(paths: [], views: ["/App"], lifecycle: false, commits: false, daemonID: 1, version: 6, instance: "a")
        _ = book.admit(note(1, 7, "/App"))
        book.detachAll()
        #expect(record.resumeFrom(on: "a") == 6)
        #expect(record.resumeFrom(on: "a") == 6, "the first try broke before its replay")
        record.daemonID = 2
        #expect([note(2, 7, "/App"), note(2, 7, "/App/A")].filter(book.admit).map { $0.params["path"] } == ["/App/A"])
    }

    /// Versions shown whole count as shown: a later version's first notification closes the
    /// one before it.
    @Test func aVersionIsShownWholeOnceTheNextOneBegins() {
        let book = WatchBook()
        let record = book.add(paths: ["login"], views: [], lifecycle: false, commits: false, daemonID: 3, version: 2, instance: "a")
        for version in [3, 3, 4] { _ = book.admit(note(3, version, "login.email")) }
        #expect(record.lastShown == 3)
        #expect(record.resumeFrom(on: "a") == 3)
    }

    /// A reconnect cut short after some watches started again on a new daemon: the next try,
    /// to the same new daemon, starts the rest again too, and resumes those already made on it.
    /// (With one instance for the whole link, the next try saw "the same daemon" and resumed
    /// the rest with the old daemon's versions.)
    @Test func eachWatchResumesOnlyOnTheInstanceItsVersionsAreOf() {
        let book = WatchBook()
        let theme = book.add(paths: ["theme"], views: [], lifecycle: false, commits: false, daemonID: 1, version: 7, instance: "old")
        let login = book.add(paths: ["login"], views: [], lifecycle: false, commits: false, daemonID: 2, version: 7, instance: "old")
        book.detachAll()
        #expect(theme.resumeFrom(on: "new") == nil, "another daemon's versions are not this watch's")
        theme.restart(at: 1, on: "new")
        book.detachAll()  // the try breaks before the login watch is made again
        #expect(theme.resumeFrom(on: "new") == 1)
        #expect(login.resumeFrom(on: "new") == nil)
        #expect(login.resumeFrom(on: "old") == 7, "the old daemon back again: still its versions")
    }

    /// `watch --since V`: until the replay has been shown, only V has; a break before then
    /// resumes from V, not from the version the daemon was at.
    @Test func aWatchSinceAVersionHasShownOnlyThatUntilItsReplayIs() throws {
        let daemon = try Daemon()
        defer { daemon.stop() }
        let writer = try MilieuClient(socketPath: daemon.socketPath)
        for color in ["red", "teal"] {
            _ = try writer.request(GraphSetRequest(path: "theme.accentColor", value: .string(color)), timeout: 5)
        }
        let link = Link(socketPath: daemon.socketPath, requestTimeout: 5)
        try link.connect()
        let record = try link.watch(targets: ["theme"], lifecycle: false, since: 1)
        #expect(record.lastShown == 1, "the replay of versions 2 and 3 is not shown yet")
        #expect(link.takeNotifications(sync: true).map(\.version) == [2, 3])
        #expect(record.lastShown == 3)
    }
}
