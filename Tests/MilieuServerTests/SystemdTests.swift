import Foundation
import MilieuJSON
import MilieuTestSupport
import Testing

/// milieud under systemd: a socket passed by socket activation, READY=1 and STOPPING=1.
@Suite struct SystemdTests {
    /// A Python stand-in for systemd: it binds the socket, passes it as fd 3 with LISTEN_FDS and
    /// LISTEN_PID set for the child, listens on NOTIFY_SOCKET, asks the daemon for the tree over
    /// the passed socket, stops it with SIGTERM and prints what it saw as JSON.
    static let manager = #"""
        import json, os, signal, socket, sys, tempfile, time
        binary = sys.argv[1]
        d = tempfile.mkdtemp(prefix="milieu-sd-")
        path, notify = os.path.join(d, "s.sock"), os.path.join(d, "notify")
        listener = socket.socket(socket.AF_UNIX); listener.bind(path); listener.listen(16)
        states = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); states.bind(notify); states.settimeout(10)
        pid = os.fork()
        if pid == 0:
            os.dup2(listener.fileno(), 3); os.set_inheritable(3, True)
            env = dict(os.environ, LISTEN_FDS="1", LISTEN_PID=str(os.getpid()), NOTIFY_SOCKET=notify)
            os.execve(binary, [binary, "--ephemeral"], env)
        seen = [states.recv(256).decode()]
        c = socket.socket(socket.AF_UNIX); c.connect(path); f = c.makefile("rwb")
        f.write(b'{"jsonrpc":"2.0","id":1,"method":"graph/get","params":{"path":"theme.colorScheme"}}\n'); f.flush()
        reply = json.loads(f.readline())
        os.kill(pid, signal.SIGTERM)
        seen.append(states.recv(256).decode())
        _, status = os.waitpid(pid, 0)
        print(json.dumps({"states": seen, "reply": reply, "status": os.waitstatus_to_exitcode(status),
                          "socketKept": os.path.exists(path)}))
        """#

    @Test func socketActivationAndReadinessNotification() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", Self.manager, Daemon.binary]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        process.waitUntilExit()
        let report = try JSON(parsing: [UInt8](output.fileHandleForReading.readDataToEndOfFile()))
        #expect(report["states"]?.arrayValue?.first?.stringValue?.contains("READY=1") == true)
        #expect(report["states"]?.arrayValue?.last?.stringValue?.contains("STOPPING=1") == true)
        #expect(report["reply"]?["result"] == "light")
        #expect(report["status"] == 0)
        // The socket belongs to systemd: the daemon leaves it in place.
        #expect(report["socketKept"] == true)
    }
}
