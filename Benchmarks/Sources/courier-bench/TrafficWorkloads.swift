import CMallocCounter
import Courier
import Dispatch
import Foundation
import Promises
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What one paused-backlog run measured.
struct BacklogFigures {
    /// Heap bytes per request started while paused (its promise included), from `mallinfo2`.
    var heldBytes: Double
    /// Heap allocations per request started while paused.
    var heldAllocations: Double
    /// Heap bytes added by attaching one `tap` handler to each held request's promise.
    var handlerBytes: Double
    /// Nanoseconds per request to start it while paused (the caller's cost).
    var enqueueNanoseconds: Double
    /// Seconds from `resume()` until the last request's handler has run.
    var drainSeconds: Double
    /// Heap bytes per request still in use after the drain, once every promise is released,
    /// while the client is still alive.
    var retainedBytes: Double
    /// The same once the client too has been released.
    var retainedAfterClientBytes: Double

    /// Requests settled per second after `resume()`.
    func drainRate(_ count: Int) -> Double { Double(count) / drainSeconds }
}

/// Issue 5: requests held by `pause()` and released by `resume()`.
enum TrafficWorkloads {
    /// Heap of the `URLRequest` alone that the client builds for ``GetUser`` (with
    /// `makeURLRequest(for:)`), `count` of them held in a reserved array: the share of a held
    /// request that is Foundation's request object.
    static func builtRequests(count: Int) -> MemoryFigure {
        let client = makeStubClient()
        var requests: [URLRequest] = []
        requests.reserveCapacity(count)
        _ = try? client.makeURLRequest(for: GetUser())
        let figure = measureHeap("built URLRequest") {
            for _ in 0..<count {
                do {
                    requests.append(try client.makeURLRequest(for: GetUser()))
                } catch {
                    requestFailed("makeURLRequest", error)
                }
            }
            return count
        }
        withExtendedLifetime(requests) {}
        return figure
    }

    /// A stubbed client whose every request succeeds at once with ``BenchPayload/body``.
    static func makeStubClient() -> NetworkClient {
        NetworkClient.stubbing().body(json: String(decoding: BenchPayload.body, as: UTF8.self)).makeClient()
    }

    /// Pauses a fresh stubbed client, starts `count` requests (held), measures their heap, attaches
    /// one handler to each, resumes, and times the drain until every handler has run.
    /// Nothing else may run meanwhile: the heap counters are process-wide.
    static func pausedBacklog(count: Int) -> BacklogFigures {
        var figures = BacklogFigures(
            heldBytes: 0, heldAllocations: 0, handlerBytes: 0, enqueueNanoseconds: 0, drainSeconds: 0,
            retainedBytes: 0, retainedAfterClientBytes: 0)
        let baseline = mc_heap_in_use()
        backlog(count: count, into: &figures)
        figures.retainedAfterClientBytes = Double(settledHeap(above: baseline)) / Double(count)
        return figures
    }

    /// The heap in use above `baseline`, once it stops shrinking (the last releases of promises
    /// may still be finishing on other threads): at most 100 checks 1 ms apart.
    private static func settledHeap(above baseline: Int64) -> Int64 {
        var retained = mc_heap_in_use() - baseline
        for _ in 0..<100 {
            usleep(1_000)
            let now = mc_heap_in_use() - baseline
            if now >= retained { return now }
            retained = now
        }
        return retained
    }

    private static func backlog(count: Int, into figures: inout BacklogFigures) {
        let client = makeStubClient()
        // One unpaused request first, so that lazily made globals (queues, decoders, metadata)
        // are not charged to the held requests.
        do {
            BenchPayload.verify(try client.request(GetUser()).wait())
        } catch {
            requestFailed("warm-up request", error)
        }

        let baseline = mc_heap_in_use()
        var promises: [Promise<BenchPayload.User>] = []
        promises.reserveCapacity(count)
        var handlers: [Promise<BenchPayload.User>] = []
        handlers.reserveCapacity(count)

        client.pause()
        var enqueue = Timing(wall: 0, cpu: 0)
        let held = measureHeap("held request") {
            enqueue = timed {
                for _ in 0..<count { promises.append(client.request(GetUser())) }
            }
            return count
        }
        check(promises.allSatisfy(\.isPending), "a request settled while the client was paused")

        let group = DispatchGroup()
        let handler = measureHeap("handler") {
            for promise in promises {
                group.enter()
                handlers.append(promise.tap { result in
                    switch result {
                    case .success(let user): BenchPayload.verify(user)
                    case .failure(let error): requestFailed("held request", error)
                    }
                    group.leave()
                })
            }
            return count
        }

        let drain = timed {
            client.resume()
            group.wait()
        }
        check(promises.allSatisfy(\.isFulfilled), "a held request did not succeed after resume()")

        promises = []
        handlers = []
        let retained = settledHeap(above: baseline)
        withExtendedLifetime(client) {}
        figures.heldBytes = held.heapBytes
        figures.heldAllocations = held.allocations
        figures.handlerBytes = handler.heapBytes
        figures.enqueueNanoseconds = Double(enqueue.wall) / Double(count)
        figures.drainSeconds = Double(drain.wall) / 1e9
        figures.retainedBytes = Double(retained) / Double(count)
    }
}
