import MilieuClient
import MilieuJSON
import MilieuProtocol
import MilieuTransport

/// The inspector's HTTP side, on the event loop: reads each connection's one request, refuses
/// any without the token, and serves the page (`GET /`), the event stream (`GET /events`) and
/// the forwarder to milieud (`POST /rpc`). Every other answer closes its connection.
///
/// Threading rule: the loop's thread only, like every `ConnectionHandler`.
final class InspectorServer: ConnectionHandler {
    /// Connections at once, event streams included: a few pages, not a crowd.
    static let maxConnections = 16
    /// Time a client has to send its whole request.
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
    /// Calls passed on to milieud and not yet answered, by the daemon-side request id.
    private var calls: [Int: (connection: Connection, call: ForwardedCall)] = [:]

    /// Where one connection is: reading its request, waiting for milieud, streaming events.
    private final class Exchange {
        var received: [UInt8] = []
        var timer: TimerID?
        var isReading = true
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
        guard exchanges.count < Self.maxConnections else {
            respond(connection, .text(.serviceUnavailable, "milieu inspect serves \(Self.maxConnections) connections at once"))
            return
        }
        let exchange = Exchange()
        exchange.timer = loop.schedule(after: Self.requestSeconds) { [weak self, weak connection] in
            guard let self, let connection else { return }
            self.exchanges[connection.id]?.timer = nil
            self.respond(connection, .text(.requestTimeout, "the request did not arrive in \(Int(Self.requestSeconds)) s"))
        }
        exchanges[connection.id] = exchange
    }

    func connection(_ connection: Connection, didRead bytes: UnsafeRawBufferPointer) {
        // Past its request a connection has nothing more to say; what it sends is dropped.
        guard let exchange = exchanges[connection.id], exchange.isReading else { return }
        exchange.received.append(contentsOf: bytes)
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
        if let timer = exchanges.removeValue(forKey: connection.id)?.timer { loop.cancel(timer) }
        streams.remove(connection)
    }

    // MARK: Requests

    private func handle(_ request: HTTPRequest, on connection: Connection) {
        guard token.matches(request.query["token"]) else {
            respond(connection, .text(.forbidden, "this page needs its token: open the address milieu inspect printed"))
            return
        }
        switch (request.method, request.path) {
        case ("GET", "/"): respond(connection, .page(page))
        case ("GET", "/events"): streams.open(connection)
        case ("POST", "/rpc"): forward(request.body, from: connection)
        case (_, "/"), (_, "/events"), (_, "/rpc"): respond(connection, .text(.methodNotAllowed, "\(request.method) is not served here"))
        default: respond(connection, .text(.notFound, "milieu inspect serves /, /events and /rpc"))
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

    /// Answers every forwarded call whose response milieud has sent, after the daemon
    /// connection was read. A page that left meanwhile is not sent anything.
    func deliverAnswers() {
        for (id, pending) in calls {
            guard let response = daemon.takeResponse(to: id) else { continue }
            calls[id] = nil
            respond(pending.connection, .json(pending.call.answer(response)))
        }
    }

    private func respond(_ connection: Connection, _ response: HTTPResponse) {
        exchanges[connection.id]?.isReading = false
        connection.send(response.bytes)
        connection.closeAfterFlush()
    }
}
