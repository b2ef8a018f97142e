import Foundation
import Courier
import FuzzSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Serves each fuzzer input through a whole stubbed client — queue, plugins, classification,
/// decoding, callback queue — with public API only, and checks that every request settles within
/// a bound with a result consistent with the status.
enum ClientExercise {
    /// A credential planted in the URL and in a `Set-Cookie` response header.
    static let canary = "qZ7canaryK9"
    private static let canaryBytes = Data(canary.utf8)
    /// A request that has not settled after this long counts as a hang.
    private static let settleBound: TimeInterval = 10
    private static let descriptionLimit = 1_200

    private static let current = Current()
    private static let lines = Lines()

    /// One client for every input, as an app would have: its state must survive any response.
    private static let client: NetworkClient = {
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        configuration.plugins = [LoggingPlugin { lines.append($0) }]
        return NetworkClient.stubbing()
            .respond { _ in current.response }
            .makeClient(configuration: configuration)
    }()

    static func run(_ input: FuzzInput) {
        var headers = input.headers
        let plant = !input.body.contains(canaryBytes)
            && !input.headers.contains { $0.key.contains(canary) || $0.value.contains(canary) }
        if plant { headers["Set-Cookie"] = "session=\(canary)" }
        current.response = StubResponse(status: input.statusCode, headers: headers, body: input.body)
        lines.removeAll()

        let success = (200...299).contains(input.statusCode)
        check(settle(ItemEndpoint()), status: input.statusCode, planted: plant)
        check(settle(UntypedEndpoint()), status: input.statusCode, planted: plant)
        switch settle(RawEndpoint()) {
        case .success(let response):
            expect(success, "status \(input.statusCode) delivered as a success")
            expect(response.statusCode == input.statusCode && response.body == input.body,
                   "the raw response differs from what was served")
        case .failure(let error):
            expect(!success, "a raw \(input.statusCode) response failed: \(error)")
            check(Result<HTTPResponse, NetworkError>.failure(error), status: input.statusCode, planted: plant)
        }
        if plant {
            expect(!lines.values.contains { $0.contains(canary) }, "a log line leaks the canary")
        }
    }

    // MARK: - Steps

    private static func settle<E: Endpoint>(_ endpoint: E) -> Result<E.Response, NetworkError> {
        let done = DispatchSemaphore(value: 0)
        let box = Box<Result<E.Response, NetworkError>>()
        client.request(endpoint) { result in
            box.value = result
            done.signal()
        }
        expect(done.wait(timeout: .now() + settleBound) == .success, "a request did not settle within \(settleBound) s")
        guard let result = box.value else {
            expect(false, "a request settled without a result")
            return .failure(.cancelled)
        }
        return result
    }

    private static func check<T>(_ result: Result<T, NetworkError>, status: Int, planted: Bool) {
        let success = (200...299).contains(status)
        switch result {
        case .success:
            expect(success, "status \(status) decoded as a success")
        case .failure(let error):
            switch error {
            case .decodingFailed: expect(success, "decodingFailed for status \(status)")
            case .clientError(let code, _, _): expect((400...499).contains(status) && code == status, "clientError")
            case .serverError(let code, _, _): expect((500...599).contains(status) && code == status, "serverError")
            case .unexpectedStatus(let code, _):
                expect(!success && !(400...599).contains(status) && code == status, "unexpectedStatus")
            default: expect(false, "unexpected error \(error) for status \(status)")
            }
            for text in [error.description, error.localizedDescription] {
                expect(!text.isEmpty && text.count <= descriptionLimit, "error description of \(text.count) characters")
                if planted { expect(!text.contains(canary), "an error description leaks the canary") }
            }
        }
    }

    /// Aborts with `message` when `condition` is false, so libFuzzer records the input.
    private static func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
        guard !condition else { return }
        FileHandle.standardError.write(Data(("invariant broken: " + message() + "\n").utf8))
        abort()
    }
}

/// A typed response, with an untyped member.
struct FuzzClientItem: Decodable, Sendable {
    let id: Int
    let name: String
    let extra: JSON?
}

private struct ItemEndpoint: Endpoint {
    typealias Response = FuzzClientItem
    var path: String { "items/7" }
    var query: [URLQueryItem] { [URLQueryItem(name: "access_token", value: ClientExercise.canary)] }
    var requiresAuthentication: Bool { false }
}

private struct UntypedEndpoint: Endpoint {
    var path: String { "things" }
    var query: [URLQueryItem] { [URLQueryItem(name: "api_key", value: ClientExercise.canary)] }
    var requiresAuthentication: Bool { false }
}

private struct RawEndpoint: Endpoint {
    typealias Response = HTTPResponse
    var path: String { "raw" }
    var requiresAuthentication: Bool { false }
}

/// The response the stub serves for the input being run.
// @unchecked Sendable: `stored` is only touched while holding `lock`.
private final class Current: @unchecked Sendable {
    private let lock = NSLock()
    private var stored = StubResponse()

    var response: StubResponse {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

/// Log lines of the current input.
// @unchecked Sendable: `storage` is only touched while holding `lock`.
private final class Lines: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [String] = []

    func append(_ line: String) { lock.withLock { storage.append(line) } }
    func removeAll() { lock.withLock { storage.removeAll() } }
    var values: [String] { lock.withLock { storage } }
}

/// A value handed over from the callback queue.
// @unchecked Sendable: `stored` is only touched while holding `lock`.
private final class Box<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: T?

    var value: T? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
