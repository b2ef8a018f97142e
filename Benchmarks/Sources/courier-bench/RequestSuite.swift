import Courier
import Dispatch
import Foundation

/// How much work the request and traffic suites do.
struct RequestOptions {
    var repetitions = 15
    var warmUp = 2
    /// Requests per sample against the loopback server, one at a time.
    var sequential = 300
    /// Requests per sample against the loopback server, 16 in flight.
    var concurrent = 1_200
    /// Requests per sample through the in-memory transport.
    var inMemory = 10_000
    /// Requests held while paused (issue 5).
    var backlog = 100_000
    /// Paused-backlog runs (each a fresh client).
    var backlogRuns = 5
    /// `--in-memory`: only R3 (no loopback server), for quick checks of the client's own cost.
    var inMemoryOnly = false

    /// A smoke run: same shape, far less work; numbers are not for quoting.
    static let quick = RequestOptions(
        repetitions: 3, warmUp: 1, sequential: 50, concurrent: 200, inMemory: 1_000, backlog: 10_000, backlogRuns: 1)
}

/// Issue 3: Courier against the engines underneath it, on loopback and in memory.
func runRequestSuite(_ options: RequestOptions) -> [Row] {
    if options.inMemoryOnly { return runInMemoryComparison(options) }
    let fixture: NetworkFixture
    do {
        fixture = try NetworkFixture()
    } catch {
        print("courier-bench: could not start the loopback server: \(error)")
        exit(3)
    }
    defer { fixture.stop() }
    let urlSession = engineRows(
        "R1", engine: "URLSession", short: "URLSession", transportName: "URLSessionTransport", minimum: 0.97,
        options: options, client: fixture.courierURLSession, transport: fixture.urlSessionTransport, url: fixture.url,
        raw: { name, count, inFlight in
            NetworkWorkloads.rawURLSession(name, session: fixture.rawSession, url: fixture.url,
                                           count: count, inFlight: inFlight)
        },
        rawAsync: { name, count, inFlight in
            AsyncNetworkWorkloads.rawURLSession(name, session: fixture.rawSession, url: fixture.url,
                                                count: count, inFlight: inFlight)
        },
        rawWithoutCache: { name, count, inFlight in
            NetworkWorkloads.rawURLSession(name, session: fixture.rawSessionWithoutCache, url: fixture.url,
                                           count: count, inFlight: inFlight)
        })
    let asyncHTTPClient = engineRows(
        "R2", engine: "AsyncHTTPClient", short: "AHC", transportName: "AsyncHTTPClientTransport", minimum: 0.9,
        options: options, client: fixture.courierAsyncHTTPClient, transport: fixture.asyncHTTPClientTransport,
        url: fixture.url,
        raw: { name, count, inFlight in
            NetworkWorkloads.rawAsyncHTTPClient(name, client: fixture.httpClient, url: fixture.url,
                                                count: count, inFlight: inFlight)
        },
        rawAsync: { name, count, inFlight in
            AsyncNetworkWorkloads.rawAsyncHTTPClient(name, client: fixture.httpClient, url: fixture.url,
                                                     count: count, inFlight: inFlight)
        })
    return urlSession + asyncHTTPClient + runInMemoryComparison(options)
}

/// One engine's comparison (R1 or R2), sequential and 16 in flight: Courier over the engine in
/// its three styles, the engine used directly (callback and async APIs), and Courier's transport
/// for that engine used alone, with and without one hop.
private func engineRows(
    _ id: String, engine: String, short: String, transportName: String, minimum: Double,
    options: RequestOptions, client: NetworkClient, transport: any HTTPTransport, url: URL,
    raw: (_ name: String, _ count: Int, _ inFlight: Int) -> Workload,
    rawAsync: (_ name: String, _ count: Int, _ inFlight: Int) -> Workload,
    rawWithoutCache: ((_ name: String, _ count: Int, _ inFlight: Int) -> Workload)? = nil
) -> [Row] {
    var rows: [Row] = []
    for (label, count, inFlight) in [("sequential", options.sequential, 1), ("16 in flight", options.concurrent, 16)] {
        let workloads = [
            NetworkWorkloads.courier("Courier/\(short)", client: client, count: count, inFlight: inFlight),
            raw("raw \(short)", count, inFlight),
            NetworkWorkloads.courierPromise("Courier/\(short), promise", client: client, count: count, inFlight: inFlight),
            NetworkWorkloads.transportAlone("\(transportName) alone", transport: transport, url: url,
                                            count: count, inFlight: inFlight),
            NetworkWorkloads.transportAlone("\(transportName) alone + one hop", transport: transport, url: url,
                                            count: count, inFlight: inFlight,
                                            deliverOn: DispatchQueue(label: "courier-bench.hop")),
            AsyncNetworkWorkloads.courier("Courier/\(short), async", client: client, count: count, inFlight: inFlight),
            rawAsync("raw \(short), async", count, inFlight),
        ] + (rawWithoutCache.map { [$0("raw \(short), no URL cache", count, inFlight)] } ?? [])
        let result = compare("\(id) \(label)", warmUp: options.warmUp, repetitions: options.repetitions, workloads)
        rows += throughputRows(id, label, result, courier: "Courier/\(short)", raw: "raw \(short)",
                               engine: engine, minimum: minimum,
                               extras: ["Courier/\(short), promise", "\(transportName) alone",
                                        "\(transportName) alone + one hop"])
        rows += asyncRows(id, label, result, courier: "Courier/\(short), async", raw: "raw \(short), async",
                          engine: engine)
        if rawWithoutCache != nil {
            let uncached = "raw \(short), no URL cache"
            let samples = result.samples(named: uncached)
            rows += [
                .info(id, "\(uncached), \(label): requests per second", value: samples.medianRate, unit: " /s",
                      spread: samples.rateSpread, cpu: samples.cpuMedianRate, format: "%.0f"),
                .info(id, "throughput Courier / raw \(engine) without a URL cache (as the transport runs on Linux), \(label)",
                      value: result.pairedRatio(uncached, "Courier/\(short)"), unit: "x",
                      spread: result.pairedRatioSpread(uncached, "Courier/\(short)"),
                      cpu: result.pairedRatio(uncached, "Courier/\(short)", cpu: true), format: "%.3f"),
            ]
        }
        rows.append(switchesRow(id, label, workloads))
    }
    return rows
}

