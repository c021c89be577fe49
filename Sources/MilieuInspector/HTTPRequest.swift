/// One HTTP/1.1 request as the inspector reads it: the method, the path and query of its
/// target, its headers (names in lower case) and its body.
struct HTTPRequest: Equatable {
    var method: String
    /// The target's path, still percent-encoded (the inspector's paths are plain ASCII).
    var path: String
    /// The target's query parameters, percent-decoded; the first of a repeated name wins.
    var query: [String: String]
    var headers: [String: String]
    var body: [UInt8]
}

/// A request refused before it was read whole: the status to answer with, and why.
struct HTTPRefusal: Error, Equatable {
    let status: HTTPStatus
    let reason: String
}

/// What the bytes received so far make: not yet a request, a request (and how many bytes it
/// took), or a request refused with the status to answer.
enum HTTPParseOutcome: Equatable {
    case incomplete
    case complete(HTTPRequest, consumed: Int)
    case refused(HTTPStatus, String)
}

/// Reads one HTTP/1.1 request from the bytes a connection has received, with bounded sizes:
/// a client can make the inspector hold at most `maxHeadBytes + maxBodyBytes` for it. Sans-I/O:
/// the server feeds it what it has and acts on the outcome.
///
/// Only what the page needs is taken: origin-form targets, `Content-Length` bodies (no
/// chunked uploads), CRLF line ends, no header folding.
enum HTTPRequestParser {
    /// The request line and headers, CRLF CRLF included.
    static let maxHeadBytes = 8 * 1024
    static let maxHeaders = 64
    /// As long as the daemon's longest line, so any request it takes can be forwarded.
    static let maxBodyBytes = 1 << 20

    static func parse(_ bytes: ArraySlice<UInt8>) -> HTTPParseOutcome {
        guard let headEnd = endOfHead(in: bytes) else {
            return bytes.count >= maxHeadBytes ? .refused(.headersTooLarge, "the request head passes \(maxHeadBytes) bytes") : .incomplete
        }
        var lines = bytes[bytes.startIndex..<headEnd - 4].split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map {
            $0.last == UInt8(ascii: "\r") ? $0.dropLast() : $0
        }
        let requestLine = lines.removeFirst()
        let start: (method: String, target: String)
        switch Self.requestLine(requestLine) {
        case .success(let parsed): start = parsed
        case .failure(let refusal): return .refused(refusal.status, refusal.reason)
        }
        guard lines.count <= maxHeaders else { return .refused(.headersTooLarge, "more than \(maxHeaders) headers") }
        var headers: [String: String] = [:]
        for line in lines {
            guard let (name, value) = header(line) else { return .refused(.badRequest, "a malformed header line") }
            if let earlier = headers[name], name == "content-length", earlier != value {
                return .refused(.badRequest, "two different Content-Length headers")
            }
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }
        guard headers["transfer-encoding"] == nil else { return .refused(.notImplemented, "only Content-Length bodies are taken") }
        let length: Int
        switch headers["content-length"] {
        case nil: length = 0
        case let text?:
            guard !text.isEmpty, text.utf8.count <= 8, text.utf8.allSatisfy({ (48...57).contains($0) }), let number = Int(text) else {
                return .refused(.badRequest, "Content-Length is not a number")
            }
            length = number
        }
        guard length <= maxBodyBytes else { return .refused(.payloadTooLarge, "the body passes \(maxBodyBytes) bytes") }
        guard bytes.endIndex - headEnd >= length else { return .incomplete }
        let (path, queryText) = splitTarget(start.target)
        guard let query = QueryString.parse(queryText) else { return .refused(.badRequest, "a malformed query string") }
        let request = HTTPRequest(
            method: start.method, path: path, query: query, headers: headers, body: Array(bytes[headEnd..<headEnd + length]))
        return .complete(request, consumed: headEnd + length - bytes.startIndex)
    }

