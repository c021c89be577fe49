import MilieuJSON
import MilieuProtocol
import Testing

@testable import MilieuEngine

/// SwiftUI's view language in a body (SPEC §6.3, §6.5, §6.6): views written in a body, `if`,
/// `forEach`, controls that run steps or write through bindings, `.disabled`, sheets, and the
/// line `Self._printChanges()` prints.
@Suite struct ViewLanguageTests {
    /// Seed 000 as the article writes it: a toggle in `ContainerView`, and two login views, the
    /// first holding its model with `@StateObject`, the second constructing it with `@ObservedObject`.
    static func loginView(_ name: String, stateObject: Bool) -> JSON {
        [
            "name": .string(name),
            stateObject ? "stateObjects" : "observedObjects": [
                "loginVM": stateObject ? ["type": "LoginViewModel"] : ["construct": "LoginViewModel"]
            ],
            "printChanges": true,
            "body": [
                ["text": "로그인이 필요해요"],
                ["textField": "이메일을 입력해 주세요...", "text": "loginVM.email"],
                ["secureField": "비밀번호를 입력해 주세요...", "text": "loginVM.password"],
                [
                    "disabled": ["not": ["get": "loginVM.isValidEmail"]],
                    "content": [["button": "로그인", "action": [["call": "loginVM.login"]]]],
                ],
                ["fullScreenCover": "loginVM.isUserLoggedIn", "content": [["text": ["get": "loginVM.email"]]]],
            ],
        ]
    }

    static let container: JSON = [
        "parent": "/App", "name": "ContainerView", "state": ["toggle": false], "printChanges": true,
        "body": [
            ["toggle": "토글해봅시다", "isOn": "toggle"],
            ["view": loginView("LoginView1", stateObject: true)],
            ["view": loginView("LoginView2", stateObject: false)],
        ],
    ]

