import Dispatch
import Foundation
import Promises
import XCTest

/// `queue.async(.promise) { … }`: PromiseKit's way into a chain from a queue.
final class DispatchQueuePromiseTests: XCTestCase {
    private struct Broken: Error, Equatable {}

    func test_givenABody_whenRunAsync_thenItRunsOnTheQueueAndFulfilsWithItsResult() throws {
        let queue = DispatchQueue(label: "async-promise")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 7)
        let promise = queue.async(.promise) { () -> Int? in DispatchQueue.getSpecific(key: key) }
        XCTAssertEqual(try promise.wait(), 7)
    }

    func test_givenABodyThatThrows_whenRunAsync_thenThePromiseRejectsWithTheError() {
        let promise = DispatchQueue.global().async(.promise) { () throws -> Int in throw Broken() }
        XCTAssertThrowsError(try promise.wait()) { XCTAssertEqual($0 as? Broken, Broken()) }
    }

    func test_givenACancelBeforeTheBodyRuns_whenTheQueueResumes_thenTheBodyNeverRuns() {
        let queue = DispatchQueue(label: "held")
        queue.suspend()
        let ran = DispatchSemaphore(value: 0)
        let promise = queue.async(.promise) { ran.signal() }
        promise.cancel()
        queue.resume()
        queue.sync {}   // the body's block, queued before this one, has had its turn
        XCTAssertEqual(ran.wait(timeout: .now()), .timedOut, "a cancelled body must not run")
        XCTAssertTrue(promise.isCancelled)
    }
}
