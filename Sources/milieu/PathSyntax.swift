import MilieuJSON

/// Just enough of the path grammar (SPEC §4) to tell view paths from key paths and to
/// split off the last member, skipping dots inside ids like `Row["a.b"]`.
enum PathSyntax {
    /// True for `/App/Container` and `/App/List/Row["a.b"]`; false for `/App/Container.toggle`
    /// and `login.email`.
    static func isViewPath(_ path: String) -> Bool {
        path.hasPrefix("/") && topLevelIndices(of: ".", in: path).isEmpty
    }

    /// `("/App/Container.loginVM", "em")` for `/App/Container.loginVM.em`; nil without a dot.
    static func splitLastMember(_ path: String) -> (base: String, member: String)? {
        guard let dot = topLevelIndices(of: ".", in: path).last else { return nil }
        return (String(path[..<dot]), String(path[path.unicodeScalars.index(after: dot)...]))
    }

    /// Where `separator` occurs outside brackets and JSON strings.
    static func topLevelIndices(of separator: Unicode.Scalar, in path: String) -> [String.Index] {
        EmbeddedJSONScanner.topLevelIndices(of: separator, in: path)
    }
}
