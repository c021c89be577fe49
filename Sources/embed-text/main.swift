import Foundation

// The build tool of Plugins/EmbedText: writes the files it is given into a Swift source file as
// raw string literals (a byte array literal of the same size takes minutes to type-check).
//
//     embed-text OpenRPCDocument.text OUTPUT.swift FILE            static let text: String
//     embed-text SceneLibrary.embedded OUTPUT.swift FILE...        static let embedded: [(name, text)]

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count >= 3, let declaration = arguments.first, let dot = declaration.firstIndex(of: ".") else {
    FileHandle.standardError.write(Data("usage: embed-text Type.member OUTPUT.swift FILE...\n".utf8))
    exit(2)
}
let (type, member) = (declaration[..<dot], declaration[declaration.index(after: dot)...])
let output = URL(fileURLWithPath: arguments[arguments.startIndex + 1])
let files = arguments.dropFirst(2).map { URL(fileURLWithPath: $0) }

/// `text` as a raw string literal whose delimiter no line of it can end.
func literal(_ text: String) -> String {
    var hashes = "#"
    while text.contains("\"" + hashes) { hashes += "#" }
    return "\(hashes)\"\"\"\n\(text.hasSuffix("\n") ? String(text.dropLast()) : text)\n\"\"\"\(hashes)"
}

var source = "// Written at build time by Plugins/EmbedText from \(files.map(\.lastPathComponent).joined(separator: ", ")).\n\n"
source += "extension \(type) {\n"
do {
    if files.count == 1 && member == "text" {
        source += "    static let text = \(literal(try String(contentsOf: files[0], encoding: .utf8)))\n"
    } else {
        source += "    static let \(member): [(name: String, text: String)] = [\n"
        for file in files {
            let name = file.deletingPathExtension().lastPathComponent
            source += "        (name: \"\(name)\", text: \(literal(try String(contentsOf: file, encoding: .utf8)))),\n"
        }
        source += "    ]\n"
    }
    source += "}\n"
    try Data(source.utf8).write(to: output, options: .atomic)
} catch {
    FileHandle.standardError.write(Data("embed-text: \(error)\n".utf8))
    exit(1)
}
