/// Text laid out for a terminal `width` columns wide: each line longer than that is broken at
/// the last space that fits (never inside a word), its continuation indented as the line was.
/// A word longer than the width stays whole on a line of its own.
enum TextWrap {
    static func wrap(_ text: String, width: Int) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { wrap(line: String($0), width: width) }.joined(separator: "\n")
    }

    private static func wrap(line: String, width: Int) -> String {
        guard line.count > width else { return line }
        let indent = String(line.prefix { $0 == " " })
        var lines: [String] = []
        var current = indent
        for word in line.dropFirst(indent.count).split(separator: " ", omittingEmptySubsequences: false) {
            let candidate = current == indent ? current + word : current + " " + word
            if candidate.count > width, current != indent {
                lines.append(current)
                current = indent + word
            } else {
                current = candidate
            }
        }
        lines.append(current)
        return lines.joined(separator: "\n")
    }
}
