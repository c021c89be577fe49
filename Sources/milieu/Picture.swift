import Foundation

/// How `tree` and `explain` draw instead of printing text: DOT on standard output, or a file
/// Graphviz renders (`dot`, Debian's `graphviz`) in the format its name ends in.
enum Picture: Equatable {
    case dot
    /// `--svg FILE`, `--png FILE`: the format is the flag's.
    case file(path: String, format: String)

    /// The formats a picture file can be written in.
    static let formats = ["svg", "png"]

    /// What to print for `source`: the DOT itself, or where the picture was written.
    func output(_ source: String) throws -> String {
        switch self {
        case .dot: return source
        case .file(let path, let format):
            try Self.render(source, format: format, to: path)
            return "wrote \(path)"
        }
    }

    private static func render(_ source: String, format: String, to path: String) throws {
        guard let dot = ["/usr/bin/dot", "/usr/local/bin/dot"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw CommandError(message: "drawing a picture needs Graphviz's dot: apt-get install graphviz (or use --dot)", usage: nil)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: dot)
        process.arguments = ["-T" + format, "-o", path]
        let input = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(Data(source.utf8))
        try input.fileHandleForWriting.close()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CommandError(message: "dot could not write \(path): \(message.trimmingWhitespace())", usage: nil)
        }
    }
}
