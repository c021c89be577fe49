/// The HTTP statuses the inspector answers with.
enum HTTPStatus: Int, Sendable {
    case ok = 200
    case badRequest = 400
    case forbidden = 403
    case notFound = 404
    case methodNotAllowed = 405
    case requestTimeout = 408
    case payloadTooLarge = 413
    case headersTooLarge = 431
    case notImplemented = 501
    case serviceUnavailable = 503
    case versionNotSupported = 505

    var reasonPhrase: String {
        switch self {
        case .ok: "OK"
        case .badRequest: "Bad Request"
        case .forbidden: "Forbidden"
        case .notFound: "Not Found"
        case .methodNotAllowed: "Method Not Allowed"
        case .requestTimeout: "Request Timeout"
        case .payloadTooLarge: "Content Too Large"
        case .headersTooLarge: "Request Header Fields Too Large"
        case .notImplemented: "Not Implemented"
        case .serviceUnavailable: "Service Unavailable"
        case .versionNotSupported: "HTTP Version Not Supported"
        }
    }
}

/// A response's head and body as bytes. Every response closes its connection afterwards
/// (`Connection: close`) and is kept out of caches, other origins' frames and referrers, so the
/// token in the page's address goes nowhere else.
struct HTTPResponse {
    var status: HTTPStatus
    var contentType: String
    var body: [UInt8]
    var extraHeaders: [(String, String)] = []

    /// The page's own policy: its inline script and style, requests to its own origin only.
    static let pagePolicy =
        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    static func text(_ status: HTTPStatus, _ message: String) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "text/plain; charset=utf-8", body: Array("\(message)\n".utf8))
    }

    static func json(_ text: String) -> HTTPResponse {
        HTTPResponse(status: .ok, contentType: "application/json", body: Array(text.utf8))
    }

    static func page(_ html: [UInt8]) -> HTTPResponse {
        HTTPResponse(
            status: .ok, contentType: "text/html; charset=utf-8", body: html, extraHeaders: [("Content-Security-Policy", pagePolicy)])
    }

    /// The head of a Server-Sent Events stream; its body goes on until either side closes.
    static let eventStreamHead: [UInt8] = head(
        status: .ok, headers: [("Content-Type", "text/event-stream"), ("Connection", "close")] + commonHeaders)

    var bytes: [UInt8] {
        let headers =
            [("Content-Type", contentType), ("Content-Length", String(body.count)), ("Connection", "close")] + Self.commonHeaders
            + extraHeaders
        return Self.head(status: status, headers: headers) + body
    }

    private static let commonHeaders = [
        ("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer"),
        ("X-Frame-Options", "DENY"),
    ]

    private static func head(status: HTTPStatus, headers: [(String, String)]) -> [UInt8] {
        var text = "HTTP/1.1 \(status.rawValue) \(status.reasonPhrase)\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        return Array((text + "\r\n").utf8)
    }
}
