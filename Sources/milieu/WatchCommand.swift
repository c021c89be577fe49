import Foundation
import MilieuClient

#if canImport(Glibc)
import Glibc
#endif

/// `milieu watch [--json] [--since V] [--lifecycle] [--commits] TARGET…` and `milieu monitor`
/// (`--commits` alone: every commit, as `redis-cli MONITOR` shows every command): one watch, its notifications
/// printed one a line as they arrive, until Ctrl-C, SIGTERM, or the reader of a pipe going
/// away (SIGPIPE), as `etcdctl watch` and `redis-cli SUBSCRIBE` do. If the daemon goes away it
/// says so on standard error, connects again when it is back and resumes the watch from the
/// last version printed, so nothing is missed or printed twice.
enum WatchCommand {
    struct Parameters: Equatable {
        var socketPath: String
        var targets: [String]
        var lifecycle = false
        var commits = false
        var since: Int?
        var json = false
    }

    static func run(_ parameters: Parameters, environment: [String: String]) -> Int32 {
        let console = Console(
            json: parameters.json, style: Style.forStream(STDOUT_FILENO, environment: environment),
            errorStyle: Style.forStream(STDERR_FILENO, environment: environment))
        let link = Link(socketPath: parameters.socketPath, requestTimeout: Options.interactiveTimeout)
        do {
            _ = try link.connect()
            if let restore = link.restore { console.status(ConnectionMessages.restored(restore, style: console.errorStyle)) }
            let record = try link.watch(
                targets: parameters.targets, lifecycle: parameters.lifecycle, commits: parameters.commits, since: parameters.since)
            console.status(ResultRenderer(style: console.errorStyle).watch(record) + console.errorStyle.dim("  (Ctrl-C stops)"))
        } catch let error as MilieuClientError where error.code == .notListening {
            console.status(ConnectionMessages.noDaemon(socketPath: parameters.socketPath, interactive: false, style: console.errorStyle))
            return ExitStatus.noDaemon
        } catch {
            console.status(ErrorRenderer(style: console.errorStyle).text(error))
            return ExitStatus.commandFailed
        }
        return follow(link, console: console)
    }

    /// Prints notifications until a signal asks to stop; reconnects once a second while the daemon is away.
    private static func follow(_ link: Link, console: Console) -> Int32 {
        let signals = SignalPipe.install([SIGINT, SIGTERM, SIGHUP])
        var lastAttempt = Date.distantPast
        var connected = true
        while true {
            console.show(link.takeNotifications(sync: false), watches: link.watches)
            var descriptors = [pollfd(fd: signals, events: Int16(POLLIN), revents: 0)]
            if link.isConnected, let client = link.client {
                descriptors.append(pollfd(fd: client.fileDescriptor, events: Int16(POLLIN), revents: 0))
            }
            let ready = poll(&descriptors, nfds_t(descriptors.count), link.isConnected ? -1 : 1000)
            if ready < 0 && errno != EINTR { return ExitStatus.commandFailed }
            if descriptors[0].revents != 0 { return ExitStatus.success }
            if descriptors.count > 1 && descriptors[1].revents != 0 { _ = try? link.client?.receiveAvailable() }
            if connected && !link.isConnected {
                console.show(link.takeNotifications(sync: false), watches: link.watches)
                link.disconnected()
                connected = false
                console.status(ConnectionMessages.lost(socketPath: link.socketPath, style: console.errorStyle))
            }
            if !connected, Date().timeIntervalSince(lastAttempt) >= 1 {
                lastAttempt = Date()
                guard let resumption = try? link.connect() else { continue }
                connected = true
                console.status(
                    ConnectionMessages.back(resumption, restore: link.restore, socketPath: link.socketPath, style: console.errorStyle))
            }
        }
    }
}
