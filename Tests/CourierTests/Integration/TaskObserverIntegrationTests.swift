import Courier
import Foundation
import Promises
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `URLSessionTaskObserver`: what a task-level logger hears of real requests on the loopback server.
final class TaskObserverIntegrationTests: IntegrationTestCase {
    /// Records every call, in order, as `"<event> <task number>"`, and the bytes per task.
    final class Recorder: URLSessionTaskObserver, @unchecked Sendable {
        // @unchecked: `events`, `bytes` and `tasks` are only touched while holding `lock`.
        private let lock = NSLock()
        private var events: [String] = []
        private var bytes: [Int: Int] = [:]
        private var tasks: [Int: URLSessionTask] = [:]

        var log: [String] { lock.withLock { events } }
        var bytesByTask: [Int: Int] { lock.withLock { bytes } }
        func task(number: Int) -> URLSessionTask? { lock.withLock { tasks[number] } }

        private func record(_ event: String, _ task: URLSessionTask) {
            lock.withLock { events.append("\(event) \(task.taskIdentifier)") }
        }

        func taskCreated(_ task: URLSessionTask) {
            XCTAssertEqual(task.state, .suspended, "reported before it starts")
            lock.withLock { tasks[task.taskIdentifier] = task }
            record("created", task)
        }

        func task(_ task: URLSessionDataTask, didReceive data: Data) {
            lock.withLock { bytes[task.taskIdentifier, default: 0] += data.count }
        }

        func task(_ task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
            record("metrics", task)
        }

        func task(_ task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            let outcome = (error as? URLError).map { "failed(\($0.code.rawValue))" } ?? (error == nil ? "completed" : "failed")
            record(outcome, task)
        }
    }

    private func client(observer: Recorder) throws -> NetworkClient {
        NetworkClient(
            configuration: NetworkClient.Configuration(baseURL: try server.baseURL),
            transport: URLSessionTransport(taskObserver: observer))
    }

    /// The task number of a log entry (`"created 3"` → 3).
    private func taskNumber(_ event: String?) -> Int? {
        event?.split(separator: " ").last.flatMap { Int($0) }
    }

    /// The log without `metrics` entries, which FoundationNetworking does not report.
    private func lifecycle(_ recorder: Recorder) -> [String] {
        recorder.log.filter { !$0.hasPrefix("metrics") }
    }

    func test_givenAnObserver_whenARequestRuns_thenItHearsTheTaskCreatedItsBytesAndItsEnd() throws {
        let recorder = Recorder()
        let client = try client(observer: recorder)
        let response = try value(of: client.response(for: LiveJSONEndpoint(path: "bytes/100000")))
        XCTAssertEqual(response.body.count, 100_000)
        let log = lifecycle(recorder)
        XCTAssertEqual(log.count, 2, "\(log)")
        let number = try XCTUnwrap(taskNumber(log.first))
        XCTAssertEqual(log, ["created \(number)", "completed \(number)"])
        XCTAssertEqual(recorder.bytesByTask, [number: 100_000], "every chunk, once")
        XCTAssertEqual(recorder.task(number: number)?.originalRequest?.url?.path, "/bytes/100000")
        #if !canImport(FoundationNetworking)
        XCTAssertTrue(recorder.log.contains("metrics \(number)"))
        #endif
    }

