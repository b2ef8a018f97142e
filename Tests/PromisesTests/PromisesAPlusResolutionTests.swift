import Dispatch
import Foundation
import Promises
import XCTest

/// Promises/A+ 2.3, the promise resolution procedure: what `then`/`recover` do with the promise
/// their handler returns, and how a `Resolver` treats competing calls.
final class PromisesAPlusResolutionTests: XCTestCase {
    // MARK: 2.3.1 returning the promise itself

    func test_2_3_1_givenThenHandlerReturnsItsOwnPromise_thenItRejectsWithReturnedSelf() {
        let queue = makeSerialQueue("2.3.1")
        specify(fulfilledWith: 1) { promise, done in
            let own = Box<Promise<Int>?>(nil)
            queue.sync {  // the handler (on `queue`) cannot run before `own` is set
                let chained = promise.then(on: queue) { _ -> Promise<Int> in
                    guard let itself = own.get() else { throw TestError(-1) }
                    return itself
                }
                own.set(chained)
                chained.catch { error in
                    XCTAssertEqual(error as? PromiseError, .returnedSelf)
                    own.set(nil)
                    done()
                }
            }
        }
    }

    func test_2_3_1_givenRecoverHandlerReturnsItsOwnPromise_thenItRejectsWithReturnedSelf() {
        let queue = makeSerialQueue("2.3.1-recover")
        specify(Int.self, rejectedWith: TestError(1)) { promise, done in
            let own = Box<Promise<Int>?>(nil)
            queue.sync {
                let recovered = promise.recover(on: queue) { _ -> Promise<Int> in
                    guard let itself = own.get() else { throw TestError(-1) }
                    return itself
                }
                own.set(recovered)
                recovered.catch { error in
                    XCTAssertEqual(error as? PromiseError, .returnedSelf)
                    own.set(nil)
                    done()
                }
            }
        }
    }

    // MARK: 2.3.2 adopting a returned promise

    func test_2_3_2_1_givenReturnedPromiseIsPending_thenPromise2StaysPendingUntilItSettles() {
        let queue = makeSerialQueue("2.3.2.1")
        let (inner, innerResolver) = Promise<Int>.pending()
        let handlerRan = expectation(description: "handler ran")
        let chained = Promise.value(0).then(on: queue) { _ -> Promise<Int> in
            handlerRan.fulfill()
            return inner
        }
        wait(for: [handlerRan], timeout: testTimeout)
        drain(queue)
        XCTAssertTrue(chained.isPending)
        innerResolver.fulfill(5)
        XCTAssertEqual(value(of: chained), 5)
    }

    func test_2_3_2_2_givenReturnedPromiseFulfils_thenPromise2FulfilsWithTheSameValue() {
        specify(fulfilledWith: 11) { inner, done in
            _ = Promise.value(0).then { _ in inner }.done { value in
                XCTAssertEqual(value, 11)
                done()
            }
        }
        specify(fulfilledWith: 12) { inner, done in
            _ = Promise<Int>(error: TestError(1)).recover { _ in inner }.done { value in
                XCTAssertEqual(value, 12)
                done()
            }
        }
    }

    func test_2_3_2_3_givenReturnedPromiseRejects_thenPromise2RejectsWithTheSameReason() {
        specify(Int.self, rejectedWith: TestError(13)) { inner, done in
            Promise.value(0).then { _ in inner }.catch { error in
                XCTAssertEqual(error as? TestError, TestError(13))
                done()
            }
        }
        specify(Int.self, rejectedWith: TestError(14)) { inner, done in
            Promise<Int>(error: TestError(1)).recover { _ in inner }.catch { error in
                XCTAssertEqual(error as? TestError, TestError(14))
                done()
            }
        }
    }

    func test_2_3_2_givenNestedReturnedPromises_thenTheInnermostOutcomeWins() {
        specify(fulfilledWith: 3) { innermost, done in
            _ = Promise.value(1).then { _ in
                Promise.value(2).then { _ in
                    after(.milliseconds(5)).then { innermost }
                }
            }.done { value in
                XCTAssertEqual(value, 3)
                done()
            }
        }
    }

    // MARK: 2.3.3.3 competing resolve calls: the first wins, later calls and throws are ignored

    func test_2_3_3_3_3_givenResolverCalledSeveralTimes_thenTheFirstCallTakesPrecedence() {
        let fulfilledFirst = Promise<Int> { seal in
            seal.fulfill(1)
            seal.reject(TestError(2))
            seal.fulfill(3)
        }
        XCTAssertEqual(value(of: fulfilledFirst), 1)
        let rejectedFirst = Promise<Int> { seal in
            seal.reject(TestError(1))
            seal.fulfill(2)
        }
        XCTAssertEqual(error(of: rejectedFirst) as? TestError, TestError(1))
        let viaResult = Promise<Int> { seal in
            seal.resolve(.success(4))
            seal.resolve(nil, TestError(5))
        }
        XCTAssertEqual(value(of: viaResult), 4)
    }

    func test_2_3_3_3_4_givenBodyThrowsAfterSettling_thenTheThrowIsIgnored() {
        let settled = Promise<Int> { seal in
            seal.fulfill(1)
            throw TestError(2)
        }
        XCTAssertEqual(value(of: settled), 1)
    }

    func test_2_3_3_3_4_givenBodyThrowsBeforeSettling_thenThePromiseRejectsWithTheThrow() {
        let thrown = Promise<Int> { _ in throw TestError(3) }
        XCTAssertEqual(error(of: thrown) as? TestError, TestError(3))
        let first = firstly { () throws -> Promise<Int> in throw TestError(4) }
        XCTAssertEqual(error(of: first) as? TestError, TestError(4))
    }

    // MARK: 2.3.4 plain values

    func test_2_3_4_givenHandlerReturnsAPlainValue_thenPromise2FulfilsWithIt() {
        specify(fulfilledWith: "x") { promise, done in
            let optional = promise.map { _ -> Int? in nil }
            let void = promise.done { _ in }
            _ = when(fulfilled: optional, void).done { pair in
                XCTAssertNil(pair.0)
                done()
            }
        }
    }

    func test_2_3_givenResolverCompletionPair_thenErrorWinsAndNeitherRejects() {
        XCTAssertEqual(value(of: Promise<Int> { $0.resolve(1, nil) }), 1)
        XCTAssertEqual(error(of: Promise<Int> { $0.resolve(1, TestError(1)) }) as? TestError, TestError(1))
        XCTAssertEqual(error(of: Promise<Int> { $0.resolve(nil, nil) }) as? PromiseError, .resolverReleased)
    }
}
