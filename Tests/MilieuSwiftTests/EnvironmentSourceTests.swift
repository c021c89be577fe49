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
}
