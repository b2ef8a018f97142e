import Dispatch
import Promises

// Courier's side of the promise benchmarks. Every workload checks its own answer.

/// A mutable counter shared between a workload and the handlers it schedules.
///
/// `@unchecked Sendable`: every access happens on one serial queue, or strictly before
/// a handler is scheduled / after a semaphore signalled that the handlers finished.
final class Tally: @unchecked Sendable {
    var value = 0
}

enum CourierWorkloads {
    /// A1: a pending head, `steps` chained `map`s each delivered on `queue`, then fulfil and wait.
    /// The time covers building the chain, settling it and the final wait.
    static func mapChain(steps: Int, queue: DispatchQueue) -> Workload {
        Workload(name: "Courier map", units: steps) {
            var answer = -1
            let nanoseconds = timed {
                let (head, seal) = Promise<Int>.pending()
                var tail = head
                for _ in 0..<steps {
                    tail = tail.map(on: queue) { $0 &+ 1 }
                }
                seal.fulfill(0)
                answer = (try? tail.wait()) ?? -1
            }
            check(answer == steps, "Courier map chain produced \(answer), expected \(steps)")
            return nanoseconds
        }
    }

    /// A1 detail: only attaching `steps` chained `map`s to a pending head; fulfilling and waiting
    /// happen after the clock stops.
    static func mapChainAttachOnly(steps: Int, queue: DispatchQueue) -> Workload {
        Workload(name: "Courier map (attach only)", units: steps) {
            let (head, seal) = Promise<Int>.pending()
            var tail = head
            let nanoseconds = timed {
                for _ in 0..<steps {
                    tail = tail.map(on: queue) { $0 &+ 1 }
                }
            }
            seal.fulfill(0)
            let answer = (try? tail.wait()) ?? -1
            check(answer == steps, "Courier map chain (attach only) produced \(answer), expected \(steps)")
            return nanoseconds
        }
    }

    /// A1 variant: the same chain hung off an already fulfilled promise, so the first steps
    /// settle while later ones are still being attached.
    static func mapChainOnSettledHead(steps: Int, queue: DispatchQueue) -> Workload {
        Workload(name: "Courier map, settled head", units: steps) {
            var answer = -1
            let nanoseconds = timed {
                var tail = Promise<Int>.value(0)
                for _ in 0..<steps {
                    tail = tail.map(on: queue) { $0 &+ 1 }
                }
                answer = (try? tail.wait()) ?? -1
            }
            check(answer == steps, "Courier settled-head chain produced \(answer), expected \(steps)")
            return nanoseconds
        }
    }

    /// A2: per round trip, the benchmark thread creates a pending promise, attaches one `done`
    /// handler on `handlerQueue`, asks `fulfilQueue` to fulfil it, and blocks until the handler ran.
    static func roundTrip(count: Int, fulfilQueue: DispatchQueue, handlerQueue: DispatchQueue) -> Workload {
        Workload(name: "Courier round trip", units: count) {
            let tally = Tally()
            let arrived = DispatchSemaphore(value: 0)
            let nanoseconds = timed {
                for index in 0..<count {
                    let (promise, seal) = Promise<Int>.pending()
                    _ = promise.done(on: handlerQueue) { value in
                        tally.value &+= value
                        arrived.signal()
                    }
                    fulfilQueue.async { seal.fulfill(index) }
                    arrived.wait()
                }
            }
            check(tally.value == count * (count - 1) / 2, "Courier round trips summed \(tally.value)")
            return nanoseconds
        }
    }

    /// A2 variant without the benchmark thread: each handler, on `handlerQueue`, starts the next
    /// round trip, so only the two queues take part (no semaphore wake-up per trip).
    static func pingPong(count: Int, fulfilQueue: DispatchQueue, handlerQueue: DispatchQueue) -> Workload {
        Workload(name: "Courier ping-pong", units: count) {
            let tally = Tally()
            let finished = DispatchSemaphore(value: 0)
            @Sendable func trip(_ index: Int) {
                let (promise, seal) = Promise<Int>.pending()
                _ = promise.done(on: handlerQueue) { value in
                    tally.value &+= value
                    if index + 1 == count { finished.signal() } else { trip(index + 1) }
                }
                fulfilQueue.async { seal.fulfill(index) }
            }
            let nanoseconds = timed {
                handlerQueue.async { trip(0) }
                finished.wait()
            }
            check(tally.value == count * (count - 1) / 2, "Courier ping-pong summed \(tally.value)")
            return nanoseconds
        }
    }

    /// A3: `when(fulfilled:)` over `count` pending promises made beforehand (untimed); the time
    /// covers the `when` call, fulfilling every input in order, and waiting for the combined result.
    static func whenFulfilled(count: Int) -> Workload {
        Workload(name: "Courier when", units: count) {
            var promises: [Promise<Int>] = []
            var resolvers: [Resolver<Int>] = []
            promises.reserveCapacity(count)
            resolvers.reserveCapacity(count)
            for _ in 0..<count {
                let (promise, resolver) = Promise<Int>.pending()
                promises.append(promise)
                resolvers.append(resolver)
            }
            var total = 0
            let nanoseconds = timed {
                let all = when(fulfilled: promises)
                for (index, resolver) in resolvers.enumerated() { resolver.fulfill(index) }
                total = ((try? all.wait()) ?? []).reduce(0, &+)
            }
            check(total == count * (count - 1) / 2, "Courier when summed \(total)")
            withExtendedLifetime((promises, resolvers)) {}
            return nanoseconds
        }
    }

    /// A3 detail: only the `when(fulfilled:)` call over `count` pending promises (attaching).
    static func whenAttachOnly(count: Int) -> Workload {
        Workload(name: "Courier when (attach only)", units: count) {
            var promises: [Promise<Int>] = []
            var resolvers: [Resolver<Int>] = []
            promises.reserveCapacity(count)
            resolvers.reserveCapacity(count)
            for _ in 0..<count {
                let (promise, resolver) = Promise<Int>.pending()
                promises.append(promise)
                resolvers.append(resolver)
            }
            var all: Promise<[Int]>?
            let nanoseconds = timed { all = when(fulfilled: promises) }
            for (index, resolver) in resolvers.enumerated() { resolver.fulfill(index) }
            let total = ((try? all?.wait()) ?? []).reduce(0, &+)
            check(total == count * (count - 1) / 2, "Courier when (attach only) summed \(total)")
            return nanoseconds
        }
    }
}
