import CMallocCounter
import Foundation

/// Issue 5: the memory and drain rate of a paused backlog, and what the pause check costs an
/// unpaused request.
func runTrafficSuite(_ options: RequestOptions) -> [Row] {
    var rows: [Row] = []

    // T1 first, while nothing else is in flight: the heap counters are process-wide.
    let count = options.backlog
    var runs: [BacklogFigures] = []
    for _ in 0..<options.backlogRuns {
        runs.append(TrafficWorkloads.pausedBacklog(count: count))
    }
    let built = TrafficWorkloads.builtRequests(count: count)
    func median(_ value: (BacklogFigures) -> Double) -> Double { Statistics.median(runs.map(value)) }
    let rates = runs.map { $0.drainRate(count) }
    let rateSpread = String(format: "%.0f–%.0f /s", Statistics.quantile(rates, 0.25), Statistics.quantile(rates, 0.75))
    let supported = mc_is_supported() == 1
    let bytes: (Double) -> Double = { supported ? $0 : .nan }
    rows += [
        .info("T1", "heap per request held while paused (\(count) held; its promise included)",
              value: bytes(median(\.heldBytes)), unit: " B", format: "%.0f"),
        .info("T1", "allocations per held request", value: supported ? median(\.heldAllocations) : .nan, unit: ""),
        .info("T1", "of which the built `URLRequest` alone: heap", value: bytes(built.heapBytes), unit: " B", format: "%.0f"),
        .info("T1", "of which the built `URLRequest` alone: allocations", value: supported ? built.allocations : .nan,
              unit: ""),
        .info("T1", "heap added by one `tap` handler on each held promise", value: bytes(median(\.handlerBytes)),
              unit: " B", format: "%.0f"),
        .info("T1", "caller's time to start one request while paused", value: median(\.enqueueNanoseconds),
              unit: " ns", format: "%.0f"),
        .info("T1", "drain after resume(): \(count) requests settled per second", value: Statistics.median(rates),
              unit: " /s", spread: rateSpread, format: "%.0f"),
        .info("T1", "drain after resume(): time until all \(count) settled", value: median(\.drainSeconds) * 1000,
              unit: " ms", format: "%.0f"),
        .info("T1", "heap still in use per request after the drain, promises released, client alive",
              value: bytes(median(\.retainedBytes)), unit: " B", format: "%.1f"),
        .info("T1", "heap still in use per request once the client is released too",
              value: bytes(median(\.retainedAfterClientBytes)), unit: " B", format: "%.1f"),
    ]

    // T2: the same unpaused request with and without the pause check, plus an identical copy of
    // the checked workload as a control: the spread of checked / control is this machine's noise.
    let client = InMemoryWorkloads.makeClient()
    let perSample = options.inMemory
    let t2 = compare("T2", warmUp: options.warmUp, repetitions: max(options.repetitions, 3) * 2, [
        InMemoryWorkloads.promiseBurst("checked", client: client, endpoint: GetUser(), count: perSample),
        InMemoryWorkloads.promiseBurst("unchecked", client: client, endpoint: GetUserUnchecked(), count: perSample),
        InMemoryWorkloads.promiseBurst("checked (control)", client: client, endpoint: GetUser(), count: perSample),
    ])
    let checked = t2.samples(named: "checked")
    let unchecked = t2.samples(named: "unchecked")
    let ratio = t2.pairedRatio(checked.name, unchecked.name)
    let control = t2.samples(named: "checked (control)")
    let controlRatios = zip(checked.perUnit, control.perUnit).map { $0 / $1 }
    // "Within noise": the checked/unchecked ratio lies inside the quartiles of checked/control.
    let low = Statistics.quantile(controlRatios, 0.25)
    let high = Statistics.quantile(controlRatios, 0.75)
    let noiseBand = max(abs(1 - low), abs(high - 1))
    rows += [
        .info("T2", "unpaused request through the pause check (in-memory, promise style)", value: checked.median,
              unit: " ns", spread: checked.spread, cpu: checked.cpuMedian, format: "%.0f"),
        .info("T2", "the same request skipping the check (`requiresAuthentication == false`)",
              value: unchecked.median, unit: " ns", spread: unchecked.spread, cpu: unchecked.cpuMedian, format: "%.0f"),
        .info("T2", "control: checked again (identical workload)", value: control.median, unit: " ns",
              spread: control.spread, cpu: control.cpuMedian, format: "%.0f"),
        .info("T2", "noise: checked / control, p25–p75", value: t2.pairedRatio(checked.name, control.name),
              unit: "x", spread: String(format: "%.3f–%.3f", low, high), format: "%.3f"),
        Row(id: "T2", measure: "ratio checked / unchecked (within noise = inside 1 ± \(String(format: "%.3f", noiseBand)))",
            value: String(format: "%.3fx", ratio), spread: t2.pairedRatioSpread(checked.name, unchecked.name),
            cpu: String(format: "%.3fx", t2.pairedRatio(checked.name, unchecked.name, cpu: true)),
            target: "within noise", verdict: abs(ratio - 1) <= noiseBand ? .pass : .fail),
    ]
    return rows
}