    func test_givenA307WithABody_whenTheTransportFollowsIt_thenTheObserverHearsBothTasks() throws {
        let recorder = Recorder()
        let client = try client(observer: recorder)
        let query = [URLQueryItem(name: "url", value: "/anything/next"), URLQueryItem(name: "status", value: "307")]
        let echo = try value(of: client.request(LiveEndpoint<ServerEcho>(
            path: "redirect-to", method: .post, query: query, body: .json(["item": "a"]))))
        XCTAssertEqual(echo.path, "/anything/next")
        let created = lifecycle(recorder).filter { $0.hasPrefix("created") }
        #if canImport(FoundationNetworking)
        XCTAssertEqual(created.count, 2, "the transport sends the redirected request with its body itself: \(recorder.log)")
        XCTAssertEqual(recorder.task(number: taskNumber(created[1]) ?? -1)?.originalRequest?.url?.path,
                       "/anything/next")
        #else
        XCTAssertEqual(created.count, 1, "URLSession follows it within the task: \(recorder.log)")
        #endif
        XCTAssertEqual(lifecycle(recorder).filter { $0.hasPrefix("completed") }.count, created.count, "each task ends once")
    }

    func test_givenARequestCancelledMidFlight_thenTheObserverHearsItsTaskEndCancelled() throws {
        let recorder = Recorder()
        let client = try client(observer: recorder)
        let promise = client.request(LiveJSONEndpoint(path: "delay/5"))
        XCTAssertTrue(eventually(within: 10) { !recorder.log.isEmpty }, "the task was created")
        promise.cancel()
        XCTAssertTrue(eventually(within: 10) { self.lifecycle(recorder).count == 2 }, "\(recorder.log)")
        let number = try XCTUnwrap(taskNumber(recorder.log.first))
        XCTAssertEqual(lifecycle(recorder), ["created \(number)", "failed(\(URLError.Code.cancelled.rawValue)) \(number)"])
    }

    func test_givenAFileUpload_whenSent_thenTheObserverHearsItsTaskStartAndEnd() throws {
        let scratch = try makeScratchFolder("TaskObserverIT")
        defer { removeScratchFolder(scratch) }
        let file = try writeFile(Data(repeating: 7, count: 300_000), in: scratch)
        let recorder = Recorder()
        let client = try client(observer: recorder)
        let endpoint = LiveEndpoint<HTTPResponse>(path: "bytes/10", method: .put, body: .file(file, contentType: "application/octet-stream"))
        XCTAssertEqual(try value(of: client.request(endpoint)).body.count, 10)
        let log = lifecycle(recorder)
        let number = try XCTUnwrap(taskNumber(log.first))
        XCTAssertEqual(log, ["created \(number)", "completed \(number)"])
        XCTAssertEqual(recorder.task(number: number)?.originalRequest?.httpMethod, "PUT")
        XCTAssertEqual(recorder.bytesByTask, [number: 10])
    }

    /// 120 requests at once from 6 threads: every task is heard created once and ending once, and
    /// each one's bytes add up to its body (run under Thread Sanitizer in CI).
    func test_givenManyConcurrentRequests_thenEveryTaskIsHeardOnceFromStartToEnd() throws {
        let recorder = Recorder()
        let client = try client(observer: recorder)
        let threads = 6, perThread = 20
        let promises = SharedValue<[Promise<HTTPResponse>]>([])
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for index in 0..<perThread {
                let size = 1_000 + thread * 100 + index
                let promise = client.response(for: LiveJSONEndpoint(path: "bytes/\(size)"))
                promises.withLock { $0.append(promise) }
            }
        }
        let results = try value(of: when(fulfilled: promises.withLock { $0 }), within: 60)
        XCTAssertEqual(results.count, threads * perThread)
        let log = lifecycle(recorder)
        let created = log.filter { $0.hasPrefix("created") }.compactMap(taskNumber)
        let completed = log.filter { $0.hasPrefix("completed") }.compactMap(taskNumber)
        XCTAssertEqual(created.count, threads * perThread)
        XCTAssertEqual(Set(created).count, created.count, "each task created once")
        XCTAssertEqual(completed.sorted(), created.sorted(), "each task ends once, and only tasks heard created end")
        for number in created {
            let path = recorder.task(number: number)?.originalRequest?.url?.lastPathComponent
            XCTAssertEqual(recorder.bytesByTask[number], path.flatMap { Int($0) }, "task \(number)'s bytes")
        }
    }
}
