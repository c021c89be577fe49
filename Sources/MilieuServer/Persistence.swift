import MilieuEngine
import MilieuJSON
import MilieuStore

/// Opening the store at start-up and bringing its state back into a new graph.
enum Persistence {
    /// A declared environment key is kept among the stored types as
    /// `{"environmentKey": key, "declaration": spec}` under the name `environmentKey.<key>`: no type
    /// declaration has that member, and no type name has a dot.
    static let environmentKeyEntry = "environmentKey"

    /// Registers the stored types, mounts the stored retained views, then writes the stored
    /// values. Anything that no longer fits (a type renamed in the scene, say) is skipped and logged.
    static func restore(_ state: StoredState, into graph: Graph, log: Logger) {
        var restored = (types: 0, views: 0, values: 0)
        for declaration in state.types {
            do {
                if case .string(let key)? = declaration[environmentKeyEntry] {
                    _ = try graph.declareEnvironmentKeys([key: declaration["declaration"] ?? .null])
                    continue
                }
                _ = try graph.register(declaration: declaration)
                restored.types += 1
            } catch {
                log.warning("not restoring a stored type: \(error)")
            }
        }
        for (path, declaration) in state.views {
            do {
                _ = try graph.apply([.mount(declaration: declaration, owner: nil)])
                restored.views += 1
            } catch {
                log.warning("not restoring the retained view \(path): \(error)")
            }
        }
        for (keyPath, value) in state.values {
            do {
                _ = try graph.apply([.set(path: keyPath, value: value, ifVersion: nil)])
                restored.values += 1
            } catch {
                log.warning("not restoring \(keyPath): \(error.kind)")
            }
        }
        log.info("restored \(restored.types) types, \(restored.views) retained views and \(restored.values) values")
    }

    /// Stages what `commit` changed of the durable state.
    static func stage(_ commit: Commit, of graph: Graph, in store: Store) {
        for write in graph.durableWrites(for: commit) {
            switch write {
            case .value(let view, let name, let value): store.stageValue(view: view, name: name, value: value)
            case .view(let path, let declaration): store.stageView(path: path, declaration: declaration)
            case .removeView(let path): store.stageRemoval(ofView: path)
            }
        }
    }
}
