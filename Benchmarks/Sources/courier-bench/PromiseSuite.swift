import CMallocCounter
import Dispatch
import NIOCore
import NIOPosix

/// How much work the promise suite does.
struct SuiteOptions {
    var repetitions = 25
    var warmUp = 3
    /// A1/A2-variant chain length and A3 input count.
    var steps = 10_000
    /// Round trips per A2 sample.
    var roundTrips = 2_000
    /// Items per A4 heap measurement.
    var heapItems = 100_000

    /// A fast smoke run: same shape, far fewer repetitions; numbers are not for quoting.
    static let quick = SuiteOptions(repetitions: 3, warmUp: 1, steps: 2_000, roundTrips: 200, heapItems: 10_000)
}

/// Issue 2's promise benchmarks A1–A4 with their targets.
func runPromiseSuite(_ options: SuiteOptions) -> [Row] {
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    defer { try? group.syncShutdownGracefully() }
    let loop = group.next()
    let serial = DispatchQueue(label: "courier-bench.serial")
    let fulfilQueue = DispatchQueue(label: "courier-bench.fulfil")
    let handlerQueue = DispatchQueue(label: "courier-bench.handler")
    let reps = options.repetitions
    let warm = options.warmUp
    var rows: [Row] = []

    // A4 is measured first, while no other work is in flight (heap counters are process-wide),
    // and printed last.
    let heapRows = memoryRows(options, serial: serial, loop: loop)

    let a1 = compare("A1", warmUp: warm, repetitions: reps, [
        CourierWorkloads.mapChain(steps: options.steps, queue: serial),
        DispatchWorkloads.hopChain(steps: options.steps, queue: serial),
        NIOWorkloads.mapChain(steps: options.steps, loop: loop),
        CourierWorkloads.mapChainOnSettledHead(steps: options.steps, queue: serial),
        CourierWorkloads.mapChainAttachOnly(steps: options.steps, queue: serial),
        DispatchWorkloads.asyncTimesN(steps: options.steps, queue: serial),
    ])
    rows += a1Rows(a1)

    let a2 = compare("A2", warmUp: warm, repetitions: reps, [
        CourierWorkloads.roundTrip(count: options.roundTrips, fulfilQueue: fulfilQueue, handlerQueue: handlerQueue),
        DispatchWorkloads.roundTrip(count: options.roundTrips, fulfilQueue: fulfilQueue, handlerQueue: handlerQueue),
        CourierWorkloads.pingPong(count: options.roundTrips, fulfilQueue: fulfilQueue, handlerQueue: handlerQueue),
        DispatchWorkloads.pingPong(count: options.roundTrips, fulfilQueue: fulfilQueue, handlerQueue: handlerQueue),
    ])
    rows += a2Rows(a2)

    let a3 = compare("A3", warmUp: warm, repetitions: reps, [
        CourierWorkloads.whenFulfilled(count: options.steps),
        CourierWorkloads.whenAttachOnly(count: options.steps),
        NIOWorkloads.whenAllSucceed(count: options.steps, loop: loop),
    ])
    rows += a3Rows(a3)
    return rows + heapRows
}

private func sample(_ result: ComparisonResult, _ name: String) -> Samples {
    result.samples.first(where: { $0.name == name }) ?? Samples(name: name)
}

