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

/// The process's limit on open descriptors, which bounds how many clients it can serve.
public enum DescriptorLimit {
    /// The soft limit in force.
    public static var current: Int {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        return Int(clamping: limit.rlim_cur)
    }

    /// Raises the soft limit to the hard one, as far as the system allows; returns the soft
    /// limit now in force.
    @discardableResult
    public static func raiseToHardLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }
}