/// R3: the client's own cost per request, with a transport that answers in memory.
private func runInMemoryComparison(_ options: RequestOptions) -> [Row] {
    var rows: [Row] = []
    let reps = options.repetitions
    let warm = options.warmUp
    let client = InMemoryWorkloads.makeClient()
    let count = options.inMemory
    let inMemory = [
        InMemoryWorkloads.promiseBurst("Courier POST", client: client, endpoint: PostUser(), count: count),
        InMemoryWorkloads.floor("floor", count: count),
        InMemoryWorkloads.floor("floor + one hand-off", count: count, handOff: true),
        InMemoryWorkloads.completionBurst("Courier POST, completion", client: client, count: count),
        InMemoryWorkloads.asyncSequential("Courier POST, async", client: client, count: count),
        InMemoryWorkloads.promiseBurst("Courier GET", client: client, endpoint: GetUser(), count: count),
        InMemoryWorkloads.promiseSequential("Courier GET, one at a time", client: client, count: count / 5),
    ]
    let r3 = compare("R3", warmUp: warm, repetitions: reps, inMemory)
    rows += inMemoryRows(r3)
    rows.append(switchesRow("R3", "burst", inMemory))
    return rows
}

private func throughputRows(
    _ id: String, _ label: String, _ result: ComparisonResult, courier: String, raw: String,
    engine: String, minimum: Double, extras: [String]
) -> [Row] {
    let ours = result.samples(named: courier)
    let theirs = result.samples(named: raw)
    // Courier's rate over the raw rate = raw time over Courier time, paired per repetition.
    let ratio = result.pairedRatio(raw, courier)
    let cpuRatio = result.pairedRatio(raw, courier, cpu: true)
    // Information rows: the other styles and the transport alone, each as a rate and as a
    // paired throughput ratio against the raw engine.
    let extraRows: [Row] = extras.flatMap { name -> [Row] in
        let other = result.samples(named: name)
        let otherRatio = result.pairedRatio(raw, name)
        return [
            .info(id, "\(name), \(label): requests per second", value: other.medianRate, unit: " /s",
                  spread: other.rateSpread, cpu: other.cpuMedianRate, format: "%.0f"),
            .info(id, "throughput \(name) / raw \(engine), \(label)", value: otherRatio, unit: "x",
                  spread: result.pairedRatioSpread(raw, name), cpu: result.pairedRatio(raw, name, cpu: true),
                  format: "%.3f"),
        ]
    }
    let mainRows: [Row] = [
        .info(id, "Courier over \(engine), \(label): requests per second", value: ours.medianRate, unit: " /s",
              spread: ours.rateSpread, cpu: ours.cpuMedianRate, format: "%.0f"),
        .info(id, "raw \(engine), \(label) (reference)", value: theirs.medianRate, unit: " /s",
              spread: theirs.rateSpread, cpu: theirs.cpuMedianRate, format: "%.0f"),
        .atLeast(id, "throughput Courier / raw \(engine), \(label)", value: ratio, unit: "x",
                 spread: result.pairedRatioSpread(raw, courier), cpu: cpuRatio, minimum: minimum, format: "%.3f"),
    ]
    return mainRows + extraRows
}

/// Information rows for the async/await pair: Courier's `send` against the engine's own async
/// API, both as rates and as a paired throughput ratio.
private func asyncRows(
    _ id: String, _ label: String, _ result: ComparisonResult, courier: String, raw: String, engine: String
) -> [Row] {
    let ours = result.samples(named: courier)
    let theirs = result.samples(named: raw)
    return [
        .info(id, "\(courier), \(label): requests per second", value: ours.medianRate, unit: " /s",
              spread: ours.rateSpread, cpu: ours.cpuMedianRate, format: "%.0f"),
        .info(id, "\(raw), \(label): requests per second", value: theirs.medianRate, unit: " /s",
              spread: theirs.rateSpread, cpu: theirs.cpuMedianRate, format: "%.0f"),
        .info(id, "throughput Courier async / raw \(engine) async, \(label)", value: result.pairedRatio(raw, courier),
              unit: "x", spread: result.pairedRatioSpread(raw, courier), cpu: result.pairedRatio(raw, courier, cpu: true),
              format: "%.3f"),
    ]
}