    /// The query of the request line, once it has arrived: enough to tell a request with the
    /// token from one without, before the rest of its head.
    /// Nil while the line is unfinished; a refusal for a line past the head's bound or malformed.
    static func query(ofRequestLineIn bytes: ArraySlice<UInt8>) -> Result<[String: String], HTTPRefusal>? {
        guard let end = bytes.prefix(maxHeadBytes).firstIndex(of: UInt8(ascii: "\n")) else {
            guard bytes.count < maxHeadBytes else {
                return .failure(HTTPRefusal(status: .headersTooLarge, reason: "the request head passes \(maxHeadBytes) bytes"))
            }
            return nil
        }
        var line = bytes[bytes.startIndex..<end]
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        switch requestLine(line) {
        case .failure(let refusal): return .failure(refusal)
        case .success(let start):
            guard let query = QueryString.parse(splitTarget(start.target).query) else {
                return .failure(HTTPRefusal(status: .badRequest, reason: "a malformed query string"))
            }
            return .success(query)
        }
    }

    /// The index just past the head's CRLF CRLF, if it is within the bound.
    private static func endOfHead(in bytes: ArraySlice<UInt8>) -> Int? {
        let searched = bytes.prefix(maxHeadBytes)
        guard searched.count >= 4 else { return nil }
        var index = searched.startIndex
        while index + 3 < searched.endIndex {
            if searched[index] == 13, searched[index + 1] == 10, searched[index + 2] == 13, searched[index + 3] == 10 { return index + 4 }
            index += 1
        }
        return nil
    }

    /// `METHOD SP origin-form-target SP HTTP/1.x`.
    private static func requestLine(_ line: ArraySlice<UInt8>) -> Result<(method: String, target: String), HTTPRefusal> {
        let parts = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy({ (65...90).contains($0) }),
            parts[1].first == UInt8(ascii: "/"), parts[1].allSatisfy({ (33...126).contains($0) })
        else { return .failure(HTTPRefusal(status: .badRequest, reason: "a malformed request line")) }
        let version = String(decoding: parts[2], as: UTF8.self)
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
            return .failure(HTTPRefusal(status: .versionNotSupported, reason: "\(version.prefix(16)) is not HTTP/1.1"))
        }
        return .success((String(decoding: parts[0], as: UTF8.self), String(decoding: parts[1], as: UTF8.self)))
    }

    /// `name: value`, the name a token (returned in lower case), the value trimmed of spaces and tabs.
    private static func header(_ line: ArraySlice<UInt8>) -> (String, String)? {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex else { return nil }
        let name = line[line.startIndex..<colon]
        guard name.allSatisfy(isTokenByte) else { return nil }
        let blank: (UInt8) -> Bool = { $0 == 32 || $0 == 9 }
        var value = line[(colon + 1)...]
        while let first = value.first, blank(first) { value = value.dropFirst() }
        while let last = value.last, blank(last) { value = value.dropLast() }
        guard !value.contains(where: { $0 < 32 && $0 != 9 || $0 == 127 }) else { return nil }
        return (String(decoding: name, as: UTF8.self).lowercased(), String(decoding: value, as: UTF8.self))
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    private static func splitTarget(_ target: String) -> (path: String, query: String) {
        guard let mark = target.firstIndex(of: "?") else { return (target, "") }
        return (String(target[..<mark]), String(target[target.index(after: mark)...]))
    }
}

/// `application/x-www-form-urlencoded` query strings: `a=1&b=x%20y`.
enum QueryString {
    /// The parameters by name, the first of a repeated name kept; nil for a malformed escape.
    static func parse(_ text: String) -> [String: String]? {
        var parameters: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]), let value = decode(parts.count > 1 ? parts[1] : "") else { return nil }
            if parameters[name] == nil { parameters[name] = value }
        }
        return parameters
    }

    /// Percent-decodes `text`, `+` as a space; nil for a bad escape or invalid UTF-8.
    static func decode(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"): bytes.append(32)
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
                bytes.append(high << 4 | low)
            default: bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
