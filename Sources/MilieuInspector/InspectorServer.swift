import MilieuClient
import MilieuJSON
import MilieuProtocol
import MilieuTransport

/// The inspector's HTTP side, on the event loop: reads each connection's one request, refuses
/// any without the token, and serves the page (`GET /`), the event stream (`GET /events`) and
/// the forwarder to milieud (`POST /rpc`) and SwiftUI source to load (`POST /load`, `SourceLoad`).
/// Every other answer closes its connection.
///
/// Anyone on the machine may connect to the port, so connections that have not shown the token
/// cannot crowd out the page (issue #26, item 8): until its request line carries the token, a
/// connection is *waiting* — at most `maxWaiting` of them, the oldest closed to make room for a
/// new one, each closed after `headSeconds` — and one whose request line has no valid token is
/// refused at once, without waiting for the rest of its head. Connections that showed the token
/// have `maxAdmitted` places of their own.
///
/// Threading rule: the loop's thread only, like every `ConnectionHandler`.
final class InspectorServer: ConnectionHandler {
    /// Connections that showed the token, event streams included: a few pages, not a crowd.
    static let maxAdmitted = 16
    /// Connections whose request line has not come yet.
    static let maxWaiting = 16
    /// Time a connection has to send its request line (a browser sends it at once).
    static let headSeconds = 3.0
    /// Time a connection that showed the token has to send the rest of its request.
    static let requestSeconds = 10.0

    private let token: AccessToken
    private let page: [UInt8]
    private let loop: EventLoop
    private let daemon: MilieuClient
    /// The longest line milieud reads (`initialize`): a longer one would make it close the
    /// inspector's connection, so it is refused here instead (413).
    private let maxLineBytes: Int
    let streams = EventStreams()
    private var exchanges: [Int: Exchange] = [:]
    /// The waiting connections, oldest first.
    private var waiting: [Connection] = []
    /// The connections that showed the token and are open, by id.
    private var admitted: [Int: Connection] = [:]
    /// Calls passed on to milieud and not yet answered, by the daemon-side request id.
    private var calls: [Int: (connection: Connection, call: ForwardedCall)] = [:]
    /// Sources being loaded, oldest first: each waits for milieud's answers to all its requests.
    private var loads: [PendingLoad] = []

    /// A `SourceLoad` sent to milieud: the daemon-side ids of its requests, and the answers so far.
    private struct PendingLoad {
        let connection: Connection
        let load: SourceLoad
        let ids: [Int]
        var responses: [Int: JSONObject] = [:]
    }

    /// Where one connection is: waiting for its request line, reading the rest of its request,
    /// waiting for milieud, streaming events.
    private final class Exchange {
        var received: [UInt8] = []
        var timer: TimerID?
        var isReading = true
        var isAdmitted = false
    }

    init(token: AccessToken, page: [UInt8], loop: EventLoop, daemon: MilieuClient, maxLineBytes: Int) {
        self.token = token
        self.page = page
        self.loop = loop
        self.daemon = daemon
        self.maxLineBytes = maxLineBytes
    }

    // MARK: ConnectionHandler

    func connectionOpened(_ connection: Connection) {
        if waiting.count >= Self.maxWaiting { waiting.removeFirst().close() }
        let exchange = Exchange()
        exchanges[connection.id] = exchange
        waiting.append(connection)
        exchange.timer = loop.schedule(after: Self.headSeconds) { [weak self, weak connection] in
            guard let self, let connection, let exchange = self.exchanges[connection.id] else { return }
            exchange.timer = nil
            // Nothing sent: nothing to answer (a browser's spare connection is simply dropped).
            guard !exchange.received.isEmpty else { return connection.close() }
            self.respond(connection, .text(.requestTimeout, "the request line did not arrive in \(Int(Self.headSeconds)) s"))
        }
    }

    func connection(_ connection: Connection, didRead bytes: UnsafeRawBufferPointer) {
        // Past its request a connection has nothing more to say; what it sends is dropped.
        guard let exchange = exchanges[connection.id], exchange.isReading else { return }
        exchange.received.append(contentsOf: bytes)
        if !exchange.isAdmitted {
            switch HTTPRequestParser.query(ofRequestLineIn: exchange.received[...]) {
            case nil: return
            case .failure(let refusal): return respond(connection, .text(refusal.status, refusal.reason))
            case .success(let query):
                guard token.matches(query["token"]) else { return respond(connection, Self.tokenRefusal) }
                // A page that closed its streams a moment ago may not have been heard yet (issue
                // #30, item 12): its slots are freed before a newcomer is refused for want of one.
                if admitted.count >= Self.maxAdmitted { for held in Array(admitted.values) { _ = held.closeIfPeerClosed() } }
                guard admitted.count < Self.maxAdmitted else {
                    return respond(connection, .text(.serviceUnavailable, "milieu inspect serves \(Self.maxAdmitted) connections at once"))
                }
                admit(connection, exchange)
            }
        }
        switch HTTPRequestParser.parse(exchange.received[...]) {
        case .incomplete: return
        case .refused(let status, let reason): respond(connection, .text(status, reason))
        case .complete(let request, _):
            exchange.isReading = false
            exchange.received = []
            if let timer = exchange.timer { loop.cancel(timer) }
            exchange.timer = nil
            handle(request, on: connection)
        }
    }

