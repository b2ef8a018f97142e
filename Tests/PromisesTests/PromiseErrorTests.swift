import Dispatch
import Foundation
import Promises
import XCTest

/// What counts as a cancellation (`isCancellation`, `CancellableError`) and how
/// `PromiseError` describes itself.
final class PromiseErrorTests: XCTestCase {
    private struct TransferError: CancellableError {
        let isCancelled: Bool
    }

    func test_givenEachKindOfError_thenIsCancellationRecognisesOnlyCancellations() {
        XCTAssertTrue(isCancellation(PromiseError.cancelled))
        XCTAssertTrue(isCancellation(CancellationError()))
        XCTAssertTrue(isCancellation(URLError(.cancelled)))
        XCTAssertTrue(isCancellation(TransferError(isCancelled: true)))
        XCTAssertTrue(isCancellation(CocoaError(.userCancelled)))
        XCTAssertTrue(isCancellation(NSError(domain: NSCocoaErrorDomain, code: CocoaError.userCancelled.rawValue)))
        XCTAssertFalse(isCancellation(CocoaError(.fileNoSuchFile)))
        XCTAssertFalse(isCancellation(PromiseError.timedOut))
        XCTAssertFalse(isCancellation(PromiseError.resolverReleased))
        XCTAssertFalse(isCancellation(URLError(.timedOut)))
        XCTAssertFalse(isCancellation(TransferError(isCancelled: false)))
        XCTAssertFalse(isCancellation(TestError(1)))
    }

    func test_givenOwnCancellableError_thenPromisesTreatItAsACancellation() {
        let rejected = Promise<Int>(error: TransferError(isCancelled: true))
        XCTAssertTrue(rejected.isCancelled)
        XCTAssertTrue(rejected.isRejected)

        let caught = Counter()
        let finished = rejected.catch(policy: .allErrorsExceptCancellation) { _ in caught.increment() }.finally {}
        XCTAssertNotNil(value(of: finished))
        XCTAssertEqual(caught.value, 0)

        let runs = Counter()
        let retried = attempt(maximumRetryCount: 3, delayBeforeRetry: .milliseconds(1)) { () -> Promise<Int> in
            runs.increment()
            return Promise(error: TransferError(isCancelled: true))
        }
        XCTAssertEqual((error(of: retried) as? TransferError)?.isCancelled, true)
        XCTAssertEqual(runs.value, 1)
    }

    func test_givenEveryPromiseError_thenItHasADistinctHumanDescription() {
        let all: [PromiseError] = [.timedOut, .cancelled, .resolverReleased, .returnedSelf, .emptyRace, .compactMapReturnedNil, .emptySequence]
        let descriptions = all.map(\.description)
        XCTAssertEqual(Set(descriptions).count, all.count)
        for error in all {
            XCTAssertFalse(error.description.isEmpty)
            XCTAssertEqual(error.errorDescription, error.description)
            XCTAssertEqual(error.localizedDescription, error.description)
        }
        XCTAssertTrue(PromiseError.cancelled.isCancelled)
        XCTAssertFalse(PromiseError.timedOut.isCancelled)
    }
}
