import Foundation

// courier-bench: Courier's benchmark runner.
//
//     swift run -c release --package-path Benchmarks courier-bench promises [--quick] [--repetitions N]
//     swift run -c release --package-path Benchmarks courier-bench gate [--quick]
//     swift run -c release --package-path Benchmarks courier-bench requests [--quick] [--repetitions N] [--in-memory]
//     swift run -c release --package-path Benchmarks courier-bench traffic [--quick] [--repetitions N]
//
// `promises` prints issue 2's table (A1–A4) with medians, paired ratios and targets.
// `gate` prints the same table and exits 1 when a target row fails.
// `requests` prints issue 3's table (R1–R3): Courier against URLSession and AsyncHTTPClient on a
// loopback swift-nio server, and the client's own cost with an in-memory transport.
// `traffic` prints issue 5's table (T1–T2): a 100 000-request paused backlog, and the pause
// check's cost on unpaused requests.

let usage = """
    usage: courier-bench <promises|gate|requests|traffic|check-adapter|profile> [--quick] [--repetitions N]
      promises   promise micro-benchmarks A1–A4 (Docs/Performance.md)
      gate       the same, exit status 1 when any target row fails
      requests   request benchmarks R1–R3: loopback server, URLSession, AsyncHTTPClient, in-memory
                 (--in-memory: R3 only)
      traffic    pause/resume benchmarks T1–T2: paused backlog memory and drain rate, pause-check cost
      check-adapter  checks AsyncHTTPClientTransport's documented behaviour on the loopback server
      profile W  run one workload repeatedly, for callgrind/perf (W: a1-courier, a1-raw, a1-nio, a2-courier, a2-raw,
                 a3-courier, r3-courier, r3-courier-get, r3-courier-async, r3-floor, t2-unchecked, r2-courier, r2-raw, r2-transport,
                 r2s-courier, r2s-raw, r2s-transport, r2s-transport-hop)
    """

var arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first else {
    print(usage)
    exit(2)
}
arguments.removeFirst()

var options = arguments.contains("--quick") ? SuiteOptions.quick : SuiteOptions()
if let flag = arguments.firstIndex(of: "--repetitions"), flag + 1 < arguments.count,
   let count = Int(arguments[flag + 1]), count > 0 {
    options.repetitions = count
}

switch command {
case "promises", "gate":
    print(machineLine("before"))
    let rows = runPromiseSuite(options)
    print(machineLine("after"))
    print("")
    printTable(rows)
    let failures = rows.filter { $0.verdict == .fail }
    print("")
    print("\(rows.count - failures.count) rows met or have no target, \(failures.count) missed")
    if command == "gate" && !failures.isEmpty { exit(1) }
case "profile":
    // One workload run many times with no interleaving, for `valgrind --tool=callgrind` or perf.
    guard let name = arguments.first, let workload = profileWorkload(named: name, options) else {
        print("usage: courier-bench profile <\(profileWorkloadNames.joined(separator: "|"))> [--repetitions N]")
        exit(2)
    }
    let repetitions = arguments.contains("--repetitions") ? options.repetitions : 5
    for _ in 0..<repetitions { _ = workload.run() }
    print("profile \(name): \(repetitions) runs of \(workload.units) units done")
case "check-adapter":
    exit(runAdapterChecks() == 0 ? 0 : 1)
case "requests", "traffic":
    var requestOptions = arguments.contains("--quick") ? RequestOptions.quick : RequestOptions()
    if arguments.contains("--repetitions") { requestOptions.repetitions = options.repetitions }
    requestOptions.inMemoryOnly = command == "requests" && arguments.contains("--in-memory")
    print(machineLine("before"))
    let rows = command == "requests" ? runRequestSuite(requestOptions) : runTrafficSuite(requestOptions)
    print(machineLine("after"))
    print("")
    printTable(rows)
    let failures = rows.filter { $0.verdict == .fail }
    print("")
    print("\(rows.count - failures.count) rows met or have no target, \(failures.count) missed")
default:
    print(usage)
    exit(2)
}