    @Test func seed000TheToggleKeepsTheStateObjectsEmailAndRebuildsTheObservedOne() throws {
        let graph = try makeGraph()
        let mount = try graph.mount(Self.container).commit
        #expect(
            mount.mounts == [
                "/App/ContainerView": "mounted", "/App/ContainerView/LoginView1": "mounted", "/App/ContainerView/LoginView2": "mounted",
            ])
        #expect(mount.printed["/App/ContainerView"] == "ContainerView: @self, @identity, _toggle changed.")
        #expect(mount.printed["/App/ContainerView/LoginView1"] == "LoginView1: @self, @identity, _loginVM changed.")
        #expect(
            mount.body(of: "/App/ContainerView/LoginView1") == [
                "로그인이 필요해요", "TextField(\"이메일을 입력해 주세요...\")", "SecureField(\"비밀번호를 입력해 주세요...\")",
                "Button(\"로그인\").disabled(true)",
            ])
        for view in ["LoginView1", "LoginView2"] {
            let typed = try graph.input("/App/ContainerView/\(view)", "이메일을 입력해 주세요...", "kim@example.com")
            #expect(typed.updates == ["/App/ContainerView/\(view)": ["_loginVM"]])
            #expect(typed.printed["/App/ContainerView/\(view)"] == "\(view): _loginVM changed.")
            #expect(typed.body(of: "/App/ContainerView/\(view)")?.last == "Button(\"로그인\")")
        }
        let flipped = try graph.input("/App/ContainerView", "토글해봅시다", true)
        // The toggle's binding marks ContainerView's @State read: it re-renders; LoginView2 makes a
        // new LoginViewModel (@self) whose email is empty; LoginView1 keeps its @StateObject.
        #expect(flipped.updates == ["/App/ContainerView": ["_toggle"], "/App/ContainerView/LoginView2": ["@self"]])
        #expect(flipped.printed["/App/ContainerView"] == "ContainerView: _toggle changed.")
        #expect(flipped.printed["/App/ContainerView/LoginView2"] == "LoginView2: @self changed.")
        #expect(try graph.get("/App/ContainerView/LoginView1.loginVM.email").wire == "kim@example.com")
        #expect(try graph.get("/App/ContainerView/LoginView2.loginVM.email").wire == "")
        #expect(flipped.created.map(\.reason) == ["construct"])
        #expect(flipped.destroyed.map(\.reason) == ["replaced"])
    }

    @Test func aDisabledButtonCannotBePressedAndAnEnabledOneRunsItsStepsAsOneTransaction() throws {
        let graph = try makeGraph()
        try graph.mount(Self.container)
        let view = "/App/ContainerView/LoginView1"
        let refused = expectError(.forbidden) { try graph.tap(view, "로그인") }
        #expect(refused?.data["reason"] == "disabled")
        try graph.input(view, "이메일을 입력해 주세요...", "kim@example.com")
        let pressed = try graph.tap(view, "로그인")
        #expect(try graph.get("\(view).loginVM.isUserLoggedIn").wire == true)
        // The cover's content is shown: the body's last line is the cover's Text.
        #expect(pressed.body(of: view)?.last == "kim@example.com")
        let controls = try graph.controls(of: view).controls
        #expect(controls.map(\.kind) == ["textField", "secureField", "button"])
        #expect(controls[0].value == .some("kim@example.com"))
        #expect(controls[1].value == .some(nil), "a secure field's value is never shown")
        expectError(.unknownPath) { try graph.tap(view, "로그아웃") }
        expectError(.invalidParams) { try graph.tap(view, "이메일을 입력해 주세요...") }
        expectError(.invalidParams) { try graph.input(view, "이메일을 입력해 주세요...", 3) }
    }

    @Test func eachBranchOfAnIfIsItsOwnIdentityAndFlippingItResetsItsState() throws {
        let graph = try makeGraph()
        let counter: JSON = ["name": "Counter", "state": ["n": 0], "body": ["{n}"]]
        try graph.mount([
            "parent": "/App", "name": "Screen", "state": ["on": true],
            "body": [["if": ["get": "on"], "then": [["view": counter]], "else": [["view": counter], "off"]]],
        ])
        try graph.set("/App/Screen/Counter.n", 5)
        let flipped = try graph.set("/App/Screen.on", false)
        // The same struct in the other branch is another place: Counter_2, with fresh state.
        #expect(flipped.unmounts == ["/App/Screen/Counter": "condition"])
        #expect(flipped.mounts == ["/App/Screen/Counter_2": "condition"])
        #expect(try graph.get("/App/Screen/Counter_2.n").wire == 0)
        #expect(flipped.body(of: "/App/Screen") == ["off"])
        let back = try graph.set("/App/Screen.on", true)
        #expect(back.mounts == ["/App/Screen/Counter": "condition"])
        #expect(try graph.get("/App/Screen/Counter.n").wire == 0)
        expectError(.forbidden) { try graph.unmount("/App/Screen/Counter") }
    }

    /// A `@StateObject` of a view in a branch goes with the branch, and the branch taken again
    /// makes a new one (rule 3: state belongs to the identity).
    @Test func aStateObjectInABranchGoesWithItAndComesBackNew() throws {
        let graph = try makeGraph()
        try graph.mount([
            "parent": "/App", "name": "Screen", "state": ["on": true],
            "body": [["if": ["get": "on"], "then": [["view": ["name": "Shop", "stateObjects": ["cart": ["type": "Cart"]]]]]]],
        ])
        let first = try #require(graph.get("/App/Screen/Shop.cart").wire["object"])
        let off = try graph.set("/App/Screen.on", false)
        #expect(off.destroyed.map(\.reason) == ["ownerUnmounted"] && off.destroyed.map { JSON.string($0.object) } == [first])
        let on = try graph.set("/App/Screen.on", true)
        #expect(on.created.map(\.reason) == ["stateObject"])
        #expect(try graph.get("/App/Screen/Shop.cart").wire["object"] != first)
    }

    /// `Child(half: x / 2)`: the child is evaluated again only when the value it is passed changes (rule 10).
    @Test func aComputedInputThatComparesEqualPassesNothingNew() throws {
        let graph = try makeGraph()
        try graph.mount([
            "parent": "/App", "name": "P", "state": ["x": 0],
            "body": ["{x}", ["view": ["name": "Half", "inputs": ["half": ["$expr": ["/": [["get": "x"], 2]]]], "body": ["{half}"]]]],
        ])
        #expect(try graph.set("/App/P.x", 1).updates == ["/App/P": ["_x"]], "1 / 2 is 0, as before")
        let two = try graph.set("/App/P.x", 2)
        #expect(two.updates["/App/P/Half"] == ["@self"] && two.body(of: "/App/P/Half") == ["1"])
    }

    @Test func aConditionReadsOnlyWhatItsEvaluationReads() throws {
        let graph = try makeGraph()
        try graph.mount([
            "parent": "/App", "name": "Screen", "state": ["on": false, "name": "kim"],
            "body": [["if": ["and": [["get": "on"], ["==": [["get": "name"], "kim"]]]], "then": ["yes"], "else": ["no"]]],
        ])
        // `and` stops at `on`: `name` was not read, so writing it re-renders nothing.
        #expect(try graph.set("/App/Screen.name", "lee").updates.isEmpty)
        #expect(try graph.set("/App/Screen.on", true).updates == ["/App/Screen": ["_on"]])
    }

    @Test func forEachRowsKeepTheirStateWhenMovedAndGoWithTheirElement() throws {
        let graph = try makeGraph()
        try graph.mount([
            "parent": "/App", "name": "List", "state": ["items": [1, 2, 3]],
            "body": [
                [
                    "forEach": ["get": "items"], "id": "self", "as": "item",
                    "content": [
                        ["text": ["get": "item"]],
                        ["view": ["name": "Row", "inputs": ["n": ["$expr": ["get": "item"]]], "state": ["note": ""]]],
                    ],
                ]
            ],
        ])
        try graph.set("/App/List/Row[2].note", "two")
        let moved = try graph.set("/App/List.items", [3, 2, 1])
        #expect(moved.mounts.isEmpty && moved.unmounts.isEmpty)
        #expect(moved.body(of: "/App/List") == ["3", "2", "1"])
        #expect(try graph.get("/App/List/Row[2].note").wire == "two")
        #expect(try graph.tree("/App/List").children?.map(\.path) == ["/App/List/Row[3]", "/App/List/Row[2]", "/App/List/Row[1]"])
        let changed = try graph.set("/App/List.items", [2, 4])
        #expect(changed.unmounts == ["/App/List/Row[3]": "row", "/App/List/Row[1]": "row"])
        #expect(changed.mounts == ["/App/List/Row[4]": "row"])
        #expect(try graph.get("/App/List/Row[2].note").wire == "two")
        expectError(.invalidDeclaration) { try graph.set("/App/List.items", [5, 5]) }
        #expect(try graph.get("/App/List.items").wire == [2, 4], "a refused body leaves the write undone")
    }

    @Test func aButtonRunsEveryKindOfStepOverTheViewsState() throws {
        let graph = try makeGraph()
        try graph.mount([
            "parent": "/App", "name": "StartView", "state": ["selectedNum": 10, "primes": [2, 3, 5], "on": false],
            "body": [
                ["button": "+", "action": [["set": "selectedNum", "to": ["+": [["get": "selectedNum"], 1]]]]],
                ["button": "flip", "action": [["toggle": "on"]]],
                [
                    "button": "edit",
                    "action": [
                        ["let": "first", "be": ["at": [["get": "primes"], 0]]], ["insert": "primes", "value": 7, "at": 0],
                        ["remove": "primes", "where": ["p", ["==": [["var": "p"], ["get": "first"]]]]], ["append": "primes", "value": 11],
                    ],
                ],
                ["text": ["cat": ["num: ", ["get": "selectedNum"]]]],
            ],
        ])
        let plus = try graph.tap("/App/StartView", "+")
        #expect(plus.body(of: "/App/StartView")?.last == "num: 11")
        try graph.tap("/App/StartView", "flip")
        #expect(try graph.get("/App/StartView.on").wire == true)
        try graph.tap("/App/StartView", "edit")
        #expect(try graph.get("/App/StartView.primes").wire == [7, 3, 5, 11])
    }

    @Test func aViewCanReplaceTheObjectItsStateHolds() throws {
        let graph = try makeGraph()
        try graph.mount([
            "parent": "/App", "name": "Screen", "state": ["vm": ["$new": ["type": "NewObservable"]]],
            "body": [
                ["text": ["get": "vm.count"]],
                ["button": "reset", "action": [["set": "vm", "to": ["new": ["type": "NewObservable", "init": ["count": 9]]]]]],
            ],
        ])
        let replaced = try graph.tap("/App/Screen", "reset")
        #expect(replaced.updates == ["/App/Screen": ["_vm"]])
        #expect(replaced.body(of: "/App/Screen")?.first == "9")
        #expect(replaced.destroyed.map(\.reason) == ["replaced"])
    }

    @Test func aNavigationLinkShowsItsDestinationWithoutReRenderingThePresenter() throws {
        let graph = try makeGraph()
        try graph.mount([
            "parent": "/App", "name": "ContentView", "stateObjects": ["state": ["type": "AppState"]],
            "body": [
                [
                    "navigationLink": "Counter demo",
                    "destination": [
                        ["view": ["name": "CounterView", "observedObjects": ["state": ["$parent": "state"]], "body": ["{state.count}"]]]
                    ],
                ]
            ],
        ])
        let pushed = try graph.tap("/App/ContentView", "Counter demo")
        #expect(pushed.mounts == ["/App/ContentView/CounterView": "presented"])
        #expect(pushed.updates.isEmpty)
        let popped = try graph.tap("/App/ContentView", "Counter demo")
        #expect(popped.unmounts == ["/App/ContentView/CounterView": "dismissed"])
    }

    @Test func aControlInsideDisabledContentIsOffAndAnInnerDisabledFalseCannotTurnItOn() throws {
        let graph = try makeGraph()
        try graph.mount([
            "parent": "/App", "name": "Form", "state": ["locked": true, "n": 0],
            "body": [
                [
                    "disabled": ["get": "locked"],
                    "content": [
                        ["disabled": false, "content": [["button": "+", "action": [["set": "n", "to": 1]]]]],
                        ["view": ["name": "Inner", "state": ["m": 0], "body": [["button": "inc", "action": [["set": "m", "to": 1]]]]]],
                    ],
                ]
            ],
        ])
        expectError(.forbidden) { try graph.tap("/App/Form", "+") }
        expectError(.forbidden) { try graph.tap("/App/Form/Inner", "inc") }
        #expect(try graph.controls(of: "/App/Form/Inner").controls.map(\.disabled) == [true])
        try graph.set("/App/Form.locked", false)
        try graph.tap("/App/Form", "+")
        try graph.tap("/App/Form/Inner", "inc")
        #expect(try graph.get("/App/Form/Inner.m").wire == 1)
    }

    @Test func badBodiesAreRefusedWithTheElementNamed() throws {
        let graph = try makeGraph()
        let cases: [(JSON, String)] = [
            ([["iff": true]], "body.0"),
            ([["text": ["get": "missing"]]], "body.0.text.get"),
            ([["button": "x", "action": [["set": "title", "to": 1]]]], "body.0.action.0.set"),
            ([["toggle": "x", "isOn": "title"]], "body.0.isOn"),
            ([["forEach": ["get": "title"], "id": 3, "content": []]], "body.0.id"),
        ]
        for (body, field) in cases {
            let error = expectError(.invalidDeclaration) {
                try graph.mount(["parent": "/App", "name": "V", "inputs": ["title": "t"], "body": body])
            }
            #expect(error?.data["field"] == .string(field), "\(body.jsonText)")
        }
    }
}

extension Graph {
    @discardableResult
    func tap(_ view: String, _ label: String) throws -> Commit { try apply(.tap(view: view, label: label)).commit }

    @discardableResult
    func input(_ view: String, _ label: String, _ value: JSON) throws -> Commit {
        try apply(.input(view: view, label: label, value: value)).commit
    }
}

extension Commit {
    /// What each view's `_printChanges()` printed, by path.
    var printed: [String: String] {
        var result: [String: String] = [:]
        for change in changes {
            switch change {
            case .viewUpdated(let view, _, _, let line?), .viewMounted(let view, _, _, let line?): result[view] = line
            default: continue
            }
        }
        return result
    }

    var mounts: [String: String] {
        var result: [String: String] = [:]
        for case .viewMounted(let view, let reason, _, _) in changes { result[view] = reason.rawValue }
        return result
    }

    var unmounts: [String: String] {
        var result: [String: String] = [:]
        for case .viewUnmounted(let view, let reason) in changes { result[view] = reason.rawValue }
        return result
    }
}
