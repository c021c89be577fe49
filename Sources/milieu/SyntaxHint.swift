/// The dim text shown after a command name while typing: the arguments still to come,
/// as in `set <keypath> <json>`.
enum SyntaxHint {
    /// The hint for `line`, or nil. Shown after a known command name, and after each
    /// complete argument (a line ending in a space), for the arguments left; after the path of
    /// `set` or `call`, what `schema` knows of it: `light | dark`, `<double 0.5..3>`, `<user: string>`.
    static func hint(for line: String, schema: SchemaHelp? = nil) -> String? {
        guard let first = line.split(separator: " ").first, !line.hasPrefix(" "),
            let spec = CommandCatalog.spec(named: String(first)), !spec.arguments.isEmpty
        else { return nil }
        if line == first { return " " + spec.arguments }
        guard line.hasSuffix(" ") else { return nil }
        let words = ArgumentScanner.words(in: line.dropFirst(first.count))
        if let schema, words.count == 1 {
            let path = String(words[0])
            if spec.name == "set", let hint = schema.valueHint(for: path) { return hint }
            if spec.name == "call", let hint = schema.argumentsHint(for: path) { return hint }
        }
        let typed = words.count
        let parts = placeholders(spec.arguments)
        guard typed < parts.count else { return nil }
        return parts[typed...].joined(separator: " ")
    }

    /// `["<keypath>", "[<json arg>...]"]` for `<keypath> [<json arg>...]`: spaces inside
    /// `<...>` and `[...]` do not split.
    static func placeholders(_ arguments: String) -> [String] {
        var parts: [String] = []
        var current = ""
        var depth = 0
        for character in arguments {
            switch character {
            case "<", "[": depth += 1
            case ">", "]": depth -= 1
            default: break
            }
            if character == " " && depth == 0 {
                if !current.isEmpty { parts.append(current) }
                current = ""
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { parts.append(current) }
        return parts
    }
}
