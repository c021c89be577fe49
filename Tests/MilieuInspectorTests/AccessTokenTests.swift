import Testing

@testable import MilieuInspector

@Suite struct AccessTokenTests {
    @Test func tokensAre48HexDigitsAndDifferEachTime() {
        let tokens = (0..<20).map { _ in AccessToken().text }
        #expect(Set(tokens).count == tokens.count)
        for token in tokens {
            #expect(token.utf8.count == 48)
            #expect(token.allSatisfy { $0.isHexDigit })
        }
    }

    @Test func onlyTheTokenItselfMatches() {
        let token = AccessToken(text: "0123456789abcdef")
        #expect(token.matches("0123456789abcdef"))
        #expect(!token.matches(nil))
        #expect(!token.matches(""))
        #expect(!token.matches("0123456789abcdeF"))
        #expect(!token.matches("1123456789abcdef"))
        #expect(!token.matches("0123456789abcde"))
        #expect(!token.matches("0123456789abcdef0"))
    }
}
