import Courier
import Foundation
import Promises
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An endpoint whose every property is a stored value, for integration tests.
struct LiveEndpoint<Response: Decodable & Sendable>: Endpoint {
    var path: String
    var method: HTTPMethod = .get
    var query: [URLQueryItem] = []
    var headers: [String: String] = [:]
    var body: RequestBody = .none
    var timeout: TimeInterval?
    var retryPolicy: RetryPolicy?
    var requiresAuthentication = true
}

/// The common case: an endpoint decoded as untyped `JSON`.
typealias LiveJSONEndpoint = LiveEndpoint<JSON>

/// The body `/anything` and `/delay` echo back.
struct ServerEcho: Decodable, Sendable {
    let method: String
    let path: String
    let query: JSON
    let headers: [String: String]
    let body: String
    let json: JSON?

    /// A request header as the server received it, matched case-insensitively.
    func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// A short, comparable name for an error: `"timedOut"`, `"clientError(404)"`, `"transport"`, ...;
/// a `PromiseError` (what `Promise.cancel()` rejects with) is `"PromiseError.<case>"`.
func errorKind(_ error: any Error) -> String {
    if let error = error as? PromiseError {
        if case .cancelled = error { return "PromiseError.cancelled" }
        if case .timedOut = error { return "PromiseError.timedOut" }
        return "PromiseError: \(error)"
    }
    guard let error = error as? NetworkError else { return "not a NetworkError: \(type(of: error))" }
    switch error {
    case .clientError(let status, _, _): return "clientError(\(status))"
    case .serverError(let status, _, _): return "serverError(\(status))"
    case .unexpectedStatus(let status, _): return "unexpectedStatus(\(status))"
    case .decodingFailed: return "decodingFailed"
    case .transport: return "transport"
    case .timedOut: return "timedOut"
    case .cancelled: return "cancelled"
    case .authenticationFailed: return "authenticationFailed"
    case .invalidRequest: return "invalidRequest"
    }
}

/// A base class giving each integration test the shared server, a client factory and bounded waits.
class IntegrationTestCase: XCTestCase {
    /// The suite-wide server (started once per test process).
    var server: TestServer {
        get throws { try TestServer.shared }
    }

    /// A client on the server's `127.0.0.1` base URL with the URLSession transport.
    ///
    /// - Parameter configure: changes to the default configuration.
    func makeClient(_ configure: (inout NetworkClient.Configuration) -> Void = { _ in }) throws -> NetworkClient {
        var configuration = NetworkClient.Configuration(baseURL: try server.baseURL)
        configure(&configuration)
        return NetworkClient(configuration: configuration)
    }

    /// Waits at most `seconds` for `promise` to settle and returns its result (nil, with a failure
    /// recorded, when it did not settle in time).
    func settle<T: Sendable>(_ promise: Promise<T>, within seconds: TimeInterval = 10,
                             file: StaticString = #filePath, line: UInt = #line) -> Result<T, any Error>? {
        let slot = ResultSlot<T>()
        _ = promise.tap { slot.put($0) }
        let result = slot.take(within: seconds)
        if result == nil { XCTFail("promise did not settle within \(seconds) s", file: file, line: line) }
        return result
    }

    /// The value of a promise that must fulfill within `seconds`.
    func value<T: Sendable>(of promise: Promise<T>, within seconds: TimeInterval = 10,
                            file: StaticString = #filePath, line: UInt = #line) throws -> T {
        guard let result = settle(promise, within: seconds, file: file, line: line) else {
            throw RawFetchError.timedOutWaiting(seconds)
        }
        return try result.get()
    }

    /// The error of a promise that must reject within `seconds` (nil, with a failure recorded, otherwise).
    func failure<T: Sendable>(of promise: Promise<T>, within seconds: TimeInterval = 10,
                            file: StaticString = #filePath, line: UInt = #line) -> (any Error)? {
        switch settle(promise, within: seconds, file: file, line: line) {
        case .failure(let error)?: return error
        case .success(let value)?:
            XCTFail("expected a rejection, got \(value)", file: file, line: line)
            return nil
        case nil: return nil
        }
    }

    /// A fresh counter key for `/counter/<key>/statuses`, so tests never share server state.
    func counterKey(_ function: String = #function) -> String {
        "\(function.prefix(while: { $0 != "(" }))-\(UUID().uuidString)"
    }

    /// How many requests the server has seen for a counter key.
    func count(for key: String) throws -> Int? {
        try server.fetch("/counter/\(key)").jsonObject["count"] as? Int
    }
}

/// A one-shot slot a promise handler fills and a test thread waits on.
// @unchecked Sendable: `result` is only read and written while holding `lock`; `ready` is a semaphore.
final class ResultSlot<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<T, any Error>?
    private let ready = DispatchSemaphore(value: 0)

    func put(_ value: Result<T, any Error>) {
        lock.withLock { result = value }
        ready.signal()
    }

    func take(within seconds: TimeInterval) -> Result<T, any Error>? {
        guard ready.wait(timeout: .now() + seconds) == .success else { return nil }
        return lock.withLock { result }
    }
}

/// A plugin recording every attempt it sees, and signalling when a request is about to be sent.
// @unchecked Sendable: the arrays are only read and written while holding `lock`; the semaphore is thread-safe.
final class AttemptRecorder: RequestPlugin, @unchecked Sendable {
    private let lock = NSLock()
    private var sentRequests: [URLRequest] = []
    private var receivedResults: [Result<HTTPResponse, NetworkError>] = []
    private let sending = DispatchSemaphore(value: 0)
    private let receiving = DispatchSemaphore(value: 0)
    private let extraHeaders: [String: String]

    /// - Parameter extraHeaders: headers `prepare` adds to every request; default none.
    init(extraHeaders: [String: String] = [:]) {
        self.extraHeaders = extraHeaders
    }

    func prepare(_ request: URLRequest, for endpoint: any Endpoint) -> URLRequest {
        var request = request
        for (name, value) in extraHeaders { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }

    func willSend(_ request: URLRequest) {
        lock.withLock { sentRequests.append(request) }
        sending.signal()
    }

    func didReceive(_ result: Result<HTTPResponse, NetworkError>, for request: URLRequest) {
        lock.withLock { receivedResults.append(result) }
        receiving.signal()
    }

    /// Every request `willSend` saw, in order.
    var sent: [URLRequest] { lock.withLock { sentRequests } }

    /// Every result `didReceive` saw, in order.
    var received: [Result<HTTPResponse, NetworkError>] { lock.withLock { receivedResults } }

    /// The status code of each received attempt (from the response or the error), nil without one.
    var receivedStatusCodes: [Int?] {
        received.map { result in
            switch result {
            case .success(let response): response.statusCode
            case .failure(let error): error.statusCode
            }
        }
    }

    /// Waits until one more request reaches `willSend`; false after `seconds`.
    func waitForSend(within seconds: TimeInterval = 5) -> Bool {
        sending.wait(timeout: .now() + seconds) == .success
    }

    /// Waits until `didReceive` reports one more attempt; false after `seconds`.
    func waitForReceive(within seconds: TimeInterval = 5) -> Bool {
        receiving.wait(timeout: .now() + seconds) == .success
    }
}

/// A thread-safe list of progress reports.
final class ReportLog: @unchecked Sendable {
    // @unchecked: `reports` is only touched while `lock` is held.
    private let lock = NSLock()
    private var reports: [TransferProgress] = []
    var all: [TransferProgress] { lock.withLock { reports } }
    func add(_ report: TransferProgress) { lock.withLock { reports.append(report) } }
}
