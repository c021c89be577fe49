import Foundation
import Glibc
import Synchronization
import Testing

@testable import MilieuTransport

@Suite struct SystemdTests {
    @Test func listenFDsAreAdoptedAndServed() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("activated.sock")
        let fd = try rawListeningSocket(at: path)
        let environment = ["LISTEN_PID": "\(getpid())", "LISTEN_FDS": "1"]

        let descriptors = SystemdActivation.listenFDs(environment: environment, firstDescriptor: fd, unsetEnvironment: false)
        #expect(descriptors == [fd])
        #expect(fcntl(fd, F_GETFD) & FD_CLOEXEC != 0)

        let listener = try UnixListener(adopting: fd)
        #expect(listener.path == path)
        let handler = RecordingHandler()
        let running = try RunningLoop { try $0.serve(listener: listener, handler: handler) }
        let client = try UnixSocket.connect(path: path)
        defer { close(client) }
        try UnixSocket.writeAll(client, Array("activated\n".utf8))
        #expect(try BlockingLineReader(fd: client).readLine(timeout: 5)?.text == "activated")
        running.stop()

        listener.close()
        #expect(FileIdentity(ofSocketAt: path) != nil, "an adopted socket's file is systemd's, not ours")
    }

    @Test func listenFDsForAnotherProcessAreIgnored() {
        let environment = ["LISTEN_PID": "\(getpid() + 1)", "LISTEN_FDS": "2"]
        #expect(SystemdActivation.listenFDs(environment: environment, unsetEnvironment: false).isEmpty)
        #expect(SystemdActivation.listenFDs(environment: [:], unsetEnvironment: false).isEmpty)
    }

    @Test func listenFDsUnsetsTheVariablesItRead() {
        setenv("LISTEN_FDNAMES", "milieu", 1)
        _ = SystemdActivation.listenFDs(environment: ["LISTEN_FDNAMES": "milieu"])
        #expect(getenv("LISTEN_FDNAMES") == nil)
    }

    @Test func notifierSendsReadyToTheNotifySocketPath() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("notify")
        let receiver = try datagramSocket(boundTo: path)
        defer { close(receiver) }

        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": path])
        #expect(notifier.isEnabled)
        try notifier.ready()
        try notifier.status("serving\n3 clients")
        try notifier.stopping()
        #expect(try receiveDatagram(receiver) == "READY=1")
        #expect(try receiveDatagram(receiver) == "STATUS=serving 3 clients")
        #expect(try receiveDatagram(receiver) == "STOPPING=1")
    }

    @Test func notifierReachesAnAbstractNotifySocket() throws {
        let name = "@milieu-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let receiver = try datagramSocket(boundTo: name)
        defer { close(receiver) }

        try SystemdNotifier(environment: ["NOTIFY_SOCKET": name]).ready()
        #expect(try receiveDatagram(receiver) == "READY=1")
    }

    @Test func notifierWithoutNotifySocketDoesNothing() throws {
        let notifier = SystemdNotifier(environment: [:])
        #expect(!notifier.isEnabled)
        try notifier.ready()
    }

    private func datagramSocket(boundTo path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        try UnixAddress.withAddress(path: path, allowAbstract: true) { address, length in
            guard bind(fd, address, length) == 0 else {
                throw TransportError.systemCall("bind", errno: errno, path: path)
            }
        }
        return fd
    }

    private func receiveDatagram(_ fd: Int32) throws -> String {
        var request = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&request, 1, 5000) == 1 else { throw TransportError(.timedOut) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        return String(decoding: buffer[..<max(0, count)], as: UTF8.self)
    }
}
