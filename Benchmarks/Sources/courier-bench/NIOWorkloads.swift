import NIOCore
import NIOPosix

// swift-nio's EventLoopFuture, the reference for a production-grade future implementation.

enum NIOWorkloads {
    /// A1 reference: on a one-thread MultiThreadedEventLoopGroup, a promise's future with `steps`
    /// chained `map`s built off the loop (from the benchmark thread), then succeeded and waited.
    static func mapChain(steps: Int, loop: any EventLoop) -> Workload {
        Workload(name: "NIO map", units: steps) {
            var answer = -1
            let nanoseconds = timed {
                let head = loop.makePromise(of: Int.self)
                var tail = head.futureResult
                for _ in 0..<steps {
                    tail = tail.map { $0 &+ 1 }
                }
                head.succeed(0)
                answer = (try? tail.wait()) ?? -1
            }
            check(answer == steps, "NIO map chain produced \(answer), expected \(steps)")
            return nanoseconds
        }
    }

    /// A3 reference: `EventLoopFuture.whenAllSucceed` over `count` promises made beforehand
    /// (untimed); the time covers the call, succeeding every input in order and waiting.
    static func whenAllSucceed(count: Int, loop: any EventLoop) -> Workload {
        Workload(name: "NIO whenAllSucceed", units: count) {
            let promises = (0..<count).map { _ in loop.makePromise(of: Int.self) }
            var total = 0
            let nanoseconds = timed {
                let all = EventLoopFuture.whenAllSucceed(promises.map(\.futureResult), on: loop)
                for (index, promise) in promises.enumerated() { promise.succeed(index) }
                total = ((try? all.wait()) ?? []).reduce(0, &+)
            }
            check(total == count * (count - 1) / 2, "NIO whenAllSucceed summed \(total)")
            return nanoseconds
        }
    }
}
