import Foundation
import XCTest
import Courier
import Promises
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The hostile-response corpus served through the whole pipeline by a stubbed client: every row must
/// end in exactly its named outcome, as a typed `NetworkError` — never a crash, never a hang.
final class HostileResponseStubTests: XCTestCase {
    /// The bound on each request; a row that takes longer counts as a hang.
    private let perRowTimeout: TimeInterval = 30

    func test_givenEveryRow_whenServedByAStub_thenTheRequestEndsInTheNamedOutcome() {
        for row in HostileCorpus.all {
            let client = NetworkClient.stubbing()
                .respond { _ in StubResponse(status: row.status, headers: row.headers, body: row.body) }
                .makeClient()
            let result = outcome(of: row, from: client)
            XCTAssertEqual(result.outcome, row.expected, "row: \(row)")
        }
    }

    /// The promise style: `wait()` on a promise bounded by `timeout(seconds:)`.
    func test_givenEveryRow_whenRequestedAsAPromise_thenItRejectsWithTheNamedError() {
        for row in HostileCorpus.all {
            let client = NetworkClient.stubbing()
                .respond { _ in StubResponse(status: row.status, headers: row.headers, body: row.body) }
                .makeClient()
            let outcome: HostileOutcome
            do {
                switch row.target {
                case .item: _ = try client.request(CorpusEndpoint<CorpusItem>()).timeout(seconds: perRowTimeout).wait()
                case .json: _ = try client.request(CorpusEndpoint<JSON>()).timeout(seconds: perRowTimeout).wait()
                }
                outcome = .decoded
            } catch let error as NetworkError {
                outcome = HostileOutcome(error)
            } catch {
                outcome = .other("\(error)")
            }
            XCTAssertEqual(outcome, row.expected, "row: \(row)")
        }
    }

    func test_givenEveryFailingRow_whenServedByAStub_thenErrorTextAndLogsAreShortAndSecretFree() {
        for row in HostileCorpus.all where row.expected != .decoded {
            let lines = LogLines()
            var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
            configuration.plugins = [LoggingPlugin(options: .errorResponseBody) { lines.append($0) }]
            let client = NetworkClient.stubbing()
                .respond { _ in StubResponse(status: row.status, headers: row.headers, body: row.body) }
                .makeClient(configuration: configuration)
            guard let error = outcome(of: row, from: client).error else {
                XCTFail("row \(row) did not fail")
                continue
            }
            for text in [error.description, error.localizedDescription] + lines.values {
                XCTAssertLessThanOrEqual(text.count, 1_000, "row: \(row)")
                XCTAssertFalse(text.contains(HostileCorpus.secret), "secret leaked for row \(row): \(text)")
            }
        }
    }

    /// All rows at once through one client: the pipeline stays typed under concurrency too.
    func test_givenAllRowsConcurrentlyOnOneClient_whenServed_thenEachEndsInItsOutcome() {
        let rows = HostileCorpus.all
        let client = NetworkClient.stubbing()
            .respond { request in
                let index = request.url.flatMap { Int($0.lastPathComponent) } ?? -1
                guard rows.indices.contains(index) else { return StubResponse(status: 410) }
                let row = rows[index]
                return StubResponse(status: row.status, headers: row.headers, body: row.body)
            }
            .makeClient()
        let outcomes = OutcomeMap()
        var expectations: [XCTestExpectation] = []
        for (index, row) in rows.enumerated() {
            let finished = expectation(description: row.name)
            expectations.append(finished)
            let record: @Sendable (HostileOutcome) -> Void = { outcomes.set(index, $0); finished.fulfill() }
            switch row.target {
            case .item:
                client.request(CorpusEndpoint<CorpusItem>(path: "rows/\(index)")) { record(Self.outcome(of: $0)) }
            case .json:
                client.request(CorpusEndpoint<JSON>(path: "rows/\(index)")) { record(Self.outcome(of: $0)) }
            }
        }
        wait(for: expectations, timeout: 120)
        for (index, row) in rows.enumerated() {
            XCTAssertEqual(outcomes.get(index), row.expected, "row: \(row)")
        }
    }

    // MARK: - Helpers

    /// Sends the row's endpoint (decoding into the row's target) and waits at most ``perRowTimeout``.
    private func outcome(of row: HostileResponse, from client: NetworkClient)
        -> (outcome: HostileOutcome?, error: NetworkError?) {
        let finished = expectation(description: row.name)
        let box = ResultBox()
        let record: @Sendable (HostileOutcome, NetworkError?) -> Void = { box.set($0, $1); finished.fulfill() }
        switch row.target {
        case .item:
            client.request(CorpusEndpoint<CorpusItem>()) { record(Self.outcome(of: $0), $0.failure) }
        case .json:
            client.request(CorpusEndpoint<JSON>()) { record(Self.outcome(of: $0), $0.failure) }
        }
        let waited = XCTWaiter().wait(for: [finished], timeout: perRowTimeout)
        XCTAssertEqual(waited, .completed, "row \(row) did not finish within \(perRowTimeout) s")
        return box.get()
    }

    private static func outcome<T>(of result: Result<T, NetworkError>) -> HostileOutcome {
        switch result {
        case .success: .decoded
        case .failure(let error): HostileOutcome(error)
        }
    }
}

/// An endpoint that carries a credential-like query item, so descriptions can be checked for leaks.
private struct CorpusEndpoint<Response: Decodable & Sendable>: Endpoint {
    var path: String = "items/7"
    var query: [URLQueryItem] { [URLQueryItem(name: "access_token", value: HostileCorpus.secret)] }
    var requiresAuthentication: Bool { false }
}

private extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

// @unchecked Sendable: `value` is only touched while holding `lock`.
private final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value: (HostileOutcome?, NetworkError?) = (nil, nil)

    func set(_ outcome: HostileOutcome, _ error: NetworkError?) { lock.withLock { value = (outcome, error) } }
    func get() -> (outcome: HostileOutcome?, error: NetworkError?) { lock.withLock { value } }
}

// @unchecked Sendable: `storage` is only touched while holding `lock`.
private final class OutcomeMap: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Int: HostileOutcome] = [:]

    func set(_ index: Int, _ outcome: HostileOutcome) { lock.withLock { storage[index] = outcome } }
    func get(_ index: Int) -> HostileOutcome? { lock.withLock { storage[index] } }
}

// @unchecked Sendable: `storage` is only touched while holding `lock`.
private final class LogLines: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [String] = []

    func append(_ line: String) { lock.withLock { storage.append(line) } }
    var values: [String] { lock.withLock { storage } }
}
