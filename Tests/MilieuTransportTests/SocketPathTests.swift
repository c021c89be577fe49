import Glibc
import MilieuTransport
import Testing

@Suite struct SocketPathTests {
    @Test func milieuSocketVariableWins() {
        let environment = ["MILIEU_SOCKET": "/srv/m.sock", "XDG_RUNTIME_DIR": "/run/user/1000"]
        #expect(SocketPath.defaultPath(environment: environment) == "/srv/m.sock")
    }

    @Test func xdgRuntimeDirIsUsedNext() {
        #expect(SocketPath.defaultPath(environment: ["XDG_RUNTIME_DIR": "/run/user/1000"]) == "/run/user/1000/milieu/milieu.sock")
    }

    @Test func tmpWithTheUidIsTheFallback() {
        #expect(SocketPath.defaultPath(environment: [:]) == "/tmp/milieu-\(getuid())/milieu.sock")
    }

    @Test func validateRejectsAPathLongerThanSunPath() {
        #expect(SocketPath.maximumLength == 107)
        #expect(throws: Never.self) { try SocketPath.validate("/" + String(repeating: "a", count: 106)) }
        #expect(throws: TransportError.self) { try SocketPath.validate("/" + String(repeating: "a", count: 107)) }
    }
}