private func inMemoryRows(_ r3: ComparisonResult) -> [Row] {
    let post = r3.samples(named: "Courier POST")
    let floor = r3.samples(named: "floor")
    let completion = r3.samples(named: "Courier POST, completion")
    let get = r3.samples(named: "Courier GET")
    let oneByOne = r3.samples(named: "Courier GET, one at a time")
    let floorHop = r3.samples(named: "floor + one hand-off")
    let async = r3.samples(named: "Courier POST, async")
    return [
        .info("R3", "Courier POST (in-memory transport), promise style, per request", value: post.median,
              unit: " ns", spread: post.spread, cpu: post.cpuMedian, format: "%.0f"),
        .info("R3", "floor: build the same URLRequest + JSONDecoder decode (reference)", value: floor.median,
              unit: " ns", spread: floor.spread, cpu: floor.cpuMedian, format: "%.0f"),
        // Judged on CPU time: Courier's burst spreads over two threads (caller, gate queue,
        // handler queue) while the floor runs on one, so wall time would credit Courier with
        // the second core. The wall ratio is shown in the Median column.
        cpuLimited("R3", "ratio Courier / floor (target judged on CPU time)",
                   wall: r3.pairedRatio(post.name, floor.name), spread: r3.pairedRatioSpread(post.name, floor.name),
                   cpu: r3.pairedRatio(post.name, floor.name, cpu: true), limit: 2.0),
        .info("R3", "floor + one hand-off to the global queue per request (reference)", value: floorHop.median,
              unit: " ns", spread: floorHop.spread, cpu: floorHop.cpuMedian, format: "%.0f"),
        .info("R3", "ratio Courier / (floor + one hand-off), CPU time", value: r3.pairedRatio(post.name, floorHop.name, cpu: true),
              unit: "x", format: "%.2f"),
        .info("R3", "Courier POST, async style (send awaited in one task: no hand-off)", value: async.median,
              unit: " ns", spread: async.spread, cpu: async.cpuMedian, format: "%.0f"),
        .info("R3", "ratio Courier async / floor, CPU time (wall in Median)", value: r3.pairedRatio(async.name, floor.name),
              unit: "x", spread: r3.pairedRatioSpread(async.name, floor.name),
              cpu: r3.pairedRatio(async.name, floor.name, cpu: true), format: "%.2f"),
        .info("R3", "Courier POST, completion-handler style", value: completion.median, unit: " ns",
              spread: completion.spread, cpu: completion.cpuMedian, format: "%.0f"),
        .info("R3", "Courier GET (no body), promise style", value: get.median, unit: " ns",
              spread: get.spread, cpu: get.cpuMedian, format: "%.0f"),
        .info("R3", "Courier GET one at a time (latency: thread hand-offs, no network)", value: oneByOne.median,
              unit: " ns", spread: oneByOne.spread, cpu: oneByOne.cpuMedian, format: "%.0f"),
    ]
}

/// Context switches (voluntary and involuntary, every thread of the process, the loopback
/// server's included) per request over one extra untimed run of each workload. A voluntary
/// switch is a thread going to sleep to wait, so the count shows how many thread hand-offs a
/// request costs, independently of how long the machine took to make them.
private func switchesRow(_ id: String, _ label: String, _ workloads: [Workload]) -> Row {
    let figures = workloads.map { workload -> String in
        String(format: "%@ %.1f", workload.name, contextSwitchesPerUnit(workload))
    }
    return Row(id: id, measure: "context switches per request, \(label) (one extra run each)",
               value: figures.joined(separator: "; "), spread: "", target: "", verdict: .info)
}

/// Context switches of the whole process per unit of one run of `workload`.
func contextSwitchesPerUnit(_ workload: Workload) -> Double {
#if os(Linux)
    let who = __rusage_who_t(RUSAGE_SELF.rawValue)
#else
    let who = RUSAGE_SELF
#endif
    var before = rusage()
    var after = rusage()
    getrusage(who, &before)
    _ = workload.run()
    getrusage(who, &after)
    let voluntary = after.ru_nvcsw - before.ru_nvcsw
    let involuntary = after.ru_nivcsw - before.ru_nivcsw
    return Double(voluntary + involuntary) / Double(workload.units)
}

/// A ratio row whose verdict uses the CPU-time ratio: passes when `cpu <= limit`.
private func cpuLimited(_ id: String, _ measure: String, wall: Double, spread: String, cpu: Double, limit: Double) -> Row {
    Row(id: id, measure: measure, value: String(format: "%.2fx", wall), spread: spread,
        cpu: String(format: "%.2fx", cpu), target: String(format: "≤ %.2fx (CPU)", limit),
        verdict: cpu.isFinite && cpu <= limit ? .pass : .fail)
}
