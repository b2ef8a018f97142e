import Foundation

/// One timed piece of work in a comparison.
struct Workload {
    /// Short label used in tables, e.g. "Courier map".
    let name: String
    /// How many units (steps, round trips, elements) one run performs; results are per unit.
    let units: Int
    /// Performs one run and returns the time of its timed part (set-up may be excluded).
    let run: () -> Timing
}

/// Wall-clock and process CPU time of one timed section, in nanoseconds.
struct Timing {
    var wall: UInt64
    /// CPU time of every thread of this process: unlike wall time, it leaves out the time the
    /// work spent preempted by other processes, but it also leaves out time spent waiting.
    var cpu: UInt64
}

/// The samples of one workload, in nanoseconds per unit, one per repetition.
struct Samples {
    let name: String
    var perUnit: [Double] = []
    var cpuPerUnit: [Double] = []

    var median: Double { Statistics.median(perUnit) }
    var cpuMedian: Double { Statistics.median(cpuPerUnit) }
    var lowerQuartile: Double { Statistics.quantile(perUnit, 0.25) }
    var upperQuartile: Double { Statistics.quantile(perUnit, 0.75) }
}

/// Small order statistics; every input is copied and sorted.
enum Statistics {
    static func quantile(_ values: [Double], _ fraction: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let position = fraction * Double(sorted.count - 1)
        let lower = Int(position)
        let upper = min(lower + 1, sorted.count - 1)
        let weight = position - Double(lower)
        return sorted[lower] * (1 - weight) + sorted[upper] * weight
    }

    static func median(_ values: [Double]) -> Double { quantile(values, 0.5) }
}

/// The outcome of running several workloads interleaved.
struct ComparisonResult {
    let title: String
    let samples: [Samples]

    /// The median over repetitions of `numerator / denominator` within the same repetition,
    /// so slow phases of a noisy machine hit both sides of each ratio alike.
    func pairedRatio(_ numerator: String, _ denominator: String, cpu: Bool = false) -> Double {
        guard let top = samples.first(where: { $0.name == numerator }),
              let bottom = samples.first(where: { $0.name == denominator })
        else { return .nan }
        let ratios = cpu
            ? zip(top.cpuPerUnit, bottom.cpuPerUnit).map { $0 / $1 }
            : zip(top.perUnit, bottom.perUnit).map { $0 / $1 }
        return Statistics.median(ratios)
    }

    func median(_ name: String) -> Double {
        samples.first(where: { $0.name == name })?.median ?? .nan
    }
}

/// Runs workloads A, B, C, A, B, C, ... so that every workload sees the same machine load.
/// The order rotates each repetition (ABC, BCA, CAB) so no workload always runs right after
/// the same neighbour. Warm-up repetitions run the same way and are discarded.
func compare(_ title: String, warmUp: Int, repetitions: Int, _ workloads: [Workload]) -> ComparisonResult {
    var samples = workloads.map { Samples(name: $0.name) }
    for repetition in 0..<(warmUp + repetitions) {
        for offset in 0..<workloads.count {
            let index = (repetition + offset) % workloads.count
            let workload = workloads[index]
            let timing = workload.run()
            if repetition >= warmUp {
                samples[index].perUnit.append(Double(timing.wall) / Double(workload.units))
                samples[index].cpuPerUnit.append(Double(timing.cpu) / Double(workload.units))
            }
        }
    }
    return ComparisonResult(title: title, samples: samples)
}

/// Wall-clock (monotonic) and process CPU nanoseconds elapsed while `body` runs.
@inline(__always)
func timed(_ body: () -> Void) -> Timing {
    let startCPU = processCPUNanoseconds()
    let start = DispatchTime.now().uptimeNanoseconds
    body()
    let wall = DispatchTime.now().uptimeNanoseconds - start
    let cpu = processCPUNanoseconds() - startCPU
    return Timing(wall: wall, cpu: cpu)
}

/// CPU time consumed so far by all threads of this process.
func processCPUNanoseconds() -> UInt64 {
    var now = timespec()
    guard clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now) == 0 else { return 0 }
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

/// Stops the benchmark with a message when a workload computed the wrong answer,
/// so a broken chain can never be reported as a fast one.
func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() {
        print("courier-bench: result check failed: \(message())")
        exit(3)
    }
}
