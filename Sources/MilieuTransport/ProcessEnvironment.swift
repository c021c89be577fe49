import Glibc

/// The process's environment variables, read from `environ`: what milieud needs of
/// `ProcessInfo` without linking Foundation, whose pages would be most of its idle memory.
public enum ProcessEnvironment {
    /// Every `NAME=value` of the environment; the first of two entries with one name wins, as `getenv`'s does.
    public static var current: [String: String] {
        var variables: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "=") {
                let name = String(text[..<equals])
                if variables[name] == nil { variables[name] = String(text[text.index(after: equals)...]) }
            }
            entry += 1
        }
        return variables
    }

    /// The bytes of the file at `path`, or nil when it cannot be read.
    public static func contents(ofFile path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(fd, &chunk, chunk.count)
            if count > 0 {
                bytes += chunk[..<count]
            } else if count == 0 {
                return bytes
            } else if errno != EINTR {
                return nil
            }
        }
    }
}