private func a1Rows(_ a1: ComparisonResult) -> [Row] {
    let courier = sample(a1, "Courier map")
    let raw = sample(a1, "raw q.async")
    let nio = sample(a1, "NIO map")
    let settled = sample(a1, "Courier map, settled head")
    let attach = sample(a1, "Courier map (attach only)")
    let rawTimesN = sample(a1, "raw q.async xN")
    return [
        .info("A1", "Courier `map` step, pending head, private serial queue", value: courier.median,
              unit: " ns", spread: courier.spread, cpu: courier.cpuMedian, format: "%.0f"),
        .info("A1", "raw `q.async` hop (reference)", value: raw.median, unit: " ns", spread: raw.spread,
              cpu: raw.cpuMedian, format: "%.0f"),
        .info("A1", "swift-nio `map` step, built off-loop (reference)", value: nio.median, unit: " ns",
              spread: nio.spread, cpu: nio.cpuMedian, format: "%.0f"),
        .limited("A1", "ratio Courier / raw q.async", value: a1.pairedRatio(courier.name, raw.name), unit: "x",
                 cpu: a1.pairedRatio(courier.name, raw.name, cpu: true), limit: 2.0),
        .limited("A1", "ratio Courier / swift-nio", value: a1.pairedRatio(courier.name, nio.name), unit: "x",
                 cpu: a1.pairedRatio(courier.name, nio.name, cpu: true), limit: 1.0),
        .info("A1", "of which attaching the `map` (building the chain)", value: attach.median, unit: " ns",
              spread: attach.spread, cpu: attach.cpuMedian, format: "%.0f"),
        .info("A1", "Courier `map` step, already-fulfilled head", value: settled.median, unit: " ns",
              spread: settled.spread, cpu: settled.cpuMedian, format: "%.0f"),
        .info("A1", "raw `q.async` x N from the caller's thread (second reading of the reference)",
              value: rawTimesN.median, unit: " ns", spread: rawTimesN.spread, cpu: rawTimesN.cpuMedian, format: "%.0f"),
        .limited("A1", "second reading: Courier settled head / raw q.async x N",
                 value: a1.pairedRatio(settled.name, rawTimesN.name), unit: "x",
                 cpu: a1.pairedRatio(settled.name, rawTimesN.name, cpu: true), limit: 2.0),
    ]
}

private func a2Rows(_ a2: ComparisonResult) -> [Row] {
    let courier = sample(a2, "Courier round trip")
    let raw = sample(a2, "raw round trip")
    let courierPing = sample(a2, "Courier ping-pong")
    let rawPing = sample(a2, "raw ping-pong")
    return [
        .info("A2", "Courier create + `done` + fulfil on another queue, caller waits", value: courier.median,
              unit: " ns", spread: courier.spread, cpu: courier.cpuMedian, format: "%.0f"),
        .info("A2", "raw two-hop round trip, caller waits (reference)", value: raw.median, unit: " ns",
              spread: raw.spread, cpu: raw.cpuMedian, format: "%.0f"),
        .limited("A2", "ratio Courier / raw round trip", value: a2.pairedRatio(courier.name, raw.name), unit: "x",
                 cpu: a2.pairedRatio(courier.name, raw.name, cpu: true), limit: 1.15),
        .info("A2", "Courier ping-pong (no waiting thread)", value: courierPing.median, unit: " ns",
              spread: courierPing.spread, cpu: courierPing.cpuMedian, format: "%.0f"),
        .info("A2", "raw ping-pong (reference)", value: rawPing.median, unit: " ns",
              spread: rawPing.spread, cpu: rawPing.cpuMedian, format: "%.0f"),
        .info("A2", "ratio Courier / raw ping-pong", value: a2.pairedRatio(courierPing.name, rawPing.name), unit: "x",
                 cpu: a2.pairedRatio(courierPing.name, rawPing.name, cpu: true)),
    ]
}

private func a3Rows(_ a3: ComparisonResult) -> [Row] {
    let courier = sample(a3, "Courier when")
    let attach = sample(a3, "Courier when (attach only)")
    let nio = sample(a3, "NIO whenAllSucceed")
    return [
        .limited("A3", "`when(fulfilled:)` over 10 000 pending: call + fulfil all + wait, per element",
                 value: courier.median, unit: " ns", spread: courier.spread, cpu: courier.cpuMedian, limit: 250, format: "%.0f"),
        .info("A3", "of which the `when` call (attaching), per element", value: attach.median, unit: " ns",
              spread: attach.spread, cpu: attach.cpuMedian, format: "%.0f"),
        .info("A3", "swift-nio `whenAllSucceed`, same work, per element (reference)", value: nio.median,
              unit: " ns", spread: nio.spread, cpu: nio.cpuMedian, format: "%.0f"),
    ]
}

