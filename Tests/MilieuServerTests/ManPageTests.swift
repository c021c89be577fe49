import Foundation
import MilieuTestSupport
import Testing

/// The man pages `scripts/man` writes from each binary's --help: groff renders them without a
/// warning, and each lists every option --help does.
@Suite struct ManPageTests {
    @Test func eachPageRendersAndListsEveryOptionOfItsHelp() throws {
        let directory = try Daemon.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let bin = URL(fileURLWithPath: Daemon.binary).deletingLastPathComponent().path
        let wrote = try ScriptRunner.run(["bash", "scripts/man", directory], environment: ["MILIEU_BIN": bin])
        #expect(wrote.0 == 0, "\(wrote.2)")
        for (binary, page) in [("milieud", "man8/milieud.8"), ("milieu", "man1/milieu.1")] {
            let rendered = try ScriptRunner.run(["groff", "-man", "-Tutf8", "-ww", "\(directory)/\(page)"])
            #expect(rendered.0 == 0 && rendered.2.isEmpty, "groff on \(page): \(rendered.2)")
            let help = try ScriptRunner.run(["\(bin)/\(binary)", "--help"]).1
            let options = help.split(separator: "\n").compactMap { line -> String? in
                guard line.hasPrefix("  -") else { return nil }
                return line.dropFirst(2).split(separator: " ").first.map(String.init)
            }
            #expect(options.count >= 8, "\(binary) --help lists its options")
            // grotty writes bold and underlined text as overstrikes (a character, a backspace, the character).
            let text = rendered.1.replacingOccurrences(of: ".\u{8}", with: "", options: .regularExpression)
                .replacingOccurrences(of: "\u{2010}", with: "-").replacingOccurrences(of: "\u{2212}", with: "-")
            for option in options { #expect(text.contains(option), "\(option) in \(page)") }
        }
    }
}
