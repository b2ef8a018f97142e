import Dispatch
import Foundation
import Promises
import XCTest

/// 100 000-link chains settle and cancel without overflowing the stack. Settling and
/// cancelling happen on a thread with a deliberately small stack, so recursion per link
/// would crash the test run.
final class DeepChainTests: XCTestCase {
    private let depth = 100_000

    /// Runs `body` on a fresh thread with a 256 KiB stack and waits for it.
    private func onSmallStack(file: StaticString = #filePath, line: UInt = #line, _ body: @escaping @Sendable () -> Void) {
        let finished = DispatchSemaphore(value: 0)
        let thread = Thread {
            body()
            finished.signal()
        }
        thread.stackSize = 256 << 10
        thread.start()
        XCTAssertEqual(finished.wait(timeout: .now() + 60), .success, file: file, line: line)
    }

    func test_givenA100kMapChain_whenTheRootIsFulfilled_thenTheEndGetsTheValue() {
        let (root, resolver) = Promise<Int>.pending()
        var end = root
        for _ in 0..<depth { end = end.map { $0 + 1 } }
        onSmallStack { resolver.fulfill(0) }
        XCTAssertEqual(value(of: end, timeout: 60), depth)
    }

    func test_givenA100kThenChainReturningPendingPromises_whenTheRootIsFulfilled_thenTheEndGetsTheValue() {
        let (root, resolver) = Promise<Int>.pending()
        var end = root
        for _ in 0..<depth {
            end = end.then { value in
                Promise<Int> { seal in DispatchQueue.global().async { seal.fulfill(value + 1) } }
            }
        }
        onSmallStack { resolver.fulfill(0) }
        XCTAssertEqual(value(of: end, timeout: 60), depth)
    }

    /// `countdown(n)` nests `n` adoptions: each link's handler returns the next, still-pending
    /// link, so the innermost result must travel out through 100 000 adopting promises.
    private static func countdown(_ remaining: Int, innermost: @escaping @Sendable () -> Promise<Int>) -> Promise<Int> {
        guard remaining > 0 else { return innermost() }
        return Promise.value(remaining - 1).then { countdown($0, innermost: innermost) }
    }

    func test_givenA100kRecursiveThenLoop_whenTheInnermostSettles_thenTheOutermostSettlesWithIt() {
        let (innermost, resolver) = Promise<Int>.pending()
        let reachedBottom = expectation(description: "innermost link created")
        let outermost = DeepChainTests.countdown(depth) {
            reachedBottom.fulfill()
            return innermost
        }
        wait(for: [reachedBottom], timeout: 60)
        XCTAssertTrue(outermost.isPending)
        onSmallStack { resolver.fulfill(7) }
        XCTAssertEqual(value(of: outermost, timeout: 60), 7)
    }

    func test_givenA100kRecursiveThenLoop_whenTheOutermostIsCancelled_thenTheInnermostWorkIsCancelled() {
        let (innermost, resolver, hookRuns) = cancellableProducer(Int.self)
        let cancelled = expectation(description: "innermost work cancelled")
        resolver.onCancel { cancelled.fulfill() }
        let reachedBottom = expectation(description: "innermost link created")
        let outermost = DeepChainTests.countdown(depth) {
            reachedBottom.fulfill()
            return innermost
        }
        wait(for: [reachedBottom], timeout: 60)
        onSmallStack { outermost.cancel() }
        wait(for: [cancelled], timeout: 60)
        XCTAssertEqual(hookRuns.value, 1)
        XCTAssertTrue(outermost.isCancelled)
    }

    func test_givenA100kMapChain_whenCancelledFromItsEnd_thenTheRootProducerIsCancelled() {
        let (root, resolver, hookRuns) = cancellableProducer(Int.self)
        var end = root
        for _ in 0..<depth { end = end.map { $0 + 1 } }
        let last = end
        onSmallStack { last.cancel() }
        XCTAssertEqual(hookRuns.value, 1)
        XCTAssertTrue(root.isCancelled)
        XCTAssertEqual(settledError(last) as? PromiseError, .cancelled)
        withExtendedLifetime(resolver) {}
    }

    func test_givenA100kChainOnAPendingPromise_whenItsResolverIsReleased_thenTheEndRejects() {
        let holder = Box<Resolver<Int>?>(nil)
        let root = Promise<Int> { holder.set($0) }
        var end = root
        for _ in 0..<depth { end = end.get { _ in } }
        onSmallStack { holder.set(nil) }
        XCTAssertEqual(error(of: end, timeout: 60) as? PromiseError, .resolverReleased)
    }

    // MARK: Combinators nested in one another

    /// Each `race` takes the previous one's result as its only input: settling the innermost
    /// settles every level, which used to take a stack frame set per level.
    func test_givenRacesNested100kDeep_whenTheInnermostSettles_thenTheOutermostGetsTheValue() {
        let (root, seal) = Promise<Int>.pending()
        var end = root
        for _ in 0..<depth { end = race([end]) }
        onSmallStack { seal.fulfill(7) }
        XCTAssertEqual(value(of: end, timeout: 60), 7)
    }

    /// Rejected, the failure travels out level by level too, and each level cancels its other
    /// input on the way (a second, pending input per level).
    func test_givenRacesNested100kDeep_whenTheInnermostRejects_thenTheOutermostRejects() {
        let (root, seal) = Promise<Int>.pending()
        let (never, neverSeal) = Promise<Int>.pending()
        var end = root
        for _ in 0..<depth { end = race([end, never]) }
        onSmallStack { seal.reject(TestError(5)) }
        XCTAssertEqual(error(of: end, timeout: 60) as? TestError, TestError(5))
        withExtendedLifetime(neverSeal) {}
    }

    /// Cancelling the outermost of 100 000 nested `when`s reaches the innermost input: each
    /// level's cancel hook cancels the next level down, and those cancels now join one loop.
    func test_givenWhensNested100kDeep_whenTheOutermostIsCancelled_thenTheInnermostProducerHearsIt() {
        let cancelled = DispatchSemaphore(value: 0)
        let (root, seal) = Promise<Int>.pending()
        seal.onCancel { cancelled.signal() }
        var end = root
        for _ in 0..<depth { end = when(fulfilled: [end]).map { $0[0] } }
        let outermost = end
        onSmallStack { outermost.cancel() }
        XCTAssertEqual(cancelled.wait(timeout: .now() + 60), .success, "the innermost producer was not cancelled")
        XCTAssertTrue(root.isCancelled)
        XCTAssertEqual(error(of: outermost, timeout: 60) as? PromiseError, .cancelled)
        withExtendedLifetime(seal) {}
    }
}
