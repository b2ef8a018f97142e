import Foundation
import XCTest
@testable import Courier
import Promises

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How much memory the process uses, measured rather than guessed.
struct MemorySnapshot: CustomStringConvertible {
    /// Bytes handed out by malloc and not yet freed (`mallinfo2().uordblks` on glibc,
    /// `malloc_zone_statistics` on Apple platforms); nil where neither exists.
    let heapInUse: Int?
    /// Resident set size from `/proc/self/statm` (Linux only); nil elsewhere.
    let resident: Int?
    /// What glibc's arenas hold from the system, used or free (`malloc_info` "system current"
    /// plus separately mapped chunks); nil elsewhere.
    var reserved: Int?

    /// Takes a snapshot; on glibc it first returns free pages to the system (`malloc_trim(0)`) so
    /// that the resident size is comparable between snapshots.
    static func take() -> MemorySnapshot {
        #if canImport(Glibc)
        GlibcMalloc.trim()
        let figures = GlibcMalloc.figures()
        return MemorySnapshot(heapInUse: figures?.inUse, resident: residentFromProc(), reserved: figures?.reserved)
        #elseif canImport(Darwin)
        var statistics = malloc_statistics_t()
        malloc_zone_statistics(nil, &statistics)
        return MemorySnapshot(heapInUse: Int(statistics.size_in_use), resident: nil)
        #else
        return MemorySnapshot(heapInUse: nil, resident: nil)
        #endif
    }

    private static func residentFromProc() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    var description: String {
        "heap \(MemorySnapshot.format(heapInUse)) (malloc holds \(MemorySnapshot.format(reserved))), "
            + "RSS \(MemorySnapshot.format(resident))"
    }

    /// `12.3 MiB`, or `n/a`.
    static func format(_ bytes: Int?) -> String {
        guard let bytes else { return "n/a" }
        return String(format: "%.2f MiB", Double(bytes) / 1_048_576)
    }
}

#if canImport(Glibc)
/// glibc's allocator statistics. `<malloc.h>` is not part of Swift's Glibc module, so the two
/// functions are looked up at run time; `mallinfo2` returns its struct by value, which Swift
/// cannot call through a C function pointer, so the figures come from `malloc_info`'s XML.
enum GlibcMalloc {
    private typealias TrimFunction = @convention(c) (Int) -> Int32
    private typealias InfoFunction = @convention(c) (Int32, UnsafeMutablePointer<FILE>?) -> Int32

    private static func symbol(_ name: String) -> UnsafeMutableRawPointer? {
        let handle = dlopen(nil, RTLD_NOW)
        defer { if let handle { dlclose(handle) } }
        return dlsym(handle, name)
    }

    /// `malloc_trim(0)`: gives free memory at the top of the heaps back to the system.
    static func trim() {
        guard let address = symbol("malloc_trim") else { return }
        _ = unsafeBitCast(address, to: TrimFunction.self)(0)
    }

    /// `inUse`: bytes allocated and not freed (what the arenas took from the system, minus their
    /// free chunks, plus chunks mapped on their own); `reserved`: what the arenas took plus the
    /// mapped chunks. Nil when `malloc_info` is missing or says nothing (a sanitizer runtime
    /// replaces malloc).
    static func figures() -> (inUse: Int, reserved: Int)? {
        guard let address = symbol("malloc_info") else { return nil }
        var buffer: UnsafeMutablePointer<CChar>?
        var size = 0
        guard let stream = open_memstream(&buffer, &size) else { return nil }
        let status = unsafeBitCast(address, to: InfoFunction.self)(0, stream)
        fclose(stream)
        defer { free(buffer) }
        guard status == 0, let buffer else { return nil }
        let xml = String(cString: buffer)
        // The totals over all arenas follow the last </heap>.
        guard let totalsStart = xml.range(of: "</heap>", options: .backwards)?.upperBound else { return nil }
        let totals = xml[totalsStart...]
        func value(_ prefix: String, _ attribute: String) -> Int? {
            guard let element = totals.range(of: prefix) else { return nil }
            let rest = totals[element.upperBound...]
            guard let start = rest.range(of: attribute + "=\"")?.upperBound,
                  let end = rest[start...].firstIndex(of: "\"") else { return nil }
            return Int(rest[start..<end])
        }
        guard let system = value("<system type=\"current\"", "size"), system > 0 else { return nil }
        let fast = value("<total type=\"fast\"", "size") ?? 0
        let rest = value("<total type=\"rest\"", "size") ?? 0
        let mapped = value("<total type=\"mmap\"", "size") ?? 0
        return (system - fast - rest + mapped, system + mapped)
    }
}
#endif

/// Which sanitizer, if any, the test process was built with (found by looking up the
/// sanitizer runtime's entry point in the running image).
enum ActiveSanitizer: String {
    case address, thread

