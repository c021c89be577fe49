import MilieuJSON
import MilieuProtocol

/// The keys of `EnvironmentValues` a view can read or provide, each with its type and its
/// default (rule 21): SwiftUI's built-in keys, and custom keys declared as an
/// `EnvironmentKey` with its `defaultValue` would be. A key nobody declared does not exist.
public struct EnvironmentKeys: Sendable {
    private var keys: [String: StoredProperty]
    /// The declared keys' patterns, compiled once and held while the keys are (`WholeMatch`).
    private var patterns: [DeclaredPattern] = []

    /// SwiftUI's defaults for the built-in keys Milieu knows. Where SwiftUI takes a default from
    /// the device (`locale`, `timeZone`, `calendar`, `displayScale`), Milieu fixes one so that every
    /// run gives the same answer.
    public static let builtIn: [StoredProperty] = [
        StoredProperty("colorScheme", .string, default: "light", validation: Constraints(oneOf: ["light", "dark"])),
        StoredProperty(
            "colorSchemeContrast", .string, default: "standard", validation: Constraints(oneOf: ["standard", "increased"])),
        StoredProperty(
            "layoutDirection", .string, default: "leftToRight", validation: Constraints(oneOf: ["leftToRight", "rightToLeft"])),
        StoredProperty(
            "dynamicTypeSize", .string, default: "large",
            validation: Constraints(oneOf: [
                "xSmall", "small", "medium", "large", "xLarge", "xxLarge", "xxxLarge", "accessibility1", "accessibility2",
                "accessibility3", "accessibility4", "accessibility5",
            ])),
        StoredProperty("isEnabled", .bool, default: true),
        StoredProperty("locale", .string, default: "en_US"),
        StoredProperty("calendar", .string, default: "gregorian"),
        StoredProperty("timeZone", .string, default: "UTC"),
        StoredProperty("displayScale", .double, default: 1.0, validation: Constraints(min: 0)),
        StoredProperty("scenePhase", .string, default: "active", validation: Constraints(oneOf: ["active", "inactive", "background"])),
        StoredProperty("accessibilityReduceMotion", .bool, default: false),
        StoredProperty("accessibilityReduceTransparency", .bool, default: false),
        StoredProperty("accessibilityDifferentiateWithoutColor", .bool, default: false),
        StoredProperty("accessibilityInvertColors", .bool, default: false),
    ]

    init() { keys = Dictionary(uniqueKeysWithValues: Self.builtIn.map { ($0.name, $0) }) }

    subscript(key: String) -> StoredProperty? { keys[key] }

    /// Every key, built-in and declared, by name.
    public var all: [StoredProperty] { keys.values.sorted { $0.name < $1.name } }

    /// Declares custom keys, all or none: `{"tone": {"type": "string", "default": "warm"}}`, each
    /// spec as a stored property's (a key's value is shown to every view, so it cannot be secure).
    /// Declaring a key again the same way is no change; another way is refused.
    mutating func declare(_ declarations: JSONObject, pointer: String) throws(EngineError) -> [String] {
        var declared = keys
        var names: [String] = []
        var patterns: [DeclaredPattern] = []
        for (name, spec) in declarations {
            guard isIdentifier(name) else { throw .invalidParams(pointer: "\(pointer)/\(name)", "a key is an identifier") }
            if case .object(let object) = spec, object["secure"] != nil {
                throw .invalidParams(
                    pointer: "\(pointer)/\(name)/secure", "an environment value is seen by every view: it cannot be secure")
            }
            let property = try StoredProperty(name, declaration: spec)
            guard !Self.builtIn.contains(where: { $0.name == name }) else {
                throw .invalidDeclaration(
                    field: "environmentKeys.\(name)", reason: "\(name) is a built-in key, with SwiftUI's type and default")
            }
            guard property.type.referencedType == nil else {
                throw .invalidDeclaration(
                    field: "environmentKeys.\(name).type",
                    reason: "an environment key holds a value; an object goes in the environment with provide.observables")
            }
            let pattern = try property.checkConstraints(field: "environmentKeys.\(name)")
            if let existing = declared[name] {
                guard existing.type == property.type, existing.defaultValue == property.defaultValue,
                    existing.validation == property.validation
                else {
                    throw .invalidDeclaration(
                        field: "environmentKeys.\(name)",
                        reason:
                            "\(name) is already declared as \(existing.type) with default \(existing.defaultValue.jsonText)"
                            + " and its constraints; declare it the same way, or use another key")
                }
                continue
            }
            declared[name] = property
            names.append(name)
            if let pattern { patterns.append(pattern) }
        }
        keys = declared
        self.patterns += patterns
        return names
    }
}
