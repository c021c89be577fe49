/// The members of the JSON a view declaration is written in (SPEC §6.1), by where they go: for
/// Tab inside `mount {…}` and `provide {…}`. The engine's grammar is checked against these
/// (`DeclarationMembersTests`), so the two cannot drift apart.
public enum DeclarationMembers {
    /// A view declaration's own members (`view/mount`'s params).
    public static let view = [
        "parent", "name", "id", "inputs", "arguments", "state", "stateTypes", "bindings", "stateObjects", "observedObjects",
        "environmentObjects", "environment", "provide", "modifiers", "body", "retain", "printChanges", "equatable",
    ]
    /// What a view provides to its content (`provide`, `modifiers`), and `view/provide`'s changes.
    public static let provide = ["environmentObjects", "observables", "environment"]
    public static let provideChanges = provide + ["withdraw"]
    /// One `stateObjects` or constructed `observedObjects` entry.
    public static let object = ["type", "init", "eager"]
    /// One `environment` entry: an environment value, or an `@Environment(T.self)` object.
    public static let environmentEntry = ["key", "type", "optional"]

    /// The members that fit an object at `keys`, the members leading to it from the top
    /// (`["stateObjects", "vm"]` for `{"stateObjects": {"vm": {…`); `provideChanges` names the
    /// top level of `view/provide`. Nil where members are the user's own names (variables).
    public static func members(at keys: [String], provideChanges isProvide: Bool) -> [String]? {
        guard let first = keys.first else { return isProvide ? provideChanges : view }
        switch (first, keys.count) {
        case ("provide", 1), ("modifiers", 1): return provide
        case ("stateObjects", 2), ("observedObjects", 2): return object
        case ("environment", 2) where !isProvide: return environmentEntry
        default: return nil
        }
    }
}