    func connectionClosed(_ connection: Connection, reason: ConnectionCloseReason) {
        if let exchange = exchanges.removeValue(forKey: connection.id) {
            if let timer = exchange.timer { loop.cancel(timer) }
            if exchange.isAdmitted { admitted[connection.id] = nil }
        }
        waiting.removeAll { $0 === connection }
        streams.remove(connection)
    }

    /// Moves a connection whose request line showed the token out of the waiting ones.
    private func admit(_ connection: Connection, _ exchange: Exchange) {
        waiting.removeAll { $0 === connection }
        exchange.isAdmitted = true
        admitted[connection.id] = connection
        if let timer = exchange.timer { loop.cancel(timer) }
        exchange.timer = loop.schedule(after: Self.requestSeconds) { [weak self, weak connection] in
            guard let self, let connection else { return }
            self.exchanges[connection.id]?.timer = nil
            self.respond(connection, .text(.requestTimeout, "the request did not arrive in \(Int(Self.requestSeconds)) s"))
        }
    }

    private static let tokenRefusal = HTTPResponse.text(.forbidden, "this page needs its token: open the address milieu inspect printed")

    // MARK: Requests

    private func handle(_ request: HTTPRequest, on connection: Connection) {
        guard token.matches(request.query["token"]) else { return respond(connection, Self.tokenRefusal) }
        switch (request.method, request.path) {
        case ("GET", "/"): respond(connection, .page(page))
        case ("GET", "/events"): streams.open(connection)
        case ("POST", "/rpc"): forward(request.body, from: connection)
        case ("POST", "/load"): load(request.body, from: connection)
        case (_, "/"), (_, "/events"), (_, "/rpc"), (_, "/load"):
            respond(connection, .text(.methodNotAllowed, "\(request.method) is not served here"))
        default: respond(connection, .text(.notFound, "milieu inspect serves /, /events, /rpc and /load"))
        }
    }

    /// Passes the page's request on to milieud; its answer goes back in `deliverAnswers()`.
    private func forward(_ body: [UInt8], from connection: Connection) {
        let call: ForwardedCall
        do {
            call = try ForwardedCall(body: body)
        } catch {
            let status: HTTPStatus = error.error.errorKind == .forbidden ? .forbidden : .badRequest
            respond(connection, HTTPResponse(status: status, contentType: "application/json", body: Array(error.answer.utf8)))
            return
        }
        do {
            calls[try daemon.send(method: call.method, paramsText: call.paramsText, limit: maxLineBytes)] = (connection, call)
        } catch  where error.code == .lineTooLong {
            let refusal = ForwardedCall.refusal(
                RPCError(.messageTooLarge, message: error.message, data: ["limit": .int(maxLineBytes)]), id: call.id)
            respond(connection, HTTPResponse(status: .payloadTooLarge, contentType: "application/json", body: Array(refusal.utf8)))
        } catch {
            let refusal = ForwardedCall.refusal(.internalError("milieud is not answering: \(error.message)"), id: call.id)
            respond(connection, HTTPResponse(status: .serviceUnavailable, contentType: "application/json", body: Array(refusal.utf8)))
        }
    }

    /// Translates the page's source and sends milieud what loading it takes, all at once; the
    /// answer goes back in `deliverAnswers()` when the last request is answered.
    private func load(_ body: [UInt8], from connection: Connection) {
        let load: SourceLoad
        do {
            load = try SourceLoad(source: body)
        } catch {
            return respond(connection, HTTPResponse(status: .badRequest, contentType: "application/json", body: Array(error.answer.utf8)))
        }
        // Checked before any is sent: milieud closes the connection on a line past its limit.
        if let refusal = load.refusal(lineLimit: maxLineBytes) {
            return respond(
                connection, HTTPResponse(status: .payloadTooLarge, contentType: "application/json", body: Array(refusal.answer.utf8)))
        }
        do {
            var ids: [Int] = []
            for request in load.requests {
                ids.append(try daemon.send(method: request.method, paramsText: request.paramsText, limit: maxLineBytes))
            }
            loads.append(PendingLoad(connection: connection, load: load, ids: ids))
        } catch {
            let refusal = SourceLoad.Refusal(error: "milieud is not answering: \(error.message)", diagnostics: [])
            respond(
                connection, HTTPResponse(status: .serviceUnavailable, contentType: "application/json", body: Array(refusal.answer.utf8)))
        }
    }

    /// Answers every forwarded call and every load whose responses milieud has sent, after the
    /// daemon connection was read. A page that left meanwhile is not sent anything.
    func deliverAnswers() {
        for (id, pending) in calls {
            guard let response = daemon.takeResponse(to: id) else { continue }
            calls[id] = nil
            respond(pending.connection, .json(pending.call.answer(response)))
        }
        for index in loads.indices {
            for id in loads[index].ids where loads[index].responses[id] == nil {
                loads[index].responses[id] = daemon.takeResponse(to: id)
            }
        }
        while let first = loads.first, first.responses.count == first.ids.count {
            loads.removeFirst()
            let (ok, text) = first.load.answer(first.ids.compactMap { first.responses[$0] })
            respond(first.connection, HTTPResponse(status: ok ? .ok : .badRequest, contentType: "application/json", body: Array(text.utf8)))
        }
    }

    private func respond(_ connection: Connection, _ response: HTTPResponse) {
        exchanges[connection.id]?.isReading = false
        connection.send(response.bytes)
        connection.closeAfterFlush()
    }
}
