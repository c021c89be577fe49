/// Why an object was created (SPEC §10.5); the raw value is the wire name.
public enum CreationReason: String, Sendable, CaseIterable {
    /// Made for the scene's root view, at start (rule 15).
    case app
    /// A `@StateObject` of a new view identity (rules 3, 4).
    case stateObject
    /// A `@State` holding a `$new` object, for a new view identity (rule 18).
    case state
    /// An `@ObservedObject` constructed inline, or a `$new` input: at every evaluation of the parent (rule 5).
    case construct
    /// Owned state of a view that appeared because its id changed (rule 6).
    case identity
    /// An initial value made for an identity that already has one, and thrown away (rule 18).
    case stateInitial
}

/// Why an object was destroyed (SPEC §10.6); the raw value is the wire name.
public enum DestructionReason: String, Sendable, CaseIterable {
    /// A constructed object replaced at its parent's evaluation.
    case replaced
    /// A `stateInitial` object, in the transaction that made it.
    case discarded
    /// Its owner view was unmounted, for any reason but identity.
    case ownerUnmounted
    /// Its owner view's identity changed.
    case identity
    /// It had lost its owner, or was never owned, and the last holder let go.
    case released
}

/// Why a view appeared (SPEC §10.3).
public enum MountReason: String, Sendable, CaseIterable {
    case mounted
    /// A new identity, for a new id (rule 6).
    case identity
    /// A view written in an `if` branch that is now taken (its parent's body, SPEC §6.3).
    case condition
    /// A view written in a `forEach` for an element whose id is new.
    case row
    /// Content of a sheet or full-screen cover now shown, or a navigation link's destination.
    case presented
}

/// Why a view went (SPEC §10.4).
public enum UnmountReason: String, Sendable, CaseIterable {
    /// `view/unmount` named it.
    case unmounted
    /// An ancestor went.
    case parentUnmounted
    /// Its identity, or an ancestor's, was replaced by a new id (rule 6).
    case identity
    /// The connection that mounted it closed (rule 15).
    case connectionClosed
    /// Its `if` branch is no longer taken.
    case condition
    /// Its `forEach` element is gone.
    case row
    /// Its sheet, cover or navigation destination is no longer shown.
    case dismissed
}

/// The reasons a view's body is evaluated again (rule 10, SPEC §6.4), as the wire spells them.
/// A reason is its wire name: dependencies keep it ready-made, so that invalidating a view builds
/// no string. Its grammar places it in its group.
enum UpdateReason {
    /// `@self`: a value its parent passes changed.
    static let parent = "@self"
    /// `@identity`: the view appeared because an id changed.
    static let identity = "@identity"
    /// `_<var>`: a `@State`, `@Binding` or held `ObservableObject` it depends on changed.
    static func variable(_ name: String) -> String { "_" + name }
    /// `env.<key>`: an environment value it read changed.
    static func environment(_ key: String) -> String { "env." + key }

    /// The groups in the order SPEC §6.4 lists them; `<var>.<prop>` is what no other group's
    /// grammar matches.
    enum Group: Int, Comparable {
        case parent, identity, variable, property, environment

        init(_ reason: String) {
            if reason == UpdateReason.parent {
                self = .parent
            } else if reason == UpdateReason.identity {
                self = .identity
            } else if reason.hasPrefix("_") {
                self = .variable
            } else if reason.hasPrefix("env.") {
                self = .environment
            } else {
                self = .property
            }
        }

        static func < (a: Group, b: Group) -> Bool { a.rawValue < b.rawValue }
    }
}