    static let current: ActiveSanitizer? = {
        #if canImport(Glibc) || canImport(Darwin)
        let handle = dlopen(nil, RTLD_NOW)
        defer { if let handle { dlclose(handle) } }
        if dlsym(handle, "__tsan_init") != nil { return .thread }
        if dlsym(handle, "__asan_init") != nil { return .address }
        #endif
        return nil
    }()
}

/// Reads a positive integer from the environment, e.g. `COURIER_SOAK_COUNT=5000`.
func environmentCount(_ name: String, default value: Int) -> Int {
    guard let text = ProcessInfo.processInfo.environment[name], let number = Int(text), number > 0 else {
        return value
    }
    return number
}

/// Polls `condition` every 5 ms until it holds or `seconds` pass; returns its last value.
///
/// For conditions nothing signals, such as "this weak reference is nil" after objects are
/// released on other threads: the wait ends as soon as the condition holds and is bounded.
func eventually(within seconds: TimeInterval = 5, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        if Date() >= deadline { return condition() }
        usleep(5_000)
    }
    return true
}

/// An object whose only job is to be captured, so a weak reference to it shows whether the
/// closures or values capturing it were freed.
final class LifetimeCanary: Sendable {
    let name: String
    init(_ name: String) { self.name = name }
}

/// Weak references to the objects of one test, by name.
// @unchecked Sendable: `entries` is only touched while holding `lock`.
final class WeakTracker: @unchecked Sendable {
    private struct Entry {
        let name: String
        weak var object: AnyObject?
    }

    private let lock = NSLock()
    private var entries: [Entry] = []

    /// Starts watching `object` under `name`.
    func track(_ name: String, _ object: AnyObject) {
        lock.withLock { entries.append(Entry(name: name, object: object)) }
    }

    /// The names of the watched objects still alive.
    var alive: [String] { lock.withLock { entries.filter { $0.object != nil }.map(\.name) } }

    /// Waits (bounded) until every watched object has been freed; returns the survivors.
    func survivors(within seconds: TimeInterval = 5) -> [String] {
        _ = eventually(within: seconds) { alive.isEmpty }
        return alive
    }
}

/// An endpoint that holds a reference to a canary, so the pipeline's copies of the endpoint
/// keep the canary alive for exactly as long as they exist.
struct CanaryEndpoint: Endpoint {
    typealias Response = JSON
    var path: String
    var method: HTTPMethod = .get
    var headers: [String: String] = [:]
    var timeout: TimeInterval?
    var retryPolicy: RetryPolicy?
    var requiresAuthentication = true
    let canary: LifetimeCanary
}

/// What happened to one request of a load test.
enum SettlementOutcome: UInt8, CaseIterable, CustomStringConvertible {
    case pending = 0, success, transport, cancelled, other

    var description: String {
        switch self {
        case .pending: "pending"
        case .success: "success"
        case .transport: "transport"
        case .cancelled: "cancelled"
        case .other: "other"
        }
    }

    /// The outcome an error stands for.
    init(_ error: any Error) {
        if let error = error as? NetworkError {
            switch error {
            case .transport: self = .transport
            case .cancelled: self = .cancelled
            default: self = .other
            }
        } else {
            self = isCancellation(error) ? .cancelled : .other
        }
    }
}

/// Records how each of `count` requests settled, counts double settlements, and signals when
/// every request has settled once.
// @unchecked Sendable: the arrays and counters are only touched while holding `lock`;
// `allSettled` is a semaphore.
final class SettlementLedger: @unchecked Sendable {
    private let lock = NSLock()
    private var outcomes: [SettlementOutcome]
    private var remaining: Int
    private var doubles = 0
    private var otherErrors: [String] = []
    /// Signalled once, when the last request settles for the first time.
    let allSettled = DispatchSemaphore(value: 0)

    init(count: Int) {
        outcomes = Array(repeating: .pending, count: count)
        remaining = count
    }

    /// Records that request `index` settled with `outcome`; `detail` is kept for `.other`.
    func record(_ index: Int, _ outcome: SettlementOutcome, detail: @autoclosure () -> String = "") {
        let last = lock.withLock { () -> Bool in
            guard outcomes[index] == .pending else {
                doubles += 1
                return false
            }
            outcomes[index] = outcome
            if outcome == .other, otherErrors.count < 5 { otherErrors.append(detail()) }
            remaining -= 1
            return remaining == 0
        }
        if last { allSettled.signal() }
    }

    /// How many settlements arrived for a request that had already settled.
    var settledTwice: Int { lock.withLock { doubles } }
    /// How many requests have not settled.
    var unsettled: Int { lock.withLock { remaining } }
    /// The first few unexpected errors, for failure messages.
    var unexpectedErrors: [String] { lock.withLock { otherErrors } }
    /// A copy of every request's outcome, by index.
    var snapshot: [SettlementOutcome] { lock.withLock { outcomes } }
}
