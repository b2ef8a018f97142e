import Foundation

/// Whether a row met its target.
enum Verdict: String {
    case pass = "PASS"
    case fail = "FAIL"
    case info = "—"
}

/// One line of the results table.
struct Row {
    let id: String
    let measure: String
    let value: String
    let spread: String
    /// The same measure in process CPU time, where it applies.
    var cpu: String = ""
    let target: String
    let verdict: Verdict

    /// A row with a ceiling: passes when `value <= limit`.
    static func limited(
        _ id: String, _ measure: String, value: Double, unit: String, spread: String = "",
        cpu: Double? = nil, limit: Double, format: String = "%.2f"
    ) -> Row {
        Row(
            id: id, measure: measure, value: String(format: format, value) + unit, spread: spread,
            cpu: cpu.map { String(format: format, $0) + unit } ?? "",
            target: "≤ " + String(format: format, limit) + unit,
            verdict: value.isFinite && value <= limit ? .pass : .fail
        )
    }

    /// A row that informs and has no target.
    static func info(_ id: String, _ measure: String, value: Double, unit: String, spread: String = "",
                     cpu: Double? = nil, format: String = "%.2f") -> Row {
        Row(id: id, measure: measure, value: String(format: format, value) + unit, spread: spread,
            cpu: cpu.map { String(format: format, $0) + unit } ?? "", target: "", verdict: .info)
    }
}

extension Samples {
    /// "p25–p75" in nanoseconds, for the spread column.
    var spread: String { String(format: "%.0f–%.0f ns", lowerQuartile, upperQuartile) }
}

/// Prints rows as a Markdown table.
func printTable(_ rows: [Row]) {
    print("| Row | Measure | Median | p25–p75 | CPU median | Target | Result |")
    print("|---|---|---:|---:|---:|---:|:---:|")
    for row in rows {
        print("| \(row.id) | \(row.measure) | \(row.value) | \(row.spread) | \(row.cpu) | \(row.target) | \(row.verdict.rawValue) |")
    }
}

/// One line about the machine state, printed before and after a suite.
func machineLine(_ moment: String) -> String {
    var loads = [Double](repeating: 0, count: 3)
    let got = getloadavg(&loads, 3)
    let load = got == 3 ? String(format: "%.2f %.2f %.2f", loads[0], loads[1], loads[2]) : "unknown"
    let cores = ProcessInfo.processInfo.activeProcessorCount
    return "\(moment): \(cores) cores, load average \(load)"
}

extension Row {
    /// A row with a floor: passes when `value >= minimum`.
    static func atLeast(
        _ id: String, _ measure: String, value: Double, unit: String, spread: String = "",
        cpu: Double? = nil, minimum: Double, format: String = "%.2f"
    ) -> Row {
        Row(
            id: id, measure: measure, value: String(format: format, value) + unit, spread: spread,
            cpu: cpu.map { String(format: format, $0) + unit } ?? "",
            target: "≥ " + String(format: format, minimum) + unit,
            verdict: value.isFinite && value >= minimum ? .pass : .fail
        )
    }
}

extension Samples {
    /// Requests per second at the median time per request.
    var medianRate: Double { 1e9 / median }
    /// Requests per second at the median CPU time per request.
    var cpuMedianRate: Double { 1e9 / cpuMedian }
    /// "p25–p75" of the rate (the slow quartile of times is the low quartile of rates).
    var rateSpread: String { String(format: "%.0f–%.0f /s", 1e9 / upperQuartile, 1e9 / lowerQuartile) }
}

extension ComparisonResult {
    /// The quartiles of the per-repetition ratios `numerator / denominator`, as "p25–p75".
    func pairedRatioSpread(_ numerator: String, _ denominator: String) -> String {
        guard let top = samples.first(where: { $0.name == numerator }),
              let bottom = samples.first(where: { $0.name == denominator })
        else { return "" }
        let ratios = zip(top.perUnit, bottom.perUnit).map { $0 / $1 }
        return String(format: "%.3f–%.3f", Statistics.quantile(ratios, 0.25), Statistics.quantile(ratios, 0.75))
    }

    /// The samples named `name` (empty when there are none).
    func samples(named name: String) -> Samples {
        samples.first(where: { $0.name == name }) ?? Samples(name: name)
    }
}
