import Foundation
@testable import Courier
import FuzzSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A small response type an endpoint might declare, to drive `JSONDecoder` through keyed,
/// nested, optional and array paths.
struct FuzzItem: Decodable {
    struct Owner: Decodable {
        let id: Int
        let email: String?
    }
    let id: Int
    let name: String
    let price: Double?
    let tags: [String]?
    let owner: Owner?
    /// Untyped JSON inside a typed response: its nesting counts towards `JSON.maximumDepth` too.
    let extra: JSON?
}

/// Runs one response through everything the client does to a response, and checks the invariants
/// that must hold for any bytes a server can send. A broken invariant aborts (a fuzzer "crash").
enum ResponseExercise {
    /// A secret planted in the URL, a `Set-Cookie` header and the request's `Authorization` header.
    /// It must never appear in a description or log line.
    static let canary = "qZ7canaryK9"
    private static let canaryBytes = Data(canary.utf8)
    private static let url = URL(string: "https://api.example.com/v1/items/7?page=2&access_token=\(canary)")
    /// Descriptions are meant to be short whatever the body; this is a generous bound.
    private static let descriptionLimit = 1_200

    static func run(_ input: FuzzInput) {
        var headers = input.headers
        // Only plant the canary when the input cannot contain it by itself.
        let plant = !input.body.contains(canaryBytes)
            && !input.headers.contains { $0.key.contains(canary) || $0.value.contains(canary) }
        if plant { headers["Set-Cookie"] = "session=\(canary); HttpOnly" }
        let response = HTTPResponse(statusCode: input.statusCode, headers: headers, body: input.body, url: url)

        checkHeaderLookup(response)
        let responseText = String(describing: response)
        if plant { expect(!responseText.contains(canary), "HTTPResponse.description leaks the canary") }

        let metadata = ServerMetadata.parse(response)
        if response.body.isEmpty { expect(metadata == nil, "metadata parsed from an empty body") }
        if let metadata { expect(metadata.body != nil, "metadata without its JSON body") }

        let error = classifyAndCheck(response, metadata: metadata) ?? decodeAndCheck(response)
        if let error {
            checkDescriptions(of: error, planted: plant)
            checkRetry(after: error)
        }
        // Retry-After parsing on every input, whatever the status.
        checkRetry(after: .serverError(statusCode: 503, metadata: nil, response: response))
        checkRedaction(headers: input.headers, body: input.body, planted: plant)
    }

    // MARK: - Steps

    private static func checkHeaderLookup(_ response: HTTPResponse) {
        for name in response.headers.keys {
            expect(response.header(name) != nil, "header(_:) misses a present name")
            expect(response.header(name.uppercased()) != nil || name.uppercased().lowercased() != name.lowercased(),
                   "header(_:) is case-sensitive")
        }
    }

    /// Status classification with the default metadata parser.
    private static func classifyAndCheck(_ response: HTTPResponse, metadata: ServerMetadata?) -> NetworkError? {
        let error = NetworkError.classify(response, parser: ServerMetadata.parse)
        let status = response.statusCode
        switch error {
        case nil:
            expect((200...299).contains(status), "status \(status) classified as success")
        case .clientError(let code, let found, _)?:
            expect((400...499).contains(status) && code == status, "clientError for \(status)")
            expect(found == metadata, "clientError metadata differs from ServerMetadata.parse")
        case .serverError(let code, let found, _)?:
            expect((500...599).contains(status) && code == status, "serverError for \(status)")
            expect(found == metadata, "serverError metadata differs from ServerMetadata.parse")
        case .unexpectedStatus(let code, _)?:
            expect(!(200...299).contains(status) && !(400...599).contains(status) && code == status,
                   "unexpectedStatus for \(status)")
        case .some(let other):
            expect(false, "classify produced \(other)")
        }
        if let error { expect(error.statusCode == status, "statusCode accessor differs") }
        return error
    }

