import MilieuProtocol
import Testing

@testable import milieu

/// Issue #30, item 10: Tab inside `mount {…}` and `provide {…}` completes member names, wrapper
/// fields and type names.
@Suite struct JSONCompletionTests {
    private func texts(_ before: String, _ word: String, provide: Bool = false) -> [String] {
        JSONCompletion.candidates(before: before, word: word, provideChanges: provide) { ["Cart", "Login", "LoginViewModel"] }.map(\.text)
    }

    @Test func aDeclarationsMembersAtTheTopAndInsideItsWrappers() {
        #expect(texts("", #"{"na"#) == [#"{"name":"#])
        #expect(texts(#"{"parent": "/App","#, #""st"#) == [#""state":"#, #""stateTypes":"#, #""stateObjects":"#])
        #expect(texts(#"{"parent": "/App", "stateObjects": {"vm": {"#, #""t"#) == [#""type":"#])
        #expect(texts(#"{"provide": {"#, #""env"#) == [#""environmentObjects":"#, #""environment":"#])
        #expect(texts(#"{"environment": {"s": {"#, #""k"#) == [#""key":"#])
        #expect(texts("", #"{"provide": {"obs"#).isEmpty, "a word glued across a key is not completed")
    }

    @Test func typeNamesWhereATypeGoes() {
        #expect(texts(#"{"stateObjects": {"vm": {"type":"#, #""Log"#) == [#""Login""#, #""LoginViewModel""#])
        #expect(texts(#"{"environmentObjects": {"cart":"#, #""C"#) == [#""Cart""#])
        #expect(texts(#"{"name":"#, #""C"#).isEmpty, "a view's name is the user's own")
    }

    @Test func theUsersOwnNamesAndBodiesAreLeftAlone() {
        #expect(texts(#"{"state": {"#, #""c"#).isEmpty)
        #expect(texts(#"{"body": ["#, #""n"#).isEmpty)
        #expect(texts(#"{"name": "a,b", "#, #""re"#) == [#""retain":"#], "a comma in a string is not a separator")
    }

    @Test func provideTakesItsChangesAtTheTop() {
        #expect(texts("", #"{"w"#, provide: true) == [#"{"withdraw":"#])
        #expect(texts("", #"{"na"#, provide: true).isEmpty)
    }
}
