import Foundation

/// Responses that only exist on a real connection — broken framing, status lines, transfer and
/// content encodings — written byte for byte by the test server's `POST /raw`.
struct HostileWireResponse: Sendable, CustomStringConvertible {
    let name: String
    /// Everything the server writes before it closes the connection.
    let bytes: Data
    /// The outcome with FoundationNetworking (libcurl) on Linux; on Apple platforms any typed
    /// `NetworkError` (or the value) is accepted, since URLSession frames HTTP itself.
    /// `nil`: FoundationNetworking itself crashes the process on this input (see
    /// Docs/Reliability.md, "Open findings"), so the row is not served on Linux.
    let expectedOnLinux: HostileOutcome?

    init(_ name: String, _ bytes: Data, expect: HostileOutcome?) {
        self.name = name
        self.bytes = bytes
        self.expectedOnLinux = expect
    }

    init(_ name: String, _ text: String, expect: HostileOutcome?) {
        self.init(name, Data(text.utf8), expect: expect)
    }

    var description: String { "\(name) [\(bytes.count) bytes]" }
}

enum HostileWireCorpus {
    private static let item = #"{"id":1,"name":"a"}"#

    /// `item` as one chunk of a chunked body, then `ending`.
    private static func chunked(_ ending: String) -> String {
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + String(item.utf8.count, radix: 16) + "\r\n"
            + item + "\r\n" + ending
    }

    /// A `status` answer with `challenge` (whole header lines) and a metadata body.
    private static func challenged(_ status: Int, _ challenge: String) -> String {
        let body = #"{"metadata":{"status":"401","desc":"sign in"}}"#
        return "HTTP/1.1 \(status) Challenge\r\n" + challenge + "Content-Type: application/json\r\n"
            + "Content-Length: \(body.utf8.count)\r\n\r\n" + body
    }

    static let all: [HostileWireResponse] = [
        HostileWireResponse("empty reply", "", expect: .transport),
        HostileWireResponse("body without a status line (HTTP/0.9)", item, expect: .transport),
        HostileWireResponse("garbage status line", "FOO 200 OK\r\n\r\n" + item, expect: .transport),
        // FoundationNetworking: "Fatal error: Transfer completed, but there's no response."
        HostileWireResponse("closed inside the headers", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n",
                            expect: nil),
        HostileWireResponse("status line only, then closed", "HTTP/1.1 200 OK\r\n", expect: nil),
        HostileWireResponse("status line without its line ending", "HTTP/1.1 200 OK", expect: .transport),
        HostileWireResponse("100 Continue, then closed", "HTTP/1.1 100 Continue\r\n\r\n", expect: .transport),
        HostileWireResponse("204 with a body", "HTTP/1.1 204 No Content\r\nContent-Length: \(item.utf8.count)\r\n\r\n" + item,
                            expect: .decodingFailed),
        HostileWireResponse("HTTP/1.0 body until close", "HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n" + item,
                            expect: .decoded),
        HostileWireResponse("HTTP/1.1 without Content-Length, body until close",
                            "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + item, expect: .decoded),
        // FoundationNetworking's header parser wants CR LF ("Failed writing header").
        HostileWireResponse("bare LF line endings", "HTTP/1.1 200 OK\nContent-Length: \(item.utf8.count)\n\n" + item,
                            expect: .transport),
        HostileWireResponse("valid chunked body", chunked("0\r\n\r\n"), expect: .decoded),
        HostileWireResponse("chunked body without its last chunk", chunked(""), expect: .transport),
        HostileWireResponse("chunk size that is not hex",
                            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n" + item + "\r\n0\r\n\r\n",
                            expect: .transport),
        HostileWireResponse("gzip encoding over plain bytes",
                            "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: \(item.utf8.count)\r\n\r\n" + item,
                            expect: .transport),
        HostileWireResponse("negative Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: -5\r\n\r\n" + item,
                            expect: .transport),
        HostileWireResponse("Content-Length that is not a number",
                            "HTTP/1.1 200 OK\r\nContent-Length: lots\r\n\r\n" + item, expect: .transport),
        HostileWireResponse("a 200 KiB header line",
                            "HTTP/1.1 200 OK\r\nX-Big: " + String(repeating: "b", count: 200 * 1_024)
                                + "\r\nContent-Length: \(item.utf8.count)\r\n\r\n" + item,
                            expect: .transport),
        HostileWireResponse("100 Continue, then the answer",
                            "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: \(item.utf8.count)\r\n\r\n" + item,
                            expect: .decoded),
        HostileWireResponse("103 Early Hints, then the answer",
                            "HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n"
                                + "HTTP/1.1 200 OK\r\nContent-Length: \(item.utf8.count)\r\n\r\n" + item,
                            expect: .decoded),
        // FoundationNetworking waits for ever on a Basic challenge unless the transport declines it.
        HostileWireResponse("401 with a Basic challenge", challenged(401, "WWW-Authenticate: Basic realm=\"x\"\r\n"),
                            expect: .clientError(401, metadata: .fields(status: "401", message: "sign in"))),
        HostileWireResponse("401 with a Basic challenge and no body",
                            "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"x\"\r\nContent-Length: 0\r\n\r\n",
                            expect: .clientError(401, metadata: .none)),
        HostileWireResponse("401 with a Bearer and a Basic challenge",
                            challenged(401, "WWW-Authenticate: Bearer realm=\"x\"\r\nWWW-Authenticate: Basic realm=\"x\"\r\n"),
                            expect: .clientError(401, metadata: .fields(status: "401", message: "sign in"))),
        HostileWireResponse("407 with a Basic proxy challenge", challenged(407, "Proxy-Authenticate: Basic realm=\"x\"\r\n"),
                            expect: .clientError(407, metadata: .fields(status: "401", message: "sign in"))),
        HostileWireResponse("401 with a Basic challenge, closed mid-body",
                            "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"x\"\r\nContent-Length: 500\r\n\r\n{\"message\"",
                            expect: .transport),
        HostileWireResponse("404 closed mid-body",
                            "HTTP/1.1 404 Not Found\r\nContent-Length: 500\r\n\r\n{\"message\":\"gone",
                            expect: .transport),
    ]
}
