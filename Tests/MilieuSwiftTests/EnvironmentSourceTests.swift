import MilieuJSON
import MilieuSwift
import Testing

@testable import MilieuEngine

/// Swift source whose environment values combine with the ancestors' (#28 item 8): `.disabled`
/// and `@Environment(\.isEnabled)`, `.transformEnvironment`.
@Suite struct EnvironmentSourceTests {
    static let form = Seeds.source(
        "Form.swift",
        """
        import SwiftUI
        struct Form: View {
            @State private var locked = true
            @State private var zoom = 2.0
            var body: some View {
                Toggle("Locked", isOn: $locked)
                Reader().disabled(locked)
                Scaled().transformEnvironment(\\.displayScale) { $0 *= zoom }
                Button("zoom") { zoom = 3.0 }
            }
        }
        struct Reader: View {
            @Environment(\\.isEnabled) private var isEnabled
            var body: some View {
                let _ = Self._printChanges()
                Text(isEnabled ? "on" : "off")
                Button("press") {}
            }
        }
        struct Scaled: View {
            @Environment(\\.displayScale) private var scale
            var body: some View {
                let _ = Self._printChanges()
                Text("\\(scale)")
            }
        }
        #Preview { Form() }
        """)

    @Test func isEnabledUnderDisabledReadsFalseAndFollowsTheCondition() throws {
        let program = try LoadedProgram([Self.form])
        #expect(program.mount.body(of: "/App/Form/Reader") == ["off", #"Button("press")"#])
        #expect(throws: EngineError.self) { try program.tap("/App/Form/Reader", "press") }
        let unlocked = try program.input("/App/Form", "Locked", false)
        #expect(unlocked.printed == ["Reader: _isEnabled changed."])
        #expect(unlocked.body(of: "/App/Form/Reader") == ["on", #"Button("press")"#])
        try program.tap("/App/Form/Reader", "press")
    }

    @Test func transformEnvironmentScalesWhatTheViewInherits() throws {
        let program = try LoadedProgram([Self.form])
        #expect(program.translation.diagnostics.isEmpty, "\(program.translation.printed)")
        #expect(program.mount.body(of: "/App/Form/Scaled") == ["2.0"])
        let zoomed = try program.tap("/App/Form", "zoom")
        #expect(zoomed.printed == ["Scaled: _scale changed."])
        #expect(zoomed.body(of: "/App/Form/Scaled") == ["3.0"])
    }

    /// `@Environment(\.colorScheme) var scheme`: `_printChanges` names the property, `_scheme`,
    /// where Milieu's reason names the key (`env.colorScheme`).
    @Test func anEnvironmentValuesChangePrintsThePropertyName() throws {
        let program = try LoadedProgram([
            Seeds.source(
                "Scheme.swift",
                """
                import SwiftUI
                struct Panel: View {
                    @State private var dark = false
                    var body: some View {
                        Toggle("Dark", isOn: $dark)
                        Reader().environment(\\.colorScheme, dark ? .dark : .light)
                    }
                }
                struct Reader: View {
                    @Environment(\\.colorScheme) private var scheme
                    var body: some View {
                        let _ = Self._printChanges()
                        Text("\\(scheme)")
                    }
                }
                #Preview { Panel() }
                """)
        ])
        let dark = try program.input("/App/Panel", "Dark", true)
        #expect(dark.updates["/App/Panel/Reader"] == ["env.colorScheme"])
        #expect(dark.printed == ["Reader: _scheme changed."])
    }

    /// Two `.environment` values for one key, one around the other: the one nearest the view
    /// wins, as everywhere in SwiftUI's environment (rule 7), on a view and on a container alike.
    @Test func theEnvironmentModifierNearestTheViewWins() throws {
        let program = try LoadedProgram([
            Seeds.source(
                "Nearest.swift",
                """
                import SwiftUI
                struct Screen: View {
                    var body: some View {
                        VStack {
                            Reader().environment(\\.colorScheme, .dark)
                            Reader()
                        }
                        .environment(\\.colorScheme, .light)
                        Reader().environment(\\.colorScheme, .dark).environment(\\.colorScheme, .light)
                    }
                }
                struct Reader: View {
                    @Environment(\\.colorScheme) private var scheme
                    var body: some View { Text("\\(scheme)") }
                }
                #Preview { Screen() }
                """)
        ])
        #expect(program.translation.diagnostics.isEmpty, "\(program.translation.printed)")
        let readers = program.mount.changes.compactMap { change -> [String]? in
            guard case .viewMounted(let view, _, let body, _) = change, view.split(separator: "/").last?.hasPrefix("Reader") == true
            else { return nil }
            return Array(body)
        }
        #expect(readers == [["dark"], ["light"], ["dark"]])
    }

    /// `.environment(\.key, settings.member)` passes the member's value; a member with no base
    /// (`.dark`) or a type's (`ColorScheme.dark`) is an enum case, written by its name.
    @Test func anEnvironmentValueReadFromAVariablesMemberIsItsValue() throws {
        let program = try LoadedProgram([
            Seeds.source(
                "Member.swift",
                """
                import SwiftUI
                struct Settings { var scheme: ColorScheme = .dark }
                struct Screen: View {
                    @State private var settings = Settings()
                    var body: some View {
                        Reader().environment(\\.colorScheme, settings.scheme)
                        Reader().environment(\\.colorScheme, ColorScheme.dark)
                    }
                }
                struct Reader: View {
                    @Environment(\\.colorScheme) private var scheme
                    var body: some View { Text("\\(scheme)") }
                }
                #Preview { Screen() }
                """)
        ])
        let readers = program.mount.changes.compactMap { change -> [String]? in
            guard case .viewMounted(let view, _, let body, _) = change, view.split(separator: "/").last?.hasPrefix("Reader") == true
            else { return nil }
            return Array(body)
        }
        #expect(readers == [["dark"], ["dark"]], "\(program.translation.printed)")
    }
}
