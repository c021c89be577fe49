import MilieuProtocol
import Testing

@testable import milieu

/// Which typed lines carry a secret, and so stay out of the history file (rule 13): the daemon's
/// word first, the path's last member only when it cannot be asked.
@Suite struct SecretLinesTests {
    /// What a daemon would answer: the paths that reach a secret, and the actions by path.
    struct Oracle: SecretOracle {
        var secretPaths: Set<String> = []
        var publicPaths: Set<String> = []
        var actions: [String: ActionDescription] = [:]
        var knownTypes: [TypeDescription] = []

        func reachesSecret(_ path: String) -> Bool? {
            secretPaths.contains(path) ? true : publicPaths.contains(path) ? false : nil
        }

        func action(at path: String) -> ActionDescription? { actions[path] }

        var secureControls: Set<String> = []
        var publicControls: Set<String> = []

        func isSecureControl(view: String, label: String) -> Bool? {
            let key = view + " " + label
            return secureControls.contains(key) ? true : publicControls.contains(key) ? false : nil
        }
    }

    private let asked = SecretLines(
        oracle: Oracle(
            secretPaths: ["/App/Q.pw", "login.password", "session.token"], publicPaths: ["/App/Q.password", "login.email"],
            actions: [
                "/App/Q.vault.setPin": ActionDescription(name: "setPin", params: ["label: string", "pin: string"], secureParams: ["pin"]),
                "session.start": ActionDescription(name: "start", params: ["user: string"]),
            ]))

    @Test func typingIntoASecureFieldIsASecretAndIntoAnyOtherFieldIsNot() {
        let lines = SecretLines(
            oracle: Oracle(secureControls: ["/App/Login Password"], publicControls: ["/App/Login Email", "/App/Login \"Your name\""]))
        #expect(lines.carriesASecret("input /App/Login Password hunter2"))
        #expect(!lines.carriesASecret("input /App/Login Email kim@example.com"))
        #expect(lines.carriesASecret("input /App/Login Unknown x"), "a control the daemon cannot name stays out")
        #expect(
            lines.carriesASecret(
                #"{"jsonrpc":"2.0","id":1,"method":"view/input","params":{"path":"/App/Login","label":"Password","value":"p"}}"#))
        #expect(
            !lines.carriesASecret(
                #"{"jsonrpc":"2.0","id":1,"method":"view/input","params":{"path":"/App/Login","label":"Email","value":"e"}}"#))
        #expect(lines.carriesASecret("input /App/Login Pass word x y"), "a line that does not parse is judged by its command")
    }

    @Test func aWriteThePathsDaemonCallsSecureIsASecret() {
        #expect(asked.carriesASecret(#"set /App/Q.pw "x""#), "a binding to a secure property")
        #expect(asked.carriesASecret(#"set login.password "x""#))
        #expect(!asked.carriesASecret(#"set /App/Q.password "x""#), "the daemon says it is not secure, whatever its name")
        #expect(!asked.carriesASecret(#"set login.email "kim@example.com""#))
        #expect(asked.carriesASecret(#"{"jsonrpc":"2.0","id":1,"method":"graph/set","params":{"path":"session.token","value":"t"}}"#))
        #expect(
            asked.carriesASecret(
                #"[{"jsonrpc":"2.0","id":1,"method":"graph/transaction","params":{"ops":[{"method":"graph/set","params":{"path":"/App/Q.pw","value":"p"}}]}}]"#
            ))
    }

    @Test func aCallThatPassesASecureParameterIsASecret() {
        #expect(asked.carriesASecret(#"call /App/Q.vault.setPin "a" "1234""#))
        #expect(!asked.carriesASecret(#"call /App/Q.vault.setPin "a""#), "the secure argument was not given")
        #expect(!asked.carriesASecret(#"call session.start "kim""#))
        #expect(
            asked.carriesASecret(
                #"{"jsonrpc":"2.0","id":1,"method":"graph/call","params":{"path":"/App/Q.vault.setPin","args":["a","1"]}}"#))
        #expect(
            asked.carriesASecret(
                #"{"jsonrpc":"2.0","id":1,"method":"graph/transaction","params":{"ops":[{"method":"graph/call","params":{"path":"/App/Q.vault.setPin","args":["a","1"]}}]}}"#
            ))
    }

    @Test func aCommandThatDoesNotParseIsJudgedByItsPath() {
        #expect(asked.carriesASecret(#"set /App/Q.pw hunter2 and more"#))
    }

    @Test func withoutADaemonTheLastMemberIsJudgedByTheKnownTypes() {
        let guessed = SecretLines(oracle: Oracle())
        #expect(guessed.carriesASecret(#"set /App/Login.loginVM.password hunter2"#))
        #expect(!guessed.carriesASecret(#"set /App/Row["password"].n 1"#), "an id is not a property name")
        #expect(!guessed.carriesASecret(#"call session.start "kim""#))
        #expect(!guessed.carriesASecret("get login.password"), "reading one shows <secure>, and types nothing secret")
        #expect(!guessed.carriesASecret("tree"))
        #expect(!guessed.carriesASecret("not a command"))
    }
}
