import MilieuJSON
import SwiftDiagnostics
import SwiftOperators
import SwiftParser
import SwiftParserDiagnostics
import SwiftSyntax

/// A Swift file to translate: its name (as diagnostics show it) and its text.
public struct SourceFile: Sendable {
    public let name: String
    public let text: String

    public init(name: String, text: String) {
        self.name = name
        self.text = text
    }
}

/// A problem found in the source, in the compiler's format: `FILE:LINE:COL: warning: message`.
public struct SourceDiagnostic: Sendable, Equatable, CustomStringConvertible {
    public enum Severity: String, Sendable {
        case error, warning, note
    }

    public let file: String
    public let line: Int
    public let column: Int
    public let severity: Severity
    public let message: String

    public var description: String { "\(file):\(line):\(column): \(severity.rawValue): \(message)" }
}

/// What a set of Swift files says, as Milieu's declarations: a scene (`types`, and the `views`
/// its roots mount under `/App`), with every diagnostic. With an error the scene is not to be loaded.
public struct Translation: Sendable {
    public var scene: JSON
    public var diagnostics: [SourceDiagnostic]
    /// The names of the types the source declares: they replace any registered type of the same name.
    public var typeNames: [String]
    /// The paths its roots are mounted at.
    public var roots: [String]

    public var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }
}

/// Turns SwiftUI source into Milieu's declarations (SPEC §6, §9.3): `ObservableObject` and
/// `@Observable` classes into types, `View` structs into view declarations written into the
/// bodies that use them, `#Preview` and `@main` apps into the views mounted under `/App`.
/// Apple's parser reads the source; what it cannot model is a diagnostic, never a guess.
public enum SwiftTranslator {
    /// The longest file it reads: the articles' files are a few kilobytes.
    public static let maxFileBytes = 1 << 20
    /// How many views one translation may write into bodies, all uses counted: a view used twice
    /// by a view used twice is four, so nesting cannot make the output grow without bound.
    public static let maxViewInstances = 10_000

    public static func translate(_ files: [SourceFile]) -> Translation {
        let program = Program()
        for (index, file) in files.enumerated() {
            guard file.text.utf8.count <= maxFileBytes else {
                program.diagnostics.append(
                    SourceDiagnostic(
                        file: file.name, line: 1, column: 1, severity: .error,
                        message: "the file has \(file.text.utf8.count) bytes; at most \(maxFileBytes) are read"))
                continue
            }
            let tree = Parser.parse(source: file.text)
            // `a + b * c` as the standard operators group it: the parser leaves sequences flat.
            let folded = OperatorTable.standardOperators.foldAll(tree) { _ in }.as(SourceFileSyntax.self) ?? tree
            let unit = SourceUnit(index: index, name: file.name, tree: folded)
            program.units.append(unit)
            for diagnostic in ParseDiagnosticsGenerator.diagnostics(for: tree) {
                let location = diagnostic.location(converter: unit.converter)
                let severity: SourceDiagnostic.Severity =
                    switch diagnostic.diagMessage.severity {
                    case .error: .error
                    case .warning: .warning
                    default: .note
                    }
                program.diagnostics.append(
                    SourceDiagnostic(
                        file: file.name, line: location.line, column: location.column, severity: severity, message: diagnostic.message))
            }
        }
        program.collect()
        return program.translate()
    }
}

/// One parsed file.
final class SourceUnit {
    let index: Int
    let name: String
    let tree: SourceFileSyntax
    let converter: SourceLocationConverter

    init(index: Int, name: String, tree: SourceFileSyntax) {
        self.index = index
        self.name = name
        self.tree = tree
        self.converter = SourceLocationConverter(fileName: name, tree: tree)
    }
}

/// Where a construct is, to name it in a diagnostic.
struct Place {
    let unit: SourceUnit
    let node: Syntax

    init(_ unit: SourceUnit, _ node: some SyntaxProtocol) {
        self.unit = unit
        self.node = Syntax(node)
    }

    func diagnostic(_ severity: SourceDiagnostic.Severity, _ message: String) -> SourceDiagnostic {
        let location = unit.converter.location(for: node.positionAfterSkippingLeadingTrivia)
        return SourceDiagnostic(file: unit.name, line: location.line, column: location.column, severity: severity, message: message)
    }

    /// The construct as written, shortened, for a diagnostic's parenthesis.
    var text: String {
        let written = node.trimmedDescription.split(separator: "\n").first.map(String.init) ?? ""
        return written.count > 60 ? String(written.prefix(57)) + "..." : written
    }
}
