import MilieuProtocol

/// The text of `reset`: what it would do, asked at the prompt, and what it did.
///
///     reset to the scene's start would:
///       unmount     /App/ContainerView, /App/FixedContainerView (with everything below)
///       provide     what the scene provides, again at /App
///       write back  /App.theme.colorScheme, /App.login.email
struct ResetRenderer {
    let style: Style

    func isNothing(_ result: GraphResetRequest.Result) -> Bool {
        [result.unmounted, result.remounted, result.provided, result.written].allSatisfy(\.isEmpty)
    }

    func question(_ result: GraphResetRequest.Result) -> String {
        (["reset to the scene's start would:"] + rows(result)
            + [style.yellow("Type y to reset, anything else keeps everything as it is.")]).joined(separator: "\n")
    }

    func done(_ result: GraphResetRequest.Result) -> String {
        guard !isNothing(result) else {
            return "nothing to reset: the graph is at its scene's start  \(style.dim("version \(result.version)"))"
        }
        return (["reset to the scene's start  \(style.dim("version \(result.version)"))"] + rows(result)).joined(separator: "\n")
    }

    private func rows(_ result: GraphResetRequest.Result) -> [String] {
        let rows = [
            ("unmount", result.unmounted, " (with everything below)"), ("mount again", result.remounted, ""),
            ("provide", result.provided, ": what the scene provides there"), ("write back", result.written, ""),
        ].filter { !$0.1.isEmpty }
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { name, paths, note in
            "  \(style.bold(name))\(String(repeating: " ", count: width - name.count + 2))\(paths.joined(separator: ", "))\(note)"
        }
    }
}