private func memoryRows(_ options: SuiteOptions, serial: DispatchQueue, loop: any EventLoop) -> [Row] {
    guard mc_is_supported() != 0 else {
        return [Row(id: "A4", measure: "heap and allocation counting (Linux/glibc only)", value: "n/a",
                    spread: "", target: "", verdict: .info)]
    }
    let items = options.heapItems
    // Warm up allocator caches and lazily created runtime metadata once, unmeasured.
    _ = MemoryWorkloads.pendingPromises(count: 1_000, withHandler: true, queue: serial)
    _ = MemoryWorkloads.mapChainLife(steps: 1_000, queue: serial)
    _ = MemoryWorkloads.nioMapChainLife(steps: 1_000, loop: loop)

    let bare = MemoryWorkloads.pendingPromises(count: items, withHandler: false, queue: serial)
    let handled = MemoryWorkloads.pendingPromises(count: items, withHandler: true, queue: serial)
    let attach = MemoryWorkloads.mapAttach(count: items, queue: serial)
    let life = MemoryWorkloads.mapChainLife(steps: options.steps, queue: serial)
    let hop = MemoryWorkloads.hopChainLife(steps: options.steps, queue: serial)
    let nio = MemoryWorkloads.nioMapChainLife(steps: options.steps, loop: loop)
    let sizes = MemoryWorkloads.objectSizes()
    let cancelled = MemoryWorkloads.cancelSettled(count: items)
    return [
        .limited("A4", "heap per \(handled.label)", value: handled.heapBytes, unit: " B", limit: 96, format: "%.0f"),
        .info("A4", "heap per \(bare.label)", value: bare.heapBytes, unit: " B", format: "%.0f"),
        .info("A4", "usable bytes of one pending `Promise<Int>` object (malloc_usable_size)",
              value: Double(sizes.promise), unit: " B", format: "%.0f"),
        .info("A4", "usable bytes of one `Resolver<Int>` object", value: Double(sizes.resolver), unit: " B",
              format: "%.0f"),
        .info("A4", "heap added by \(attach.label)", value: attach.heapBytes, unit: " B", format: "%.0f"),
        .limited("A4", "allocations when \(attach.label)", value: attach.allocations, unit: "", limit: 2),
        .limited("A4", "allocations per \(life.label) (strict reading of the target)",
                 value: life.allocations, unit: "", limit: 2),
        .info("A4", "allocations per \(hop.label)", value: hop.allocations, unit: ""),
        .info("A4", "allocations per \(nio.label)", value: nio.allocations, unit: ""),
        .info("A4", "allocations per \(bare.label)", value: bare.allocations, unit: ""),
        .info("A4", "allocations per \(cancelled.label)", value: cancelled.allocations, unit: ""),
    ]
}

/// Workload names accepted by `courier-bench profile`.
let profileWorkloadNames = [
    "a1-courier", "a1-attach", "a1-settled", "a1-raw", "a1-raw-n", "a1-nio", "a2-courier", "a2-raw", "a3-courier",
    "r3-courier", "r3-courier-get", "r3-courier-plugin", "r3-courier-async", "r3-floor", "t2-unchecked", "r2-courier", "r2-raw", "r2-transport",
    "r2s-courier", "r2s-raw", "r2s-transport", "r2s-transport-hop", "r1s-courier", "r1s-raw", "r1s-raw-nocache",
    "r1s-transport",
]

