import MilieuJSON
import MilieuProtocol

/// The text of `deps`, `readers` and `env`: why a view re-renders, who would, and what its
/// environment holds.
///
///     /App/Shop read in its last evaluation (version 3):
///       _cart             Cart#4, any announced change (ObservableObject)
///       login.email       Login#3.email
///       env.colorScheme   \.colorScheme from /App/Shop
struct SeeWhyRenderer {
    let style: Style

    func dependencies(_ result: ViewDependenciesRequest.Result) -> String {
        guard !result.dependencies.isEmpty else {
            return "\(style.bold(result.path)) read nothing in its last evaluation  \(style.dim("version \(result.version)"))"
        }
        let rows = result.dependencies.map { ($0.reasons.joined(separator: ", "), describe($0.source)) }
        return (["\(style.bold(result.path)) read in its last evaluation  \(style.dim("version \(result.version)"))"] + table(rows))
            .joined(separator: "\n")
    }

    func readers(_ result: GraphReadersRequest.Result, of path: String) -> String {
        guard !result.readers.isEmpty else {
            return "no view would re-render if \(style.bold(path)) changed  \(style.dim("version \(result.version)"))"
        }
        let rows = result.readers.map { ($0.view, $0.reasons.joined(separator: ", ")) }
        return (["if \(style.bold(path)) changed, these would re-render  \(style.dim("version \(result.version)"))"] + table(rows))
            .joined(separator: "\n")
    }

    func environment(_ result: ViewEnvironmentRequest.Result) -> String {
        let scope = result.scope
        var objects: [(String, String)] = []
        for (provided, modifier) in [(scope.environmentObjects, ".environmentObject"), (scope.observables, ".environment")] {
            for object in provided {
                objects.append(("\(modifier)(\(object.type))", "\(style.cyan(object.object)) from \(object.provider)"))
            }
        }
        let values = scope.environment.map { entry in
            ("\\.\(entry.key)", "\(entry.value.jsonText) " + (entry.provider.map { "from \($0)" } ?? style.dim("(default)")))
        }
        return (["\(style.bold(result.path)) sees  \(style.dim("version \(result.version)"))"] + table(objects) + table(values))
            .joined(separator: "\n")
    }

    /// What a dependency names, in words.
    private func describe(_ source: ViewDependency.Source) -> String {
        switch source {
        case .property(let object, let property): "\(style.cyan(object)).\(property)"
        case .state(let view, let variable): "@State \(view).\(variable)"
        case .object(let object, let type): "\(style.cyan(object)), any announced change (\(type) is an ObservableObject)"
        case .environment(let key, let provider): "\\.\(key) " + (provider.map { "from \($0)" } ?? "(default)")
        }
    }

    /// Two columns, the first padded to the widest, each row indented.
    private func table(_ rows: [(String, String)]) -> [String] {
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { left, right in "  \(style.bold(left))\(String(repeating: " ", count: width - left.count + 2))\(right)" }
    }
}
