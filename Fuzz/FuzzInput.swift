import MilieuEngine
import MilieuJSON
import MilieuProtocol

/// libFuzzer's entry point: bytes as they would arrive on a connection go through the framer,
/// the JSON-RPC envelope checks, the method registry and, for registrations, mounts and writes,
/// the engine. Requests with an odd id mount for connection 1, the others for connection 2, which
/// closes after each input: teardown runs on what the input mounted, among what earlier ones left.
/// Any crash, an error reply that is not valid JSON, or a line the hot path (`HotRequest`) reads
/// otherwise than the general one, is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    defer { _ = graph?.connectionClosed(ConnectionID(2)) }
    var framer = LineFramer(maxLineBytes: 4096)
    framer.feed(UnsafeRawBufferPointer(start: start, count: count)) { frame in
        guard case .line(let line) = frame else { return }
        checkHotPath(line)
        switch IncomingMessage.parse(line) {
        case .failure(let error): check(Envelope.errorLine(id: .null, error))
        case .success(.single(let message)): handle(message)
        case .success(.batch(let messages)): messages.forEach(handle)
        }
    }
    return 0
}

/// One graph for the whole run, as a daemon keeps one; reset when it grows large: past 5000
/// views, or 1000 registrations (each name registers once, so the registry would grow without end).
nonisolated(unsafe) var graph = try? Graph()
nonisolated(unsafe) var registrations = 0

private func handle(_ message: RequestOrError) {
    guard case .request(let request) = message else { return }
    do {
        let call = try Methods.decode(method: request.method, params: request.params)
        guard let current = graph else { return }
        let owner: ConnectionID
        if case .int(let number)? = request.id, number & 1 == 0 { owner = ConnectionID(2) } else { owner = ConnectionID(1) }
        if current.viewCount > 5000 || registrations > 1000 {
            graph = try? Graph()
            registrations = 0
        }
        if let get = call as? GraphGetRequest {
            _ = try? current.get(get.path)
        } else if let register = call as? SchemaRegisterRequest {
            registrations += 1
            _ = try? current.register(declarations: register.types, environmentKeys: register.environmentKeys)
        } else if let transaction = call as? GraphTransactionRequest {
            _ = try? current.apply(transaction.operations.compactMap { ($0 as? any EngineOperation)?.operation(owner: owner) })
        } else if let op = call as? any EngineOperation {
            _ = try? current.apply([op.operation(owner: owner)])
        }
    } catch {
        check(Envelope.errorLine(id: request.id ?? .null, error))
    }
}

/// An error reply must be one JSON-RPC message, read as a peer reads one: its `id` echoes the
/// request's as written (SPEC §2.1), so `1e400` there is valid, where a value elsewhere is out of range.
private func check(_ line: [UInt8]) {
    let parsed = line.dropLast().withUnsafeBytes { try? JSON.parsingMessage($0) }
    guard parsed != nil else { fatalError("an error reply is not JSON: \(line)") }
}

/// The hot path takes a line only as the general path decodes it.
private func checkHotPath(_ line: UnsafeRawBufferPointer) {
    guard let hot = HotRequest.read(line) else { return }
    guard case .success(.single(.request(let request))) = IncomingMessage.parse(line), request.id == hot.id,
        request.method == hot.method, request.paramsError == nil
    else { fatalError("the hot path took a line the general path reads otherwise: \(Array(line))") }
    let agrees: Bool
    switch hot {
    case .set(_, let set):
        let general = try? Methods.decode(GraphSetRequest.self, params: request.params)
        agrees = general?.path == set.path && general?.value == set.value && general?.ifVersion == set.ifVersion
    case .get(_, let get): agrees = (try? Methods.decode(GraphGetRequest.self, params: request.params))?.path == get.path
    }
    if !agrees { fatalError("the hot path read other params than the general path: \(Array(line))") }
}
