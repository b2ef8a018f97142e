import Foundation
import XCTest
@testable import Courier
import Promises

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An endpoint for stub tests: everything configurable, `sampleData` included.
struct StubEndpoint<Response: Decodable & Sendable>: Endpoint {
    var path: String
    var method: HTTPMethod = .get
    var query: [URLQueryItem] = []
    var headers: [String: String] = [:]
    var timeout: TimeInterval?
    var retryPolicy: RetryPolicy?
    var requiresAuthentication = true
    var sampleData = Data()
}

typealias StubJSONEndpoint = StubEndpoint<JSON>

/// Waits (bounded) for a promise and returns its result; fails the test on timeout.
func settle<T>(_ promise: Promise<T>, within seconds: TimeInterval = 5, file: StaticString = #filePath, line: UInt = #line) -> Result<T, any Error>? {
    let done = DispatchSemaphore(value: 0)
    promise.tap { _ in done.signal() }.catch { _ in }
    guard done.wait(timeout: .now() + seconds) == .success else {
        XCTFail("promise still pending after \(seconds) s", file: file, line: line)
        return nil
    }
    return promise.result
}

/// The `NetworkError` a settled promise was rejected with, or nil.
func networkError<T>(_ result: Result<T, any Error>?) -> NetworkError? {
    if case .failure(let error as NetworkError)? = result { return error }
    return nil
}

/// Reads `source` to its end in a task of its own: the data of each event, and the error that
/// ended it (`nil` when it ended without one).
func readingAll(_ source: EventSource) -> Task<(events: [String], error: (any Error)?), Never> {
    Task {
        var events: [String] = []
        do {
            for try await event in source { events.append(event.data) }
        } catch {
            return (events, error)
        }
        return (events, nil)
    }
}
