import MilieuJSON
import MilieuSwift
import Testing

@testable import MilieuEngine

/// Each seed program, translated from the article's own code, loaded and driven by its
/// interaction, with the article's point asserted in exact reasons, lifecycles and
/// `_printChanges` lines.
@Suite struct SeedTests {
    static let email = "이메일을 입력해 주세요..."

    /// Seed 000: type an email into both login views, flip the toggle: LoginView1's
    /// `@StateObject` keeps it; LoginView2's `@ObservedObject LoginViewModel()` is built again
    /// and its email is empty. The article's fix (`000_08`, one `@StateObject` in ContainerView
    /// passed down) keeps both.
    @Test func seed000TheToggleEmptiesOnlyTheObservedObjectsEmail() throws {
        let program = try LoadedProgram([try Seeds.file("000_00")])
        #expect(program.translation.roots == ["/App/ContainerView"])
        #expect(program.translation.typeNames == ["LoginViewModel"])
        #expect(
            program.mount.mounts == [
                "/App/ContainerView": "mounted", "/App/ContainerView/LoginView1": "mounted", "/App/ContainerView/LoginView2": "mounted",
            ])
        for view in ["LoginView1", "LoginView2"] {
            let typed = try program.input("/App/ContainerView/\(view)", Self.email, "kim@example.com")
            #expect(typed.updates == ["/App/ContainerView/\(view)": ["_loginVM"]])
        }
        let flipped = try program.input("/App/ContainerView", "토글해봅시다", true)
        #expect(flipped.updates == ["/App/ContainerView": ["_toggle"], "/App/ContainerView/LoginView2": ["@self"]])
        #expect(flipped.created.map(\.reason) == ["construct"] && flipped.destroyed.map(\.reason) == ["replaced"])
        #expect(try program.get("/App/ContainerView/LoginView1.loginVM.email") == "kim@example.com")
        #expect(try program.get("/App/ContainerView/LoginView2.loginVM.email") == "")
        // The source's LoginViewModel is the one loaded, not the built-in of the same name.
        #expect(program.graph.registry["LoginViewModel"]?.model.computed.map(\.name) == ["isValidEmail"])

        let fixed = try LoadedProgram([try Seeds.file("000_00"), try Seeds.file("000_08")])
        #expect(fixed.translation.printed.contains { $0.contains("ContainerView replaces the one declared in 000_00.swift") })
        for view in ["LoginView1", "LoginView2"] {
            try fixed.input("/App/ContainerView/\(view)", Self.email, "kim@example.com")
        }
        let toggled = try fixed.input("/App/ContainerView", "토글해봅시다", true)
        #expect(toggled.updates == ["/App/ContainerView": ["_toggle"]])
        #expect(toggled.created.isEmpty)
        for view in ["LoginView1", "LoginView2"] {
            #expect(try fixed.get("/App/ContainerView/\(view).loginVM.email") == "kim@example.com")
        }
    }

    /// Seed 000's login button: disabled until the email is valid; pressing it shows the cover.
    @Test func seed000TheLoginButtonIsDisabledUntilTheEmailIsValid() throws {
        let program = try LoadedProgram([try Seeds.file("000_00")])
        let view = "/App/ContainerView/LoginView1"
        #expect(throws: EngineError.self) { try program.tap(view, "로그인") }
        try program.input(view, Self.email, "kim@example.com")
        let pressed = try program.tap(view, "로그인")
        #expect(pressed.body(of: view)?.last == "kim@example.com")
        #expect(try program.get("\(view).loginVM.isUserLoggedIn") == true)
    }
}
