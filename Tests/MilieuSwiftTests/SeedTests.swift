import Foundation
import MilieuJSON
import MilieuProtocol
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

    /// Seed 001, case 1: `@ObservedObject private var viewModel` made in `init(num:)`: every `+`
    /// re-renders StartView, which inits ContentView again, which makes a new ViewModel (@self).
    @Test func seed001AnObservedObjectMadeInInitIsNewAtEveryParentRender() throws {
        let program = try LoadedProgram([try Seeds.file("001_00")])
        #expect(program.translation.roots == ["/App/StartView"])
        let plus = try program.tap("/App/StartView", "+")
        #expect(plus.updates == ["/App/StartView": ["_selectedNum"], "/App/StartView/ContentView": ["@self"]])
        #expect(plus.created.map(\.reason) == ["construct"] && plus.destroyed.map(\.reason) == ["replaced"])
        #expect(plus.body(of: "/App/StartView/ContentView") == ["View2", "num: 11"])
        try program.tap("/App/StartView", "refreshable")
        #expect(try program.get("/App/StartView/ContentView.viewModel.num") == 20)
    }

    /// Seed 001, cases 2 and 3: `_viewModel = StateObject(wrappedValue: ViewModel(num: num))` takes
    /// effect once per identity (the new num is ignored, and said so); `let viewModel = …` first
    /// makes one at every init and throws it away; `.id(selectedNum)` makes a new identity.
    @Test func seed001AStateObjectInitializerTakesEffectOncePerIdentity() throws {
        let annotation = [("  << 변경", "")]
        let once = try LoadedProgram([try Seeds.file("001_00"), try Seeds.edited("001_01", annotation)])
        let plus = try once.tap("/App/StartView", "+")
        #expect(plus.updates == ["/App/StartView": ["_selectedNum"]], "ContentView stores only its @StateObject: no @self")
        #expect(plus.diagnosticKinds == ["StateObjectInitIgnored"] && plus.created.isEmpty)
        #expect(try once.get("/App/StartView/ContentView.viewModel.num") == 10)

        let eager = try LoadedProgram([try Seeds.file("001_00"), try Seeds.edited("001_02", annotation)])
        let made = try eager.tap("/App/StartView", "+")
        #expect(made.created.map(\.reason) == ["stateInitial"] && made.destroyed.map(\.reason) == ["discarded"])
        #expect(try eager.get("/App/StartView/ContentView.viewModel.num") == 10)

        // 001_04 elides StartView's other buttons (`...`): the reader writes the + button back.
        let plusButton = """
            Button {
                                selectedNum += 1
                            } label: {
                                Text("+")
                            }
            """
        let identified = try LoadedProgram([
            try Seeds.file("001_00"), try Seeds.edited("001_04", [(" << id추가", ""), ("...", plusButton)]),
        ])
        let renewed = try identified.tap("/App/StartView", "+")
        #expect(renewed.unmounts == ["/App/StartView/ContentView[10]": "identity"])
        #expect(renewed.mounts == ["/App/StartView/ContentView[11]": "identity"])
        #expect(try identified.get("/App/StartView/ContentView[11].viewModel.num") == 11)
    }

    /// Seed 002: the article's code provides no object, so it fails as SwiftUI traps, with
    /// SwiftUI's message; with a preview that provides one, `+` in OriginalSubView1 re-renders both
    /// ObservableObject subviews (`_vm`), and in NewSubview1 only NewSubview1 (`@dependencies`).
    @Test func seed002ObservableObjectReRendersEveryHolderAndObservationOnlyTheReader() throws {
        let asWritten = SwiftTranslator.translate([try Seeds.file("002_00"), try Seeds.file("002_01")])
        #expect(!asWritten.hasErrors && asWritten.roots == ["/App/ContentView"])
        let refused = try LoadedProgram.mountRefusal(asWritten)
        #expect(refused?.kind == .environmentObjectMissing)
        #expect(refused?.message.hasPrefix("No ObservableObject of type OriginalObservable found.") == true)

        let original = try LoadedProgram([
            try Seeds.file("002_00"), try Seeds.file("002_01"),
            Seeds.source("Preview.swift", "#Preview {\n    ContentView()\n        .environmentObject(OriginalObservable())\n}\n"),
        ])
        let view = "/App/Preview/ContentView"
        #expect(original.mount.printed.contains("OriginalSubView1: @self, @identity, _vm changed."))
        let added = try original.tap("\(view)/OriginalSubView1", "+")
        #expect(added.updates == ["\(view)/OriginalSubView1": ["_vm"], "\(view)/OriginalSubView2": ["_vm"]])
        #expect(added.printed == ["OriginalSubView1: _vm changed.", "OriginalSubView2: _vm changed."])
        #expect(added.body(of: "\(view)/OriginalSubView1")?.first == "1")

        let observation = try LoadedProgram([
            try Seeds.file("002_02"),
            Seeds.source("Preview.swift", "#Preview {\n    ContentView()\n        .environment(NewObservable())\n}\n"),
        ])
        let tapped = try observation.tap("\(view)/NewSubview1", "+")
        #expect(tapped.updates == ["\(view)/NewSubview1": ["vm.count"]])
        #expect(tapped.printed == ["NewSubview1: @dependencies changed."])
    }

    /// Seed 003: one AppState passed down; the counter, the prime modal and the favourite primes.
    @Test func seed003TheCounterThePrimeModalAndTheFavourites() throws {
        let files = try ["003_00", "003_01", "003_02", "003_03", "003_04"].map(Seeds.file)
        let program = try LoadedProgram(files + [Seeds.source("Preview.swift", "#Preview {\n    ContentView(state: AppState())\n}\n")])
        let content = "/App/Preview/ContentView"
        let counter = "\(content)/CounterView"
        #expect(try program.tap(content, "Counter demo").mounts == [counter: "presented"])
        for _ in 0..<2 { try program.tap(counter, "+") }
        let modal = try program.tap(counter, "Is this prime?")
        #expect(modal.mounts == ["\(counter)/IsPrimeModalView": "presented"])
        #expect(modal.body(of: "\(counter)/IsPrimeModalView") == ["2 is prime😻", "Button(\"Save to favorite primes\")"])
        let saved = try program.tap("\(counter)/IsPrimeModalView", "Save to favorite primes")
        #expect(saved.body(of: "\(counter)/IsPrimeModalView") == ["2 is prime😻", "Button(\"Remove to/from favorite primes\")"])
        #expect(try program.get("\(content).state.favoritePrimes") == [2])
        #expect(try program.get("\(content).state.activityFeed.0.type") == ["addedFavoritePrime": 2])
        let favourites = try program.tap(content, "Favorite primes")
        #expect(favourites.body(of: "\(content)/FavoritePrimesView") == ["2"])
        // What the article leaves out (ordinal, nthPrime, isPrime) is named.
        let printed = program.translation.printed.joined(separator: "\n")
        #expect(printed.contains("ordinal(…), which the source does not declare"))
        #expect(printed.contains("the call of nthPrime, which the source does not declare"))
        #expect(printed.contains("isPrime is not declared in the source"))
    }

    /// Seed 004: a @Binding writes its parent's @State; the cart's and the app's blocks elide code.
    @Test func seed004TheBindingWritesTheParentsState() throws {
        let program = try LoadedProgram([try Seeds.file("004_00")])
        let flipped = try program.input("/App/ParentView/ToggleRow", "스위치", true)
        #expect(flipped.updates == ["/App/ParentView": ["_isOn"], "/App/ParentView/ToggleRow": ["@self", "_isOn"]])
        #expect(flipped.body(of: "/App/ParentView") == ["켜짐"])
        for name in ["004_02", "004_03"] {
            let translation = SwiftTranslator.translate([try Seeds.file(name)])
            #expect(translation.printed.contains { $0.contains("error: code is left out here (...)") }, "\(name)")
        }
    }

    /// Seed 004's cart: `CartScreen` owns a `CartModel` with `@StateObject` and passes it to
    /// `CartList`'s `@ObservedObject`. The article elides `Item` and `CartList`'s body (`...`);
    /// filled in as a reader would, adding an item re-renders both holders: an
    /// `ObservableObject`'s `objectWillChange` reaches every view that holds it, the owner too,
    /// though it reads nothing of the cart (seed 002's point).
    @Test func seed004TheCartOwnedAboveAndObservedBelow() throws {
        let list = """
                List(cart.items) { item in Text(item.name) }
                Button("Add") { cart.add(Item(id: cart.items.count, name: "Apple")) }
            }
            """
        let program = try LoadedProgram([
            try Seeds.file("004_01"),
            try Seeds.edited("004_02", [("    ...\n}", "    var body: some View {\n        VStack {\n" + list + "\n    }\n}")]),
            Seeds.source("Item.swift", "struct Item: Identifiable, Equatable { let id: Int; let name: String }\n"),
            Seeds.source("Preview.swift", "#Preview { CartScreen() }\n"),
        ])
        let screen = "/App/CartScreen"
        #expect(program.mount.mounts == [screen: "mounted", "\(screen)/CartList": "mounted"])
        let added = try program.tap("\(screen)/CartList", "Add")
        #expect(added.updates == [screen: ["_cart"], "\(screen)/CartList": ["_cart"]])
        #expect(added.body(of: "\(screen)/CartList") == ["Apple", "Button(\"Add\")"])
        try program.tap("\(screen)/CartList", "Add")
        #expect(try program.get("\(screen).cart.items") == [["id": 0, "name": "Apple"], ["id": 1, "name": "Apple"]])
        // Both hold one object: the list borrows the screen's.
        #expect(try program.get("\(screen)/CartList.cart") == program.get("\(screen).cart"))
    }

    /// Seed 004's app: `MyApp` injects `SessionModel` once, at the root, and a view two levels
    /// down reads it with `@EnvironmentObject` and no one in between passing it. Without the
    /// injection, SwiftUI traps: so does the mount, with SwiftUI's message.
    @Test func seed004DeepInjectionReachesTheDeepChildAndItsAbsenceTraps() throws {
        let session = "final class SessionModel: ObservableObject { @Published var user = \"guest\" }\n"
        let views = """
            struct RootView: View { var body: some View { MiddleView() } }
            struct MiddleView: View { var body: some View { DeepChildView() } }

            """
        let deep = try Seeds.edited(
            "004_03",
            [
                (
                    "    ...\n}",
                    "    var body: some View {\n        Text(session.user)\n        Button(\"Sign in\") { session.user = \"kim\" }\n    }\n}"
                )
            ])
        let program = try LoadedProgram([deep, Seeds.source("Session.swift", session + views)])
        let child = "/App/MyApp/RootView/MiddleView/DeepChildView"
        #expect(program.mount.body(of: child) == ["guest", "Button(\"Sign in\")"])
        let signedIn = try program.tap(child, "Sign in")
        // The reader re-renders, and MyApp, which owns the session with @StateObject (an App's
        // body is evaluated again when its objects change); RootView and MiddleView, which never
        // mention the session and take no inputs, do not.
        #expect(signedIn.updates == [child: ["_session"], "/App/MyApp": ["_session"]])
        #expect(signedIn.body(of: child)?.first == "kim")

        let forgotten = SwiftTranslator.translate([
            try Seeds.edited(
                "004_03",
                [
                    ("RootView().environmentObject(session)", "RootView()"),
                    ("    ...\n}", "    var body: some View { Text(session.user) }\n}"),
                ]),
            Seeds.source("Session.swift", session + views),
        ])
        #expect(!forgotten.hasErrors, "\(forgotten.printed)")
        let refused = try LoadedProgram.mountRefusal(forgotten)
        #expect(refused?.kind == .environmentObjectMissing)
        #expect(refused?.message.hasPrefix("No ObservableObject of type SessionModel found.") == true)
        #expect(refused?.data["view"] == "/App/MyApp/RootView/MiddleView/DeepChildView")
    }

    /// Every block translates, or names exactly what its article leaves out.
    @Test func everySeedBlockTranslatesOrNamesWhatIsMissing() throws {
        let expectedErrors: [String: [String]] = [
            "000_08": ["LoginViewModel is not declared in the source"],
            "001_01": ["expected '>' to end generic argument clause"],
            "001_02": ["@StateObject viewModel is never made"],
            "001_04": ["code is left out here (...)"],
            "003_01": ["ContentView(…) does not pass the @ObservedObject state"],
            "003_02": ["CounterView(…) does not pass the @ObservedObject state"],
            "003_03": ["IsPrimeModalView(…) does not pass the @ObservedObject state"],
            "003_04": ["FavoritePrimesView(…) does not pass the @ObservedObject state"],
            "004_02": ["code is left out here (...)", "CartModel is not declared in the source"],
            "004_03": ["code is left out here (...)", "SessionModel is not declared in the source"],
        ]
        let names = try FileManager.default.contentsOfDirectory(atPath: Seeds.directory.path).filter { $0.hasSuffix(".swift") }
        #expect(names.count == 26)
        for name in names.sorted().map({ String($0.dropLast(6)) }) {
            let translation = SwiftTranslator.translate([try Seeds.file(name)])
            let errors = translation.diagnostics.filter { $0.severity == .error }.map(\.message)
            let expected = expectedErrors[name] ?? []
            #expect(translation.hasErrors == !expected.isEmpty, "\(name): \(errors)")
            for message in expected { #expect(errors.contains { $0.contains(message) }, "\(name) names \(message): \(errors)") }
        }
    }
}
