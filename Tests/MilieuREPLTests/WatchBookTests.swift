import MilieuClient
import MilieuJSON
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
        let record = book.add(paths: [], views: ["/App"], lifecycle: false, commits: false, daemonID: 1, version: 6)
        #expect(book.admit(note(1, 7, "/App")) && book.admit(note(1, 7, "/App/A")))
        book.detachAll()
        #expect(record.resumeFrom() == 6, "version 7 was not shown whole")
        record.daemonID = 2
        let replay = [note(2, 7, "/App"), note(2, 7, "/App/A"), note(2, 7, "/App/B"), note(2, 8, "/App")]
        #expect(replay.filter(book.admit).map { $0.params["path"] } == ["/App/B", "/App"])
        book.caughtUp(to: 8)
        #expect(record.lastShown == 8)
    }

    /// A resume that fails and is tried again still leaves out what was shown before the break.
    @Test func aSecondTryAtResumingStillLeavesOutWhatWasShown() {
        let book = WatchBook()
        let record = book.add(paths: [], views: ["/App"], lifecycle: false, commits: false, daemonID: 1, version: 6)
        _ = book.admit(note(1, 7, "/App"))
        book.detachAll()
        #expect(record.resumeFrom() == 6)
        #expect(record.resumeFrom() == 6, "the first try broke before its replay")
        record.daemonID = 2
        #expect([note(2, 7, "/App"), note(2, 7, "/App/A")].filter(book.admit).map { $0.params["path"] } == ["/App/A"])
    }

    /// Versions shown whole count as shown: a later version's first notification closes the
    /// one before it.
    @Test func aVersionIsShownWholeOnceTheNextOneBegins() {
        let book = WatchBook()
        let record = book.add(paths: ["login"], views: [], lifecycle: false, commits: false, daemonID: 3, version: 2)
        for version in [3, 3, 4] { _ = book.admit(note(3, version, "login.email")) }
        #expect(record.lastShown == 3)
        #expect(record.resumeFrom() == 3)
    }
}
