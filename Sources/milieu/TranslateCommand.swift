import Foundation
import MilieuJSON
import MilieuSwift

/// `milieu translate FILE.swift…`: the scene SwiftUI source makes, on standard output; the
/// diagnostics on standard error, in the compiler's format. Exit 0, 1 with an error in the
/// source, 2 for a file that cannot be read.
enum TranslateCommand {
    static func run(files: [String]) -> Int32 {
        let sources: [SourceFile]
        do {
            sources = try SwiftSource.read(files)
        } catch {
            FileHandle.standardError.write(Data("milieu: \(error.message)\n".utf8))
            return ExitStatus.usage
        }
        let translation = SwiftTranslator.translate(sources)
        for diagnostic in translation.diagnostics { FileHandle.standardError.write(Data("\(diagnostic)\n".utf8)) }
        if translation.hasErrors { return ExitStatus.commandFailed }
        print(translation.scene.prettyText)
        return ExitStatus.success
    }
}

/// Reading `.swift` files for `translate` and `load`.
enum SwiftSource {
    struct Unreadable: Error {
        let message: String
    }

    static func read(_ paths: [String]) throws(Unreadable) -> [SourceFile] {
        var files: [SourceFile] = []
        for path in paths {
            guard let data = FileManager.default.contents(atPath: path) else { throw Unreadable(message: "cannot read \(path)") }
            guard let text = String(data: data, encoding: .utf8) else { throw Unreadable(message: "\(path) is not UTF-8") }
            files.append(SourceFile(name: path, text: text))
        }
        return files
    }

    /// Whether a `load` argument names Swift source.
    static func isSwift(_ argument: String) -> Bool { argument.hasSuffix(".swift") }
}
