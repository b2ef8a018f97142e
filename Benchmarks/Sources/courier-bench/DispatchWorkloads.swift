import Dispatch

// The raw libdispatch references: the same work with nothing but `DispatchQueue.async`.

/// Mutable state of a raw hop chain.
///
/// `@unchecked Sendable`: it is touched only by blocks of one serial queue, and read by the
/// benchmark thread after the semaphore signalled that the last block finished.
final class HopChain: @unchecked Sendable {
    var value = 0
    var remaining: Int
    let queue: DispatchQueue
    let finished = DispatchSemaphore(value: 0)

    init(steps: Int, queue: DispatchQueue) {
        remaining = steps
        self.queue = queue
    }

    /// One hop: do the step's work, then enqueue the next hop from inside this one.
    func step() {
        value &+= 1
        remaining -= 1
        if remaining == 0 {
            finished.signal()
        } else {
            queue.async { self.step() }
        }
    }
}

enum DispatchWorkloads {
    /// A1 reference: `steps` sequential `queue.async` hops, each adding one, each enqueued by the
    /// previous hop; the benchmark thread starts the first and waits for the last.
    static func hopChain(steps: Int, queue: DispatchQueue) -> Workload {
        Workload(name: "raw q.async", units: steps) {
            let chain = HopChain(steps: steps, queue: queue)
            let nanoseconds = timed {
                queue.async { chain.step() }
                chain.finished.wait()
            }
            check(chain.value == steps, "raw hop chain produced \(chain.value), expected \(steps)")
            return nanoseconds
        }
    }

    /// A1 second reference, the other reading of "raw `q.async` ×N": the benchmark thread calls
    /// `queue.async` `steps` times (each block adds one) and waits for the last block. Unlike the
    /// hop chain, every block crosses from the caller's thread to the queue's.
    static func asyncTimesN(steps: Int, queue: DispatchQueue) -> Workload {
        Workload(name: "raw q.async xN", units: steps) {
            let chain = HopChain(steps: steps, queue: queue)
            let nanoseconds = timed {
                for _ in 0..<steps {
                    queue.async {
                        chain.value &+= 1
                        if chain.value == steps { chain.finished.signal() }
                    }
                }
                chain.finished.wait()
            }
            check(chain.value == steps, "raw q.async xN produced \(chain.value), expected \(steps)")
            return nanoseconds
        }
    }

    /// A2 reference: per round trip, `fulfilQueue.async { handlerQueue.async { work; signal } }`
    /// and the benchmark thread blocks until the signal.
    static func roundTrip(count: Int, fulfilQueue: DispatchQueue, handlerQueue: DispatchQueue) -> Workload {
        Workload(name: "raw round trip", units: count) {
            let tally = Tally()
            let arrived = DispatchSemaphore(value: 0)
            let nanoseconds = timed {
                for index in 0..<count {
                    fulfilQueue.async {
                        handlerQueue.async {
                            tally.value &+= index
                            arrived.signal()
                        }
                    }
                    arrived.wait()
                }
            }
            check(tally.value == count * (count - 1) / 2, "raw round trips summed \(tally.value)")
            return nanoseconds
        }
    }

    /// A2 variant reference: the two-hop trip restarted from `handlerQueue` with no benchmark thread.
    static func pingPong(count: Int, fulfilQueue: DispatchQueue, handlerQueue: DispatchQueue) -> Workload {
        Workload(name: "raw ping-pong", units: count) {
            let tally = Tally()
            let finished = DispatchSemaphore(value: 0)
            @Sendable func trip(_ index: Int) {
                fulfilQueue.async {
                    handlerQueue.async {
                        tally.value &+= index
                        if index + 1 == count { finished.signal() } else { trip(index + 1) }
                    }
                }
            }
            let nanoseconds = timed {
                handlerQueue.async { trip(0) }
                finished.wait()
            }
            check(tally.value == count * (count - 1) / 2, "raw ping-pong summed \(tally.value)")
            return nanoseconds
        }
    }
}
