import MilieuEngine
import MilieuJSON
import MilieuProtocol

/// libFuzzer's entry point: bytes as they would arrive on a connection go through the framer,
/// the JSON-RPC envelope checks, the method registry and, for mounts and writes, the engine.
/// Any crash, or an error reply that is not valid JSON, is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var framer = LineFramer(maxLineBytes: 4096)
    framer.feed(UnsafeRawBufferPointer(start: start, count: count)) { frame in
        guard case .line(let line) = frame else { return }
        switch IncomingMessage.parse(line) {
        case .failure(let error): check(Envelope.errorLine(id: .null, error))
        case .success(.single(let message)): handle(message)
        case .success(.batch(let messages)): messages.forEach(handle)
        }
    }
    return 0
}

/// One graph for the whole run, as a daemon keeps one; reset when it grows large.
nonisolated(unsafe) var graph = try? Graph()

private func handle(_ message: RequestOrError) {
    guard case .request(let request) = message else { return }
    do {
        let call = try MethodCall.decode(method: request.method, params: request.params)
        guard let current = graph else { return }
        if current.viewCount > 5000 { graph = try? Graph() }
        switch call {
        case .mount(let declaration): _ = try? current.apply([.mount(declaration: declaration, owner: 1)])
        case .set(let path, let value, let ifVersion): _ = try? current.apply([.set(path: path, value: value, ifVersion: ifVersion)])
        case .call(let path, let arguments): _ = try? current.apply([.call(path: path, arguments: arguments)])
        case .get(let path): _ = try? current.get(path)
        case .unmount(let path): _ = try? current.apply([.unmount(path: path)])
        default: break
        }
    } catch {
        check(Envelope.errorLine(id: request.id ?? .null, error))
    }
}

private func check(_ line: [UInt8]) {
    guard (try? JSON(parsing: Array(line.dropLast()))) != nil else { fatalError("an error reply is not JSON: \(line)") }
}
