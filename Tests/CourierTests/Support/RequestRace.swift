import Dispatch
import Foundation
@testable import Courier
import Promises
import XCTest

/// Starts `count` requests of `endpoint(index)` from many threads at once and races them: even
/// ones in the promise style, odd ones with a completion handler (a handler called twice shows in
/// the counts, where a promise would ignore a second settlement silently). Every 97th pauses the
/// client and resumes it, every 7th is cancelled at once and every 11th from another queue, and
/// every `cancelAllEvery`th (if given) calls `cancelAll()`.
///
/// `check` sees each request's index and outcome (a completion's error as `any Error`). Returns how many times each
/// request's outcome arrived, or `nil` (after a failure is recorded) when some never did within
/// 30 seconds.
func raceRequests<E: Endpoint>(
    on client: NetworkClient, count: Int, cancelAllEvery: Int? = nil,
    _ endpoint: @escaping @Sendable (Int) -> E,
    check: @escaping @Sendable (Int, Result<E.Response, any Error>) -> Void,
    file: StaticString = #filePath, line: UInt = #line
) -> [Int]? where E.Response: Sendable {
    let calls = SharedValue([Int](repeating: 0, count: count))
    let group = DispatchGroup()
    DispatchQueue.concurrentPerform(iterations: count) { index in
        if index.isMultiple(of: 97) { client.pause() }
        group.enter()
        let cancel: @Sendable () -> Void
        if index.isMultiple(of: 2) {
            let promise = client.request(endpoint(index))
            _ = promise.tap { result in
                check(index, result)
                calls.withLock { $0[index] += 1 }
                group.leave()
            }
            cancel = { promise.cancel() }
        } else {
            let task = client.request(endpoint(index)) { (result: Result<E.Response, NetworkError>) in
                check(index, result.mapError { $0 })
                calls.withLock { $0[index] += 1 }
                group.leave()
            }
            cancel = { task.cancel() }
        }
        if index.isMultiple(of: 7) { cancel() }
        if index.isMultiple(of: 11) { DispatchQueue.global().async { cancel() } }
        if index.isMultiple(of: 97) { client.resume() }
        if let cancelAllEvery, index.isMultiple(of: cancelAllEvery) { client.cancelAll() }
    }
    guard group.wait(timeout: .now() + 30) == .success else {
        XCTFail("some requests never settled", file: file, line: line)
        return nil
    }
    return calls.withLock { $0 }
}
