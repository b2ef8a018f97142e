import Dispatch
import Foundation
import Promises
import XCTest

/// Settle, attach and cancel racing from 8+ threads over 10 000+ promises: every promise ends
/// with exactly one outcome and every handler runs exactly once and sees that outcome.
final class StressTests: XCTestCase {
    private let threadCount = 8
    private let promiseCount = 10_000

    /// Runs each of `jobs` on its own `Thread`, all released at once; returns when all finished.
    private func runOnThreads(_ jobs: [@Sendable () -> Void], file: StaticString = #filePath, line: UInt = #line) {
        let start = DispatchSemaphore(value: 0)
        let finished = DispatchGroup()
        for job in jobs {
            finished.enter()
            let thread = Thread {
                start.wait()
                job()
                finished.leave()
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        for _ in jobs { start.signal() }
        XCTAssertEqual(finished.wait(timeout: .now() + 60), .success, "threads finished", file: file, line: line)
    }

    private static func describe(_ result: Result<Int, any Error>) -> String {
        switch result {
        case .success(let value): "fulfilled \(value)"
        case .failure(let error as TestError): "rejected \(error.id)"
        case .failure(let error): "\(error)"
        }
    }

    func test_givenEightThreadsRacingFulfilRejectCancelAndAttach_thenOneOutcomeEachAndEveryHandlerOnce() {
        let count = promiseCount
        let pairs = (0..<count).map { _ in Promise<Int>.pending() }
        let promises = pairs.map(\.promise)
        let resolvers = pairs.map(\.resolver)
        let handlerRuns = Box([Int](repeating: 0, count: count))
        let seen = Box([String?](repeating: nil, count: count))
        let disagreements = Counter()
        let handlersDone = DispatchGroup()
        let attach: @Sendable (Int) -> Void = { index in
            handlersDone.enter()
            _ = promises[index].tap { result in
                let outcome = StressTests.describe(result)
                handlerRuns.mutate { $0[index] += 1 }
                seen.mutate { seen in
                    if let first = seen[index] {
                        if first != outcome { disagreements.increment() }
                    } else {
                        seen[index] = outcome
                    }
                }
                handlersDone.leave()
            }
        }
        for index in 0..<count where index.isMultiple(of: 2) { attach(index) }  // some attached up front
        let ascending = Array(0..<count)
        let descending = Array(ascending.reversed())
        runOnThreads([
            { for index in ascending { resolvers[index].fulfill(index) } },
            { for index in descending { resolvers[index].fulfill(-index) } },
            { for index in ascending { resolvers[index].reject(TestError(index)) } },
            { for index in descending where index.isMultiple(of: 3) { promises[index].cancel() } },
            { for index in ascending { attach(index) } },
            { for index in descending { attach(index) } },
            { for index in ascending where !index.isMultiple(of: 2) { attach(index) } },
            { for index in descending { resolvers[index].onCancel {} } },
        ])
        XCTAssertEqual(handlersDone.wait(timeout: .now() + 60), .success, "every handler ran")
        let runs = handlerRuns.get()
        let outcomes = seen.get()
        for index in 0..<count {
            XCTAssertEqual(runs[index], 3, "handlers of promise \(index)")
            guard let result = promises[index].result else { return XCTFail("promise \(index) pending") }
            XCTAssertEqual(outcomes[index], StressTests.describe(result), "promise \(index)")
            if runs[index] != 3 { return }  // one report is enough
        }
        XCTAssertEqual(disagreements.value, 0, "handlers of one promise saw different outcomes")
    }

    func test_givenChainsRacingCancelAndSettle_thenEachProducerHookRunsAtMostOnceAndEveryChainSettles() {
        let count = promiseCount
        let producers = (0..<count).map { _ in cancellableProducer(Int.self) }
        let chains = producers.map { producer in
            producer.promise.map { $0 + 1 }.then { Promise.value($0) }.get { _ in }
        }
        let endRuns = Box([Int](repeating: 0, count: count))
        let ends = DispatchGroup()
        runOnThreads([
            { for index in 0..<count { chains[index].cancel() } },
            { for index in (0..<count).reversed() { producers[index].resolver.fulfill(index) } },
            { for index in 0..<count where index.isMultiple(of: 2) { producers[index].promise.cancel() } },
            {
                for index in 0..<count {
                    ends.enter()
                    _ = chains[index].ensure {
                        endRuns.mutate { $0[index] += 1 }
                        ends.leave()
                    }
                }
            },
        ])
        XCTAssertEqual(ends.wait(timeout: .now() + 60), .success, "every chain settled")
        XCTAssertEqual(endRuns.get(), [Int](repeating: 1, count: count))
        for (index, producer) in producers.enumerated() {
            let hookRuns = producer.cancelHookRuns.value
            XCTAssertEqual(hookRuns, producer.promise.isCancelled ? 1 : 0, "producer \(index)")
            if hookRuns > 1 { return }
        }
    }

    func test_givenOnePromise_whenCancelledAndHookedFromManyThreads_thenEveryHookRunsExactlyOnce() {
        for _ in 0..<200 {
            let (promise, resolver) = Promise<Int>.pending()
            let hookRuns = Counter()
            let jobs: [@Sendable () -> Void] = (0..<threadCount).map { worker in
                {
                    resolver.onCancel { hookRuns.increment() }
                    if worker.isMultiple(of: 2) { promise.cancel() }
                }
            }
            DispatchQueue.concurrentPerform(iterations: jobs.count) { jobs[$0]() }
            XCTAssertEqual(hookRuns.value, threadCount)
            XCTAssertTrue(promise.isCancelled)
        }
    }

    func test_givenCancelRacingAThenHandlerThatReturnsWork_thenEveryStartedPieceOfWorkIsCancelled() {
        let count = promiseCount / 2
        let queue = makeSerialQueue("adopt-race")
        let started = Box([Int](repeating: 0, count: count))
        let hooks = Box([Int](repeating: 0, count: count))
        let keepAlive = Box<[Resolver<Int>]>([])
        let outers = (0..<count).map { index in
            Promise.value(index).then(on: queue) { _ -> Promise<Int> in
                let (inner, resolver) = Promise<Int>.pending()
                resolver.onCancel { hooks.mutate { $0[index] += 1 } }
                keepAlive.mutate { $0.append(resolver) }  // the work never finishes by itself
                started.mutate { $0[index] += 1 }
                return inner
            }
        }
        runOnThreads([{ for outer in outers { outer.cancel() } }])
        drain(queue)
        XCTAssertTrue(outers.allSatisfy(\.isCancelled))
        XCTAssertEqual(hooks.get(), started.get(), "work started by a handler was not cancelled")
        XCTAssertFalse(started.get().contains { $0 > 1 })
        // Nothing started at all would pass the checks above without exercising the race.
        XCTAssertGreaterThan(started.get().reduce(0, +), 0, "no handler ran before its cancel")
    }

    func test_givenHandlersAttachedWhileAnotherThreadSettles_thenTheyStillRunInAttachmentOrder() {
        let iterations = 3_000
        let handlersPerPromise = 6
        let queue = makeSerialQueue("ordering")
        let orders = (0..<iterations).map { _ in Recorder<Int>() }
        let settler = DispatchQueue(label: "PromisesTests.settler")
        for iteration in 0..<iterations {
            let (promise, resolver) = Promise<Int>.pending()
            let go = DispatchSemaphore(value: 0)
            settler.async {
                go.wait()
                resolver.fulfill(iteration)
            }
            go.signal()
            for handler in 0..<handlersPerPromise {
                _ = promise.done(on: queue) { _ in orders[iteration].record(handler) }
            }
        }
        settler.sync {}
        drain(queue)
        let expected = Array(0..<handlersPerPromise)
        let outOfOrder = orders.filter { $0.events != expected }
        XCTAssertEqual(outOfOrder.count, 0, "first bad order: \(outOfOrder.first?.events ?? [])")
    }
}
