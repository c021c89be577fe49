import CMilieuShims
import Glibc

/// The process's core dumps, which would hold every secret the daemon keeps in memory.
public enum CoreDumps {
    /// Turns them off for this process: no core file, and no ptrace from other processes of
    /// the same user (`PR_SET_DUMPABLE` 0). The daemon calls this before it reads any state.
    public static func disable() throws(TransportError) {
        guard milieu_disable_core_dumps() == 0 else {
            throw TransportError(.systemCall, syscall: "prctl(PR_SET_DUMPABLE)", errno: errno, detail: "cannot turn core dumps off")
        }
    }
}
