import Foundation
import MilieuTestSupport
import Testing

@testable import milieu

/// What the README and `help` show, run as written through the real binaries (issue #30, item 1:
/// the README's tour failed at its second command, and five help texts named a view no scene mounts).
@Suite(.serialized)
struct DocumentationTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized

    /// A scratch directory to run in, as the repository's root is for a reader: `seeds/` and
    /// `scenes/` are there, and what a command writes (`tree --svg tree.svg`) lands in it.
    private static func workspace() throws -> String {
        var template = Array("/tmp/milieu-docs-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestFailure("mkdtemp failed") }
        let path = String(cString: made)
        for name in ["seeds", "scenes"] {
            try FileManager.default.createSymbolicLink(
                atPath: "\(path)/\(name)", withDestinationPath: repository.appendingPathComponent(name).path)
        }
        return path
    }

    static let commandsWithExamples = CommandCatalog.commands.filter { !$0.examples.isEmpty }.map(\.name)

    /// Each command's examples, in order, in one session, after `load` of what they assume.
    @Test(arguments: commandsWithExamples)
    func everyHelpExampleRunsAsWritten(command: String) throws {
        let spec = try #require(CommandCatalog.spec(named: command))
        let daemon = try Daemon()
        defer { daemon.stop() }
        let directory = try Self.workspace()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let lines = spec.exampleScenes.map { "load \($0)" } + spec.examples
        let run = try MilieuRun.run(["--socket", daemon.socketPath], input: lines.joined(separator: "\n") + "\n", directory: directory)
        #expect(run.status == 0, "help \(command): \(run.stderr)")
        #expect(run.stderr.isEmpty, "help \(command): \(run.stderr)")
    }

    /// Help shows each example as it is run, and every command that takes arguments has one.
    @Test func helpShowsTheExamplesAndEveryCommandWithArgumentsHasThem() throws {
        for spec in CommandCatalog.commands {
            let help = try #require(CommandCatalog.help(for: spec.name, style: .plain))
            for example in spec.examples { #expect(help.contains(example), "help \(spec.name) shows \(example)") }
            for line in help.split(separator: "\n") { #expect(line.count <= 90, "help \(spec.name): \(line)") }
            if !spec.kinds.isEmpty { #expect(!spec.examples.isEmpty, "help \(spec.name) has no example") }
        }
    }

    /// A fenced block of the README.
    struct Block {
        let language: String
        let lines: [String]
        let line: Int
    }

    static func blocks(of text: String) -> [Block] {
        var blocks: [Block] = []
        var current: (language: String, lines: [String], line: Int)?
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.hasPrefix("```") {
                if let open = current {
                    blocks.append(Block(language: open.language, lines: open.lines, line: open.line))
                    current = nil
                } else {
                    current = (String(line.dropFirst(3)), [], number + 1)
                }
            } else if current != nil {
                current?.lines.append(String(line))
            }
        }
        return blocks
    }

    /// What a transcript's lines are compared as: no pid or connection number (they differ run by
    /// run), no trailing space.
    private static func normalized(_ line: some StringProtocol) -> String {
        let text = String(line).replacingOccurrences(of: #"(pid|connection) [0-9]+"#, with: "$1 N", options: .regularExpression)
        return String(text.reversed().drop { $0 == " " }.reversed())
    }

    /// Whether `actual` is `expected`, where a line `…` in `expected` stands for any lines.
    static func matches(_ actual: [String], _ expected: [String]) -> Bool {
        guard let first = expected.first else { return actual.isEmpty }
        if first == "…" { return (0...actual.count).contains { matches(Array(actual[$0...]), Array(expected.dropFirst())) } }
        guard let line = actual.first, line == first else { return false }
        return matches(Array(actual.dropFirst()), Array(expected.dropFirst()))
    }

    /// Every README block with `milieu> ` lines is a session: its commands, piped to milieu against
    /// a fresh daemon, print exactly the lines shown (`…` stands for lines left out). The Swift
    /// block is the file `Counter.swift` the README says to save.
    @Test func theREADMEsSessionsRunAsWritten() throws {
        let readme = try String(contentsOf: Self.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let blocks = Self.blocks(of: readme)
        let directory = try Self.workspace()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let swift = try #require(blocks.first { $0.language == "swift" })
        try (swift.lines.joined(separator: "\n") + "\n").write(toFile: "\(directory)/Counter.swift", atomically: true, encoding: .utf8)
        let sessions = blocks.filter { $0.lines.contains { $0.hasPrefix("milieu> ") } }
        #expect(sessions.count >= 4)
        for session in sessions {
            let shown = session.lines.drop { !$0.hasPrefix("milieu> ") }
            let commands = shown.filter { $0.hasPrefix("milieu> ") }.map { line in
                let command = line.dropFirst("milieu> ".count)
                return String(command.range(of: "  # ").map { command[..<$0.lowerBound] } ?? command).trimmingCharacters(in: .whitespaces)
            }
            let expected = shown.filter { !$0.hasPrefix("milieu> ") }.map(Self.normalized)
            let daemon = try Daemon()
            defer { daemon.stop() }
            let run = try MilieuRun.run(
                ["--socket", daemon.socketPath], input: commands.joined(separator: "\n") + "\n", directory: directory)
            #expect(run.status == 0, "README.md:\(session.line): \(run.stderr)")
            let actual = run.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(Self.normalized)
            let trimmed = Array(actual.reversed().drop { $0.isEmpty }.reversed())
            let matched = Self.matches(trimmed, expected)
            #expect(
                matched,
                "README.md:\(session.line) shows\n\(expected.joined(separator: "\n"))\nbut milieu printed\n\(trimmed.joined(separator: "\n"))"
            )
        }
    }
}
