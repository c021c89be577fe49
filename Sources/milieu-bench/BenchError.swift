import Glibc

/// Why a benchmark run stopped, in words that name the server, the step and the cause.
enum BenchError: Error, CustomStringConvertible {
    /// A system call failed with this errno.
    case system(String, Int32)
    /// A server answered something the benchmark did not expect.
    case unexpectedReply(String)
    /// A step did not finish in the time it was given.
    case timedOut(String)
    /// A server or tool could not be started, or died.
    case process(String)
    /// A command-line mistake.
    case usage(String)

    var description: String {
        switch self {
        case .system(let call, let code): "\(call) failed: \(String(cString: strerror(code))) (errno \(code))"
        case .unexpectedReply(let text): "unexpected reply: \(text)"
        case .timedOut(let text): "timed out: \(text)"
        case .process(let text): text
        case .usage(let text): text
        }
    }
}
