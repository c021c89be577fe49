import Foundation
import MilieuJSON
import MilieuProtocol
import Testing

@testable import MilieuClient

/// The DOT the client draws, read back by Graphviz itself (`dot -Tjson`): its nodes and edges,
/// each with the `class` of its kind, and a rendering to SVG.
@Suite struct GraphvizTests {
    /// What `dot` makes of `source` in `format`; fails the test if it refuses it.
    private func render(_ source: String, as format: String) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dot")
        process.arguments = ["-T" + format]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data(source.utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "dot refused:\n\(source)")
        return data
    }

    /// The nodes (what each stands for → class) and edges (tail, head, class) Graphviz read. A node
    /// stands for its `tooltip`, which `-Tjson` gives as written, an escString.
    private func parsed(_ source: String) throws -> (nodes: [String: String], edges: [[String]]) {
        let json = try JSON(parsing: Array(try render(source, as: "json")))
        let objects = json["objects"]?.arrayValue ?? []
        let names = objects.map { Self.unescaped($0["tooltip"]?.stringValue ?? "") }
        var nodes: [String: String] = [:]
        for (name, object) in zip(names, objects) { nodes[name] = object["class"]?.stringValue ?? "" }
        let edges = (json["edges"]?.arrayValue ?? []).map { edge -> [String] in
            [names[edge["tail"]?.intValue ?? 0], names[edge["head"]?.intValue ?? 0], edge["class"]?.stringValue ?? ""]
        }
        return (nodes, edges)
    }

    /// An escString's text: `\\` is a backslash, `\n` a line break (quotes come unescaped already).
    private static func unescaped(_ text: String) -> String {
        var result = ""
        var escaped = false
        for character in text {
            if escaped {
                result.append(character == "n" ? "\n" : character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                result.append(character)
            }
        }
        return result
    }

    private static func view(
        _ path: String, _ name: String, id: JSON? = nil, state: JSONObject = [:], bindings: [(String, String, JSON?)] = [],
        objects: [(String, HeldObject?)] = [], provides: Provides = Provides(environmentObjects: [:], observables: [:], environment: [:]),
        body: [String] = [], children: [ViewSnapshot] = []
    ) -> ViewSnapshot {
        ViewSnapshot(
            path: path, name: name, id: id, inputs: [:], state: state, bindings: bindings.map { ($0.0, $0.1, $0.2) },
            objects: objects.map { ($0.0, $0.1) }, environment: [:], provides: provides, body: body, retained: false, version: 1,
            evaluations: 2, lastEvaluated: 5, children: children)
    }

    @Test func theTreeShowsViewsObjectsBindingsAndProviders() throws {
        let row = Self.view(
            "/App/Shop/Row[\"a \\\"b\\\"\"]", "Row", id: "a \"b\"", bindings: [("isOn", "/App/Shop.isOn", true)],
            objects: [("cart", HeldObject(object: "Cart#4", type: "Cart", wrapper: "environmentObject"))], body: ["say \"hi\" \\ bye"])
        let shop = Self.view(
            "/App/Shop", "Shop", state: ["isOn": true],
            objects: [("cart", HeldObject(object: "Cart#4", type: "Cart", wrapper: "stateObject"))],
            provides: Provides(environmentObjects: ["Cart": "Cart#4"], observables: [:], environment: [:]), children: [row])
        let app = Self.view("/App", "App", children: [shop])
        let (nodes, edges) = try parsed(Graphviz.tree(app))
        #expect(nodes == ["/App": "view", "/App/Shop": "view", row.path: "view", "Cart#4": "object"])
        #expect(
            Set(edges) == [
                ["/App", "/App/Shop", "child"], ["/App/Shop", row.path, "child"], ["/App/Shop", "Cart#4", "owns"],
                ["/App/Shop", "Cart#4", "provides"], [row.path, "Cart#4", "environment"], ["/App/Shop", row.path, "binding"],
            ])
        #expect(String(decoding: try render(Graphviz.tree(app), as: "svg"), as: UTF8.self).contains("<svg"))
    }

    @Test func anExplanationShowsCauseAttributesViewsAndEffects() throws {
        let explained = GraphExplainRequest.Result(
            version: 7, cause: nil,
            nodes: [
                ExplainNode(
                    id: "cause", kind: .cause,
                    detail: ["method": "graph/set", "connection": 2, "ops": [["method": "graph/set", "path": "login.email"]]]),
                ExplainNode(
                    id: "a0", kind: .attribute, detail: ["attribute": "property", "path": "Login#3.email", "old": "a", "new": "b"]),
                ExplainNode(id: "v0", kind: .view, detail: ["path": "/App/Greeting", "reasons": ["login.email"], "order": 0]),
                ExplainNode(id: "v1", kind: .view, detail: ["path": "/App/Greeting/Child", "reasons": ["@self"], "order": 1]),
                ExplainNode(id: "e0", kind: .effect, detail: ["effect": "objectCreated", "object": "Login#9", "reason": "construct"]),
            ],
            edges: [
                ExplainEdge(from: "cause", to: "a0", kind: .wrote),
                ExplainEdge(from: "a0", to: "v0", kind: .invalidated, reason: "login.email"),
                ExplainEdge(from: "v0", to: "v1", kind: .parent, reason: "@self"), ExplainEdge(from: "v1", to: "e0", kind: .caused),
            ])
        let (nodes, edges) = try parsed(Graphviz.explanation(explained))
        #expect(nodes == ["cause": "cause", "a0": "attribute", "v0": "view", "v1": "view", "e0": "effect"])
        #expect(String(decoding: try render(Graphviz.explanation(explained), as: "svg"), as: UTF8.self).contains("<svg"))
        #expect(edges == [["cause", "a0", "wrote"], ["a0", "v0", "invalidated"], ["v0", "v1", "parent"], ["v1", "e0", "caused"]])
    }

    @Test func anEnvironmentScopeShowsEachObjectAndValueFromItsProvider() throws {
        let scope = EnvironmentScope(
            environmentObjects: [.init(type: "Cart", object: "Cart#4", provider: "/App/Shop")],
            observables: [.init(type: "Login", object: "Login#3", provider: "/App")],
            environment: [
                .init(key: "colorScheme", value: "dark", provider: "/App/Shop"), .init(key: "locale", value: "en_US", provider: nil),
            ])
        let result = ViewEnvironmentRequest.Result(path: "/App/Shop/CartList", scope: scope, version: 3)
        let (nodes, edges) = try parsed(Graphviz.environment(result))
        #expect(nodes["/App/Shop/CartList"] == "view" && nodes["/App/Shop"] == "provider" && nodes["/App"] == "provider")
        #expect(nodes["Cart#4"] == "object" && nodes["Login#3"] == "object" && nodes["defaults"] == "defaults")
        #expect(
            Set(edges) == [
                ["/App/Shop", "Cart#4", "provides"], ["Cart#4", "/App/Shop/CartList", "visible"], ["/App", "Login#3", "provides"],
                ["Login#3", "/App/Shop/CartList", "visible"], ["/App/Shop", "/App/Shop \\.colorScheme", "provides"],
                ["/App/Shop \\.colorScheme", "/App/Shop/CartList", "visible"], ["defaults", "/App/Shop/CartList", "visible"],
            ])
    }
}
