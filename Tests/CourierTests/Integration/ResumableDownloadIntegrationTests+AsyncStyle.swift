@testable import Courier
import Foundation
import Promises
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `send(_:downloadingTo:)`: downloads in the async style, against `/resumable` and `/drip`.
extension ResumableDownloadIntegrationTests {
    /// Runs `body` in a task and waits (bounded) for its outcome.
    private func run<T: Sendable>(
        within seconds: TimeInterval = 30, _ body: @escaping @Sendable () async throws -> T
    ) -> Result<T, any Error>? {
        let outcome = SharedValue<Result<T, any Error>?>(nil)
        let finished = expectation(description: "the task ends")
        Task {
            do {
                let value = try await body()
                outcome.withLock { $0 = .success(value) }
            } catch {
                outcome.withLock { $0 = .failure(error) }
            }
            finished.fulfill()
        }
        wait(for: [finished], timeout: seconds)
        return outcome.withLock { $0 }
    }

    func test_givenADownloadCutMidBody_whenAwaited_thenTheRetryResumesAndTheWholeFileIsReturned() throws {
        let key = counterKey()
        let client = try makeClient()
        let destination = scratch.appendingPathComponent("awaited.bin")
        let cut = endpoint(key, "cuts=70000")

        let file = try XCTUnwrap(run { try await client.send(cut, downloadingTo: destination) }).get()

        XCTAssertEqual(file.fileURL, destination)
        XCTAssertEqual(try Data(contentsOf: destination), pattern(size))
        XCTAssertEqual(file.response.statusCode, 206)
        XCTAssertEqual(try log(key).map(\.range), [nil, "bytes=70000-"])
    }

    func test_givenAnAwaitedDownload_whenItsTaskIsCancelled_thenItThrowsNetworkErrorCancelledAndLeavesNoFile() throws {
        let before = transportFiles()
        let client = try makeClient()
        let destination = scratch.appendingPathComponent("cancelled.bin")
        let arriving = DispatchSemaphore(value: 0)
        let progress = ProgressHandler { report in if report.bytesReceived > 0 { arriving.signal() } }
        let filesWhenThrown = SharedValue<Set<String>?>(nil)
        let finished = expectation(description: "the task ends")
        let thrown = SharedValue<(any Error)?>(nil)
        let task = Task {
            do {
                _ = try await client.send(LiveJSONEndpoint(path: "drip"), downloadingTo: destination, progress: progress)
            } catch {
                filesWhenThrown.withLock { $0 = transportFilesNow() }
                thrown.withLock { $0 = error }
            }
            finished.fulfill()
        }
        XCTAssertEqual(arriving.wait(timeout: .now() + 10), .success)
        task.cancel()
        wait(for: [finished], timeout: 10)

        XCTAssertEqual(thrown.withLock { $0 }.map(errorKind), "cancelled", "as `send` throws, not PromiseError")
        XCTAssertEqual(filesWhenThrown.withLock { $0 }.map { $0.isSubset(of: before) }, true, "nothing left when it throws")
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path))
    }

    func test_givenAResumption_whenTheAwaitingTaskIsCancelled_thenThePartIsKeptAndTheNextAwaitedDownloadResumes() throws {
        let key = counterKey()
        let client = try makeClient()
        let destination = scratch.appendingPathComponent("resumed-async.bin")
        let resumption = DownloadResumption()
        let stalling = endpoint(key, "cuts=70000&hold=1", retry: RetryPolicy.none)
        let reached = DispatchSemaphore(value: 0)
        let progress = ProgressHandler { report in if report.bytesReceived >= 70_000 { reached.signal() } }
        let finished = expectation(description: "the first task ends")
        let thrown = SharedValue<(any Error)?>(nil)
        let task = Task {
            do {
                _ = try await client.send(stalling, downloadingTo: destination, resumption: resumption, progress: progress)
            } catch {
                thrown.withLock { $0 = error }
            }
            finished.fulfill()
        }
        XCTAssertEqual(reached.wait(timeout: .now() + 20), .success)
        task.cancel()
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(thrown.withLock { $0 }.map(errorKind), "cancelled")
        XCTAssertTrue(eventually { resumption.keptBytes == 70_000 && !resumption.isInUse }, "the part waits in the resumption")

        let file = try XCTUnwrap(run { try await client.send(stalling, downloadingTo: destination, resumption: resumption) }).get()

        XCTAssertEqual(try Data(contentsOf: destination), pattern(size))
        XCTAssertEqual(file.response.statusCode, 206)
        XCTAssertEqual(try log(key).map(\.range), [nil, "bytes=70000-"])
    }
}

/// The transport's files (`courier-download-…` in the temporary directory) now, from any thread.
private func transportFilesNow() -> Set<String> {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: FileManager.default.temporaryDirectory.path)) ?? []
    return Set(names.filter { $0.hasPrefix("courier-download-") })
}