    /// What a successful response goes through: untyped JSON and a typed `Decodable`.
    private static func decodeAndCheck(_ response: HTTPResponse) -> NetworkError? {
        if let json = try? JSON(data: response.body) {
            // The compact text of any parsed document must parse back to the same value.
            let text = json.description
            let reparsed = try? JSON(data: Data(text.utf8))
            expect(reparsed == json, "JSON.description does not round-trip")
            expect(depth(of: json) <= JSON.maximumDepth, "JSON nested deeper than JSON.maximumDepth decoded")
            _ = json["id"]["name"][0].string
            // SwiftyJSON-style readings convert between kinds; none may trap on any value.
            for value in [json] + json.arrayValue.prefix(8) + json.dictionaryValue.values.prefix(8) {
                let number = value.doubleValue
                expect(number.isFinite, "doubleValue is not finite: \(number)")
                _ = (value.stringValue, value.intValue, value.boolValue)
            }
        }
        do {
            let item = try JSONDecoder().decode(FuzzItem.self, from: response.body)
            _ = (item.id, item.name, item.owner?.email)
            if let extra = item.extra {
                expect(depth(of: extra) < JSON.maximumDepth, "a JSON member nested too deep decoded")
            }
            return nil
        } catch {
            return .decodingFailed(underlying: error, response: response)
        }
    }

    /// The number of nested arrays/objects, counted without recursion.
    private static func depth(of json: JSON) -> Int {
        var deepest = 0
        var pending: [(JSON, Int)] = [(json, 0)]
        while let (value, level) = pending.popLast() {
            switch value {
            case .array(let items):
                deepest = max(deepest, level + 1)
                pending += items.map { ($0, level + 1) }
            case .object(let members):
                deepest = max(deepest, level + 1)
                pending += members.values.map { ($0, level + 1) }
            case .null, .bool, .number, .string:
                break
            }
        }
        return deepest
    }

    private static func checkDescriptions(of error: NetworkError, planted: Bool) {
        let texts = [String(describing: error), error.localizedDescription, error.errorDescription ?? ""]
        for text in texts {
            expect(!text.isEmpty, "empty error description")
            expect(text.count <= descriptionLimit, "error description of \(text.count) characters")
            if planted { expect(!text.contains(canary), "error description leaks the canary") }
        }
        var lines: [String] = []
        let sink = LineSink()
        // Verbose: response headers and bodies are logged too, and must stay as secret-free.
        let plugin = LoggingPlugin(options: .verbose, log: { sink.append($0) }, clock: { 0 })
        if let request = Self.request(headers: [:]) {
            plugin.willSend(request)
            plugin.didReceive(.failure(error), for: request)
            if let response = error.response { plugin.didReceive(.success(response), for: request) }
        }
        lines = sink.lines
        if planted { expect(!lines.contains { $0.contains(canary) }, "a log line leaks the canary") }
    }

    private static func checkRetry(after error: NetworkError) {
        let policy = RetryPolicy.default
        for retry in 1...3 {
            let wait = policy.delay(beforeRetry: retry, after: error, now: Date(timeIntervalSince1970: 1_700_000_000),
                                    random: { $0.lowerBound })
            expect(wait >= 0 && wait <= policy.maximumDelay, "retry delay \(wait) outside 0...maximumDelay")
        }
        _ = policy.shouldRetry(error, method: .get)
    }

    private static func checkRedaction(headers: [String: String], body: Data, planted: Bool) {
        let redacted = Redaction.redact(headers)
        for (name, value) in redacted where Redaction.isSensitive(headerName: name) {
            expect(value == Redaction.placeholder, "sensitive header \(name) kept its value")
        }
        guard var request = Self.request(headers: headers) else { return }
        request.httpBody = body
        if planted { request.setValue("Bearer \(canary)", forHTTPHeaderField: "Authorization") }
        let text = Redaction.describe(request)
        if planted { expect(!text.contains(canary), "Redaction.describe leaks the canary") }
    }

    private static func request(headers: [String: String]) -> URLRequest? {
        guard let url else { return nil }
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.allHTTPHeaderFields = headers
        return request
    }

    /// Aborts with `message` when `condition` is false, so libFuzzer records the input.
    private static func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
        guard !condition else { return }
        FileHandle.standardError.write(Data(("invariant broken: " + message() + "\n").utf8))
        abort()
    }
}

/// Collects log lines from a `LoggingPlugin`.
// @unchecked Sendable: `storage` is only touched while holding `lock`.
private final class LineSink: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [String] = []

    func append(_ line: String) { lock.withLock { storage.append(line) } }
    var lines: [String] { lock.withLock { storage } }
}
