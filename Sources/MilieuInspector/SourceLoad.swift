import MilieuJSON
import MilieuProtocol
import MilieuSwift

/// SwiftUI source the page loads (`POST /load`, the file's text as the body), as `milieu load
/// --replace FILE.swift` would: translated here, then the requests milieud gets, in order — each
/// root the source mounts unmounted when it is there (the edit-and-reload loop), its types
/// registered in the place of any of the same name, its views mounted, retained, in one
/// transaction. Sans-I/O: the server sends `requests` together and hands back their answers.
struct SourceLoad {
    /// The name the page's source has in diagnostics.
    static let fileName = "pasted.swift"
    /// At most what a request's line holds besides its params: the JSON-RPC envelope, the id and
    /// the method's name.
    static let envelopeBytes = 128

    /// One request for milieud: its method and params as one line of JSON text, and whether an
    /// `UnknownPath` answer is expected (the root was not mounted) rather than a failure.
    struct Request {
        let method: String
        let paramsText: [UInt8]
        let unknownPathIsFine: Bool

        init(_ method: some RPCMethod, unknownPathIsFine: Bool = false) {
            self.method = type(of: method).name
            paramsText = Array(JSON.object(method.params).jsonText.utf8)
            self.unknownPathIsFine = unknownPathIsFine
        }
    }

    let translation: Translation
    let requests: [Request]

    /// Translates `source`; throws the answer for the page when it cannot be loaded (not UTF-8,
    /// or the translation has errors).
    init(source: [UInt8]) throws(Refusal) {
        guard let text = String(validating: source, as: UTF8.self) else {
            throw Refusal(error: "the source is not UTF-8 text", diagnostics: [])
        }
        translation = SwiftTranslator.translate([SourceFile(name: Self.fileName, text: text)])
        guard !translation.hasErrors else {
            throw Refusal(error: "the source cannot be loaded", diagnostics: translation.diagnostics)
        }
        let scene: SceneFile
        do {
            scene = try SceneFile(json: translation.scene)
        } catch {
            throw Refusal(error: "the scene translated from the source is not valid: \(error.reason)", diagnostics: translation.diagnostics)
        }
        var requests = scene.roots.map { root in Request(ViewUnmountRequest(path: root), unknownPathIsFine: true) }
        if let registration = scene.registration { requests.append(Request(registration)) }
        if let mount = scene.mount { requests.append(Request(mount)) }
        self.requests = requests
    }

    /// A source the page cannot load: why, with the translation's diagnostics.
    struct Refusal: Error {
        let error: String
        let diagnostics: [SourceDiagnostic]

        var answer: String {
            JSON.object(["error": .string(error), "diagnostics": SourceLoad.wire(diagnostics)]).jsonText
        }
    }

    /// The refusal when a request would be a line longer than milieud reads (`lineLimit`).
    func refusal(lineLimit: Int) -> Refusal? {
        guard let long = requests.first(where: { $0.paramsText.count + Self.envelopeBytes > lineLimit }) else { return nil }
        return Refusal(
            error: "the \(long.method) request the source makes would pass milieud's line limit of \(lineLimit) bytes",
            diagnostics: translation.diagnostics)
    }

    /// What the page gets once milieud answered every request (in `requests`' order): the types
    /// registered, the views mounted and the version, or the first error; the diagnostics either way.
    func answer(_ responses: [JSONObject]) -> (ok: Bool, text: String) {
        var registered: [JSON] = []
        var mounted: [JSON] = []
        var version = JSON.null
        for (request, response) in zip(requests, responses) {
            if let error = response["error"] {
                if request.unknownPathIsFine, error["data"]?["kind"]?.stringValue == ErrorKind.unknownPath.rawValue { continue }
                let answer: JSON = ["error": error, "method": .string(request.method), "diagnostics": Self.wire(translation.diagnostics)]
                return (false, answer.jsonText)
            }
            let result = response["result"] ?? .null
            switch request.method {
            case SchemaRegisterRequest.name: registered = result["types"]?.arrayValue ?? []
            case GraphTransactionRequest.name:
                mounted = (result["results"]?.arrayValue ?? []).compactMap { $0["path"] }
                version = result["version"] ?? .null
            default: break
            }
        }
        let answer: JSON = [
            "types": .array(registered), "views": .array(mounted), "version": version, "diagnostics": Self.wire(translation.diagnostics),
        ]
        return (true, answer.jsonText)
    }

    private static func wire(_ diagnostics: [SourceDiagnostic]) -> JSON {
        .array(
            diagnostics.map { diagnostic in
                [
                    "line": .int(diagnostic.line), "column": .int(diagnostic.column), "severity": .string(diagnostic.severity.rawValue),
                    "message": .string(diagnostic.message), "text": .string(diagnostic.description),
                ]
            })
    }
}
