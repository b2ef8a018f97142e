import CMallocCounter
import Dispatch
import NIOCore
import Promises

/// Heap use of one kind of item, averaged over many.
struct MemoryFigure {
    let label: String
    /// Change of `mallinfo2().uordblks` (chunk sizes, allocator overhead included) per item.
    let heapBytes: Double
    /// Calls to malloc/calloc/realloc/memalign per item.
    let allocations: Double
    /// Calls to free per item during the same window.
    let frees: Double
}

/// Measures `body` while counting allocations; `body` returns how many items it made.
/// Nothing else should be running while it does: the counters and `mallinfo2` are process-wide.
func measureHeap(_ label: String, _ body: () -> Int) -> MemoryFigure {
    mc_reset()
    let before = mc_heap_in_use()
    mc_start()
    let items = body()
    mc_stop()
    let after = mc_heap_in_use()
    let count = Double(max(items, 1))
    return MemoryFigure(
        label: label,
        heapBytes: Double(after - before) / count,
        allocations: Double(mc_allocations()) / count,
        frees: Double(mc_frees()) / count
    )
}

enum MemoryWorkloads {
    /// Usable bytes of the heap blocks of one pending `Promise<Int>` and of its `Resolver`.
    static func objectSizes() -> (promise: Int64, resolver: Int64) {
        let (promise, resolver) = Promise<Int>.pending()
        let sizes = (
            mc_usable_size(Unmanaged.passUnretained(promise).toOpaque()),
            mc_usable_size(Unmanaged.passUnretained(resolver).toOpaque())
        )
        withExtendedLifetime((promise, resolver)) {}
        return sizes
    }

    /// A4: `count` pending promises, each with its resolver (without which it cannot stay
    /// pending) and, if `withHandler`, one `map` handler; everything is held in arrays whose
    /// storage is reserved before the window, so only the promises' own memory is counted.
    static func pendingPromises(count: Int, withHandler: Bool, queue: DispatchQueue) -> MemoryFigure {
        var promises: [Promise<Int>] = []
        var resolvers: [Resolver<Int>] = []
        promises.reserveCapacity(count)
        resolvers.reserveCapacity(count)
        let label = withHandler
            ? "pending promise + resolver + one `map` handler (incl. the child promise)"
            : "pending promise + resolver, no handler"
        let figure = measureHeap(label) {
            for _ in 0..<count {
                let (promise, resolver) = Promise<Int>.pending()
                if withHandler { _ = promise.map(on: queue) { $0 &+ 1 } }
                promises.append(promise)
                resolvers.append(resolver)
            }
            return count
        }
        for resolver in resolvers { resolver.fulfill(1) }
        queue.sync {}  // let every handler this made run before the next measurement
        withExtendedLifetime(promises) {}
        return figure
    }

    /// `cancel()` on each of `count` promises that have settled (a fulfilled one, as a view's
    /// `deinit` that cancels its finished request meets it): nothing should be allocated.
    static func cancelSettled(count: Int) -> MemoryFigure {
        let settled = (0..<count).map { Promise<Int>.value($0) }
        return measureHeap("`cancel()` on a settled promise") {
            for promise in settled { promise.cancel() }
            return count
        }
    }

    /// A4: attaching one `map` to each of `count` pending promises made beforehand.
    static func mapAttach(count: Int, queue: DispatchQueue) -> MemoryFigure {
        let pairs = (0..<count).map { _ in Promise<Int>.pending() }
        var children: [Promise<Int>] = []
        children.reserveCapacity(count)
        let figure = measureHeap("attaching one `map` to a pending promise") {
            for pair in pairs { children.append(pair.promise.map(on: queue) { $0 &+ 1 }) }
            return count
        }
        for pair in pairs { pair.resolver.fulfill(1) }
        queue.sync {}
        withExtendedLifetime(children) {}
        return figure
    }

    /// A4: the whole life of a `map` step (attach, settle, hop, run, free), over an A1 chain.
    /// The chain's own fixed cost (its head, resolver, the final wait) is cancelled out by
    /// measuring chains of `steps` and `2 * steps` and dividing the difference by `steps`.
    static func mapChainLife(steps: Int, queue: DispatchQueue) -> MemoryFigure {
        func chain(_ length: Int) -> MemoryFigure {
            measureHeap("whole life of one `map` step in an A1 chain (attach, settle, hop, run)") {
                let (head, seal) = Promise<Int>.pending()
                var tail = head
                for _ in 0..<length { tail = tail.map(on: queue) { $0 &+ 1 } }
                seal.fulfill(0)
                let answer = (try? tail.wait()) ?? -1
                check(answer == length, "allocation chain produced \(answer)")
                queue.sync {}
                return 1
            }
        }
        let short = chain(steps)
        let long = chain(2 * steps)
        let count = Double(steps)
        return MemoryFigure(
            label: short.label,
            heapBytes: (long.heapBytes - short.heapBytes) / count,
            allocations: (long.allocations - short.allocations) / count,
            frees: (long.frees - short.frees) / count
        )
    }

    /// Reference: the whole life of one raw `q.async` hop of the A1 reference.
    static func hopChainLife(steps: Int, queue: DispatchQueue) -> MemoryFigure {
        measureHeap("reference: whole life of one raw `q.async` hop") {
            let chain = HopChain(steps: steps, queue: queue)
            queue.async { chain.step() }
            chain.finished.wait()
            queue.sync {}
            return steps
        }
    }

    /// Reference: the whole life of one NIO `map` step of the A1 reference chain.
    static func nioMapChainLife(steps: Int, loop: any EventLoop) -> MemoryFigure {
        measureHeap("reference: whole life of one NIO `map` step (built off-loop)") {
            let head = loop.makePromise(of: Int.self)
            var tail = head.futureResult
            for _ in 0..<steps { tail = tail.map { $0 &+ 1 } }
            head.succeed(0)
            let answer = (try? tail.wait()) ?? -1
            check(answer == steps, "NIO allocation chain produced \(answer)")
            return steps
        }
    }
}
