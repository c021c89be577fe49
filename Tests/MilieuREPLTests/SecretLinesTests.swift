import MilieuProtocol
import Testing

@testable import milieu

/// Which typed lines write a secret, and so stay out of the history file (rule 13).
@Suite struct SecretLinesTests {
    private let lines = SecretLines(
        types: [
            TypeDescription(
                name: "Vault", style: "observable", builtIn: false,
                properties: [
                    PropertyDescription(
                        name: "pin", type: "string", computed: false, secure: true, published: nil, defaultValue: nil,
                        constraints: Constraints())
                ], actions: [])
        ])

    @Test func aWriteOfASecurePropertyIsASecret() {
        #expect(lines.writesASecret(#"set login.password "x""#))
        #expect(lines.writesASecret("set /App/Login.loginVM.password hunter2"))
        #expect(lines.writesASecret(#"set /App/V.vault.pin "1234""#), "a declared secure property")
        #expect(lines.writesASecret(#"{"jsonrpc":"2.0","id":1,"method":"graph/set","params":{"path":"session.token","value":"t"}}"#))
        #expect(
            lines.writesASecret(
                #"{"jsonrpc":"2.0","id":1,"method":"graph/transaction","params":{"ops":[{"method":"graph/set","params":{"path":"login.password","value":"p"}}]}}"#
            ))
    }

    @Test func everythingElseIsKept() {
        #expect(!lines.writesASecret(#"set login.email "kim@example.com""#))
        #expect(!lines.writesASecret("get login.password"), "reading one shows <secure>, and types nothing secret")
        #expect(!lines.writesASecret(#"set /App/Row["password"].n 1"#), "an id is not a property name")
        #expect(!lines.writesASecret("tree"))
        #expect(!lines.writesASecret("not a command"))
    }
}
