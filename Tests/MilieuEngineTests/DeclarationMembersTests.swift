import MilieuProtocol
import Testing

@testable import MilieuEngine

/// The member names the REPL completes (`DeclarationMembers`) are the grammar's.
@Suite struct DeclarationMembersTests {
    @Test func theViewMembersAreTheGrammars() {
        #expect(Set(DeclarationMembers.view) == ViewDeclaration.keys)
        #expect(DeclarationMembers.view.count == ViewDeclaration.keys.count)
    }
}
