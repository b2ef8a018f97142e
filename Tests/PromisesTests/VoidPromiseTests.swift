import Foundation
import Promises
import XCTest

/// The `Promise<Void>` conveniences PromiseKit code relies on: `Promise()` and `seal.resolve` for
/// callbacks that report only an error.
final class VoidPromiseTests: XCTestCase {
    private struct SaveFailed: Error, Equatable {}

    /// A callback API that reports only an error, as many persistence and system APIs do.
    private func save(failing: Bool, completion: @escaping @Sendable ((any Error)?) -> Void) {
        DispatchQueue.global().async { completion(failing ? SaveFailed() : nil) }
    }

    func test_givenPromiseWithNoArguments_thenItIsAlreadyFulfilled() {
        let done: Promise<Void> = Promise()
        guard case .success? = done.result else { return XCTFail("Promise() must be fulfilled at once") }
        XCTAssertEqual(value(of: done.map { _ in "next" }), "next")
    }

    func test_givenAnErrorOnlyCallback_whenPassedSealResolve_thenNilFulfilsAndAnErrorRejects() {
        let saved = Promise<Void> { seal in save(failing: false, completion: seal.resolve) }
        XCTAssertNotNil(value(of: saved))
        let failed = Promise<Void> { seal in save(failing: true, completion: seal.resolve) }
        XCTAssertEqual(error(of: failed) as? SaveFailed, SaveFailed())
    }

    func test_givenResolveWithAnErrorThenNil_thenTheFirstOutcomeStays() {
        let (promise, seal) = Promise<Void>.pending()
        seal.resolve(SaveFailed())
        seal.resolve(nil)
        XCTAssertEqual(settledError(promise) as? SaveFailed, SaveFailed())
    }

    func test_givenAOneLineRecoverOnAVoidPromise_whenItReturnsAPromise_thenThePromiseIsAdopted() {
        let replacement = Promise<Void>(error: TestError(9))
        let recovered = Promise<Void>(error: SaveFailed()).recover { _ in replacement }
        XCTAssertEqual(error(of: recovered) as? TestError, TestError(9),
                       "recover adopted the replacement (a Void-returning overload would drop it and fulfil)")
    }
}
