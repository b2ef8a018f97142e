import Foundation
@testable import Courier

/// What the client must make of one hostile response: a decoded value, or exactly one typed error.
enum HostileOutcome: Equatable, CustomStringConvertible {
    /// The status is a success and the body decodes into the row's target.
    case decoded
    /// `NetworkError.decodingFailed`.
    case decodingFailed
    /// `NetworkError.clientError` with this status and metadata.
    case clientError(Int, metadata: MetadataShape)
    /// `NetworkError.serverError` with this status and metadata.
    case serverError(Int, metadata: MetadataShape)
    /// `NetworkError.unexpectedStatus` with this status.
    case unexpectedStatus(Int)
    /// `NetworkError.transport`: no usable HTTP response (only over a real connection).
    case transport
    /// `NetworkError.timedOut`.
    case timedOut
    /// Anything else (only ever an *actual* outcome, never an expected one).
    case other(String)

    /// The metadata a status error carries.
    enum MetadataShape: Equatable {
        /// `metadata == nil`: the body was empty or not JSON.
        case none
        /// Metadata with these fields (its `body` holds the parsed JSON).
        case fields(status: String?, message: String?)
    }

    /// The outcome a `NetworkError` stands for.
    init(_ error: NetworkError) {
        func shape(_ metadata: ServerMetadata?) -> MetadataShape {
            metadata.map { .fields(status: $0.status, message: $0.message) } ?? .none
        }
        switch error {
        case .decodingFailed: self = .decodingFailed
        case .clientError(let status, let metadata, _): self = .clientError(status, metadata: shape(metadata))
        case .serverError(let status, let metadata, _): self = .serverError(status, metadata: shape(metadata))
        case .unexpectedStatus(let status, _): self = .unexpectedStatus(status)
        case .transport: self = .transport
        case .timedOut: self = .timedOut
        default: self = .other(String(describing: error))
        }
    }

    var description: String {
        switch self {
        case .decoded: "decoded"
        case .decodingFailed: "decodingFailed"
        case .clientError(let status, let metadata): "clientError(\(status), \(metadata))"
        case .serverError(let status, let metadata): "serverError(\(status), \(metadata))"
        case .unexpectedStatus(let status): "unexpectedStatus(\(status))"
        case .transport: "transport"
        case .timedOut: "timedOut"
        case .other(let text): "other(\(text))"
        }
    }
}

/// The `Response` type a row is decoded into.
enum HostileTarget: String, Sendable {
    /// ``CorpusItem``: a typed `Decodable`.
    case item
    /// Untyped ``JSON`` (an empty body is `JSON.null`, as `NetworkClient.request` does).
    case json
}

/// A typed response: `{"id": Int, "name": String, "tags": [String]?}`.
struct CorpusItem: Decodable, Sendable, Equatable {
    let id: Int
    let name: String
    let tags: [String]?
}

/// One hostile or broken response and the outcome it must produce.
struct HostileResponse: Sendable, CustomStringConvertible {
    /// A short unique name, used in failure messages.
    let name: String
    let status: Int
    let headers: [String: String]
    let body: Data
    let target: HostileTarget
    let expected: HostileOutcome

    init(_ name: String, status: Int, headers: [String: String] = [:], body: Data,
         target: HostileTarget = .item, expect expected: HostileOutcome) {
        self.name = name
        self.status = status
        self.headers = headers
        self.body = body
        self.target = target
        self.expected = expected
    }

    init(_ name: String, status: Int, headers: [String: String] = [:], text: String,
         target: HostileTarget = .item, expect expected: HostileOutcome) {
        self.init(name, status: status, headers: headers, body: Data(text.utf8), target: target, expect: expected)
    }

    var response: HTTPResponse {
        HTTPResponse(statusCode: status, headers: headers, body: body,
                     url: URL(string: "https://api.example.com/v1/items/7?access_token=\(HostileCorpus.secret)"))
    }

    var description: String { "\(name) [\(status), \(body.count) bytes, \(target)]" }
}

/// The hostile-response corpus: every row is served to the client and must end in its named outcome,
/// never a crash or a hang.
enum HostileCorpus {
    /// A credential planted in each row's URL and `Set-Cookie`/`Authorization` headers; no description,
    /// log line or error text may contain it.
    static let secret = "s3cr3t-CANARY-4417"

    static let json = ["Content-Type": "application/json"]
    static let html = ["Content-Type": "text/html; charset=utf-8"]

    /// Every row: malformed bodies, hostile statuses, headers and sizes.
    static let all: [HostileResponse] = malformedBodies + encodingAndDepth + errorStatuses
        + unexpectedStatuses + headersAndSizes

    /// `count` opening brackets followed by as many closing ones.
    static func nestedArrays(_ count: Int) -> String {
        String(repeating: "[", count: count) + String(repeating: "]", count: count)
    }

    /// `{"a":{"a":…1…}}`, `count` objects deep.
    static func nestedObjects(_ count: Int) -> String {
        String(repeating: #"{"a":"#, count: count) + "1" + String(repeating: "}", count: count)
    }

    /// The outcome the client's steps produce for `row`: classification with the default metadata
    /// parser, then decoding exactly as `NetworkClient.request` decodes (`JSON`: an empty body is
    /// `null`; other types: `JSONDecoder`).
    static func classifyAndDecode(_ row: HostileResponse) -> (outcome: HostileOutcome, error: NetworkError?) {
        let response = row.response
        if let error = NetworkError.classify(response, parser: ServerMetadata.parse) {
            return (HostileOutcome(error), error)
        }
        do {
            switch row.target {
            case .item:
                _ = try JSONDecoder().decode(CorpusItem.self, from: response.body)
            case .json:
                _ = response.body.isEmpty ? JSON.null : try JSON(data: response.body)
            }
            return (.decoded, nil)
        } catch {
            let failure = NetworkError.decodingFailed(underlying: error, response: response)
            return (HostileOutcome(failure), failure)
        }
    }
}
