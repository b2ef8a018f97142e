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

    /// A smoke run: same shape, far less work; numbers are not for quoting.
    static let quick = RequestOptions(
        repetitions: 3, warmUp: 1, sequential: 50, concurrent: 200, inMemory: 1_000, backlog: 10_000, backlogRuns: 1)
}

/// Issue 3: Courier against the engines underneath it, on loopback and in memory.
func runRequestSuite(_ options: RequestOptions) -> [Row] {
    let fixture: NetworkFixture
    do {
        fixture = try NetworkFixture()
    } catch {
        print("courier-bench: could not start the loopback server: \(error)")
        exit(3)
    }
    defer { fixture.stop() }
    var rows: [Row] = []
    let reps = options.repetitions
    let warm = options.warmUp

    for (label, count, inFlight) in [("sequential", options.sequential, 1), ("16 in flight", options.concurrent, 16)] {
        let urlSession = compare("R1 \(label)", warmUp: warm, repetitions: reps, [
            NetworkWorkloads.courier("Courier/URLSession", client: fixture.courierURLSession,
                                     count: count, inFlight: inFlight),
            NetworkWorkloads.rawURLSession("raw URLSession", session: fixture.rawSession, url: fixture.url,
                                           count: count, inFlight: inFlight),
        ])
        rows += throughputRows("R1", label, urlSession, courier: "Courier/URLSession", raw: "raw URLSession",
                               engine: "URLSession", minimum: 0.97)
    }

    for (label, count, inFlight) in [("sequential", options.sequential, 1), ("16 in flight", options.concurrent, 16)] {
        let ahc = compare("R2 \(label)", warmUp: warm, repetitions: reps, [
            NetworkWorkloads.courier("Courier/AHC", client: fixture.courierAsyncHTTPClient,
                                     count: count, inFlight: inFlight),
            NetworkWorkloads.rawAsyncHTTPClient("raw AHC", client: fixture.httpClient, url: fixture.url,
                                                count: count, inFlight: inFlight),
        ])
        rows += throughputRows("R2", label, ahc, courier: "Courier/AHC", raw: "raw AHC",
                               engine: "AsyncHTTPClient", minimum: 0.9)
    }

    let client = InMemoryWorkloads.makeClient()
    let count = options.inMemory
    let r3 = compare("R3", warmUp: warm, repetitions: reps, [
        InMemoryWorkloads.promiseBurst("Courier POST", client: client, endpoint: PostUser(), count: count),
        InMemoryWorkloads.floor("floor", count: count),
        InMemoryWorkloads.completionBurst("Courier POST, completion", client: client, count: count),
        InMemoryWorkloads.promiseBurst("Courier GET", client: client, endpoint: GetUser(), count: count),
    ])
    rows += inMemoryRows(r3)
    return rows
}

private func throughputRows(
    _ id: String, _ label: String, _ result: ComparisonResult, courier: String, raw: String,
    engine: String, minimum: Double
) -> [Row] {
    let ours = result.samples(named: courier)
    let theirs = result.samples(named: raw)
    // Courier's rate over the raw rate = raw time over Courier time, paired per repetition.
    let ratio = result.pairedRatio(raw, courier)
    let cpuRatio = result.pairedRatio(raw, courier, cpu: true)
    return [
        .info(id, "Courier over \(engine), \(label): requests per second", value: ours.medianRate, unit: " /s",
              spread: ours.rateSpread, cpu: ours.cpuMedianRate, format: "%.0f"),
        .info(id, "raw \(engine), \(label) (reference)", value: theirs.medianRate, unit: " /s",
              spread: theirs.rateSpread, cpu: theirs.cpuMedianRate, format: "%.0f"),
        .atLeast(id, "throughput Courier / raw \(engine), \(label)", value: ratio, unit: "x",
                 spread: result.pairedRatioSpread(raw, courier), cpu: cpuRatio, minimum: minimum, format: "%.3f"),
    ]
}

private func inMemoryRows(_ r3: ComparisonResult) -> [Row] {
    let post = r3.samples(named: "Courier POST")
    let floor = r3.samples(named: "floor")
    let completion = r3.samples(named: "Courier POST, completion")
    let get = r3.samples(named: "Courier GET")
    return [
        .info("R3", "Courier POST (in-memory transport), promise style, per request", value: post.median,
              unit: " ns", spread: post.spread, cpu: post.cpuMedian, format: "%.0f"),
        .info("R3", "floor: build the same URLRequest + JSONDecoder decode (reference)", value: floor.median,
              unit: " ns", spread: floor.spread, cpu: floor.cpuMedian, format: "%.0f"),
        .limited("R3", "ratio Courier / floor", value: r3.pairedRatio(post.name, floor.name), unit: "x",
                 spread: r3.pairedRatioSpread(post.name, floor.name),
                 cpu: r3.pairedRatio(post.name, floor.name, cpu: true), limit: 2.0),
        .info("R3", "Courier POST, completion-handler style", value: completion.median, unit: " ns",
              spread: completion.spread, cpu: completion.cpuMedian, format: "%.0f"),
        .info("R3", "Courier GET (no body), promise style", value: get.median, unit: " ns",
              spread: get.spread, cpu: get.cpuMedian, format: "%.0f"),
    ]
}