/// Builds one workload for `courier-bench profile`. The NIO group lives until the process exits.
func profileWorkload(named name: String, _ options: SuiteOptions) -> Workload? {
    let serial = DispatchQueue(label: "courier-bench.profile")
    switch name {
    case "a1-courier": return CourierWorkloads.mapChain(steps: options.steps, queue: serial)
    case "a1-attach": return CourierWorkloads.mapChainAttachOnly(steps: options.steps, queue: serial)
    case "a1-raw": return DispatchWorkloads.hopChain(steps: options.steps, queue: serial)
    case "a1-raw-n": return DispatchWorkloads.asyncTimesN(steps: options.steps, queue: serial)
    case "a1-settled": return CourierWorkloads.mapChainOnSettledHead(steps: options.steps, queue: serial)
    case "a1-nio":
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        return NIOWorkloads.mapChain(steps: options.steps, loop: group.next())
    case "a2-courier":
        return CourierWorkloads.pingPong(
            count: options.roundTrips, fulfilQueue: serial, handlerQueue: DispatchQueue(label: "courier-bench.other"))
    case "a2-raw":
        return DispatchWorkloads.pingPong(
            count: options.roundTrips, fulfilQueue: serial, handlerQueue: DispatchQueue(label: "courier-bench.other"))
    case "a3-courier": return CourierWorkloads.whenFulfilled(count: options.steps)
    // Request workloads of `requests`/`traffic` (in-memory transport, no network): per request.
    case "r3-courier":
        return InMemoryWorkloads.promiseBurst(
            "Courier POST", client: InMemoryWorkloads.makeClient(), endpoint: PostUser(), count: options.steps)
    case "r3-courier-get":
        return InMemoryWorkloads.promiseBurst(
            "Courier GET", client: InMemoryWorkloads.makeClient(), endpoint: GetUser(), count: options.steps)
    case "r3-courier-plugin":
        return InMemoryWorkloads.promiseBurst(
            "Courier POST, one plugin", client: InMemoryWorkloads.makeClient(plugins: [InMemoryWorkloads.SilentPlugin()]),
            endpoint: PostUser(), count: options.steps)
    case "r3-courier-async":
        return InMemoryWorkloads.asyncSequential(
            "Courier POST, async", client: InMemoryWorkloads.makeClient(), count: options.steps)
    case "r3-floor": return InMemoryWorkloads.floor("floor", count: options.steps)
    case "t2-unchecked":
        return InMemoryWorkloads.promiseBurst(
            "unchecked", client: InMemoryWorkloads.makeClient(), endpoint: GetUserUnchecked(), count: options.steps)
    // Loopback workloads of `requests` (16 in flight, AsyncHTTPClient): per request. The fixture
    // (server and clients) lives until the process exits.
    // `r2s-…`: the same, one request at a time.
    case "r2-courier", "r2-raw", "r2-transport", "r2s-courier", "r2s-raw", "r2s-transport", "r2s-transport-hop":
        guard let fixture = try? NetworkFixture() else { return nil }
        let sequential = name.hasPrefix("r2s-")
        let count = sequential ? options.steps / 40 : options.steps / 10
        let inFlight = sequential ? 1 : 16
        switch name.drop(while: { $0 != "-" }) {
        case "-courier":
            return NetworkWorkloads.courier(name, client: fixture.courierAsyncHTTPClient, count: count, inFlight: inFlight)
        case "-raw":
            return NetworkWorkloads.rawAsyncHTTPClient(name, client: fixture.httpClient, url: fixture.url,
                                                       count: count, inFlight: inFlight)
        default:
            return NetworkWorkloads.transportAlone(
                name, transport: fixture.asyncHTTPClientTransport, url: fixture.url, count: count, inFlight: inFlight,
                deliverOn: name.hasSuffix("-hop") ? DispatchQueue(label: "courier-bench.hop") : nil)
        }
    // `r1s-…`: URLSession one request at a time (`raw-nocache`: a session without a URL cache, as
    // `URLSessionTransport` runs on Linux).
    case "r1s-courier", "r1s-raw", "r1s-raw-nocache", "r1s-transport":
        guard let fixture = try? NetworkFixture() else { return nil }
        let count = options.steps / 40
        switch name {
        case "r1s-courier":
            return NetworkWorkloads.courier(name, client: fixture.courierURLSession, count: count, inFlight: 1)
        case "r1s-raw":
            return NetworkWorkloads.rawURLSession(name, session: fixture.rawSession, url: fixture.url, count: count, inFlight: 1)
        case "r1s-raw-nocache":
            return NetworkWorkloads.rawURLSession(
                name, session: fixture.rawSessionWithoutCache, url: fixture.url, count: count, inFlight: 1)
        default:
            return NetworkWorkloads.transportAlone(
                name, transport: fixture.urlSessionTransport, url: fixture.url, count: count, inFlight: 1, deliverOn: nil)
        }
    default: return nil
    }
}
