import Foundation
import MilieuJSON
import MilieuTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The data directory is the user's own and one daemon's at a time; its files are private.
@Suite struct DataDirectoryTests {
    private func mode(_ path: String) -> mode_t? {
        var status = stat()
        return stat(path, &status) == 0 ? status.st_mode & 0o777 : nil
    }

    @Test func aSecondDaemonOnTheSameDataDirectoryIsRefusedNamingTheFirst() throws {
        let data = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let first = try Daemon(arguments: ["--data-dir", data])
        defer { first.stop() }
        // Its socket accepts before it has taken the data directory; it answers after. On a
        // loaded machine the second daemon took the directory first.
        let client = try first.connect()
        _ = try client.call("initialize")
        let second = try Daemon(arguments: ["--data-dir", data], wait: false)
        defer { second.stop() }
        #expect(second.waitForExit() == 1)
        #expect(second.stderrText().contains("another milieud (pid \(first.process.processIdentifier)) keeps its state here"))
        #expect(try client.call("graph/set", ["path": "login.email", "value": "kim@example.com"])["version"] == 2)
    }

    @Test func everyFileOfTheStoreIsTheUsersAlone() throws {
        let data = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        chmod(data, 0o755)
        var daemon = try Daemon(arguments: ["--data-dir", data])
        _ = try daemon.connect().call("graph/set", ["path": "login.email", "value": "kim@example.com"])
        for file in ["milieu.db", "milieu.db-wal", "milieu.lock"] {
            #expect(mode("\(data)/\(file)") == 0o600, "\(file)")
        }
        daemon.stop()
        // A database an older build left readable to others is made private at the next start.
        chmod("\(data)/milieu.db", 0o644)
        daemon = try Daemon(arguments: ["--data-dir", data])
        defer { daemon.stop() }
        // The socket accepts before the daemon has opened its store; an answer comes after.
        _ = try daemon.connect().call("initialize")
        #expect(mode("\(data)/milieu.db") == 0o600)
    }

    @Test func aDataDirectoryCopiedBackWithLooseModesIsMadePrivateAtStart() throws {
        let data = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        var daemon = try Daemon(arguments: ["--data-dir", data])
        _ = try daemon.connect().call("graph/set", ["path": "login.email", "value": "kim@example.com"])
        daemon.stop()
        // As `cp -r` under umask 022 leaves a copy: the directory 0755, every file 0644.
        let files = try FileManager.default.contentsOfDirectory(atPath: data)
        #expect(files.contains { $0.hasPrefix("milieu-") && $0.hasSuffix(".log") } && files.contains("milieu.lock"), "\(files)")
        chmod(data, 0o755)
        for file in files { chmod("\(data)/\(file)", 0o644) }
        let mine = "\(data)/notes.txt"
        try Data("not milieud's".utf8).write(to: URL(fileURLWithPath: mine))
        chmod(mine, 0o644)

        daemon = try Daemon(arguments: ["--data-dir", data])
        defer { daemon.stop() }
        _ = try daemon.connect().call("initialize")
        #expect(mode(data) == 0o700)
        for file in try FileManager.default.contentsOfDirectory(atPath: data) where file != "notes.txt" {
            #expect(mode("\(data)/\(file)") == 0o600, "\(file) is \(String(mode("\(data)/\(file)") ?? 0, radix: 8))")
        }
        #expect(mode(mine) == 0o644, "a file milieud does not own is left as it is")
    }

    @Test(.enabled(if: getuid() == 0, "needs root to give a directory to another uid"))
    func anotherUsersDirectoryOrSymlinkIsRefused() throws {
        let parent = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let theirs = "\(parent)/theirs"
        mkdir(theirs, 0o700)
        chown(theirs, 65534, 65534)
        let refused = try Daemon(arguments: ["--data-dir", theirs], wait: false)
        defer { refused.stop() }
        #expect(refused.waitForExit() == 1)
        #expect(refused.stderrText().contains("belongs to uid 65534"))

        let mine = "\(parent)/mine"
        mkdir(mine, 0o700)
        let link = "\(parent)/link"
        symlink(mine, link)
        lchown(link, 65534, 65534)
        let throughLink = try Daemon(arguments: ["--data-dir", link], wait: false)
        defer { throughLink.stop() }
        #expect(throughLink.waitForExit() == 1)
        #expect(throughLink.stderrText().contains("symbolic link of uid 65534"))
    }
}
