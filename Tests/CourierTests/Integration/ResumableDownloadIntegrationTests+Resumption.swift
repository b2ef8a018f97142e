@testable import Courier
import Foundation
import Promises
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `DownloadResumption`: a download that stopped part-way (paused, cut, timed out) leaves its
/// part there, and the next download given it asks for the rest, against `/resumable`.
extension ResumableDownloadIntegrationTests {
    /// Calls `reached` once the download has received at least `bytes` bytes.
    private func progress(reaching bytes: Int64, _ reached: XCTestExpectation) -> ProgressHandler {
        let once = SharedValue(false)
        return ProgressHandler { report in
            guard report.bytesReceived >= bytes else { return }
            let first = once.withLock { fired -> Bool in
                defer { fired = true }
                return !fired
            }
            if first { reached.fulfill() }
        }
    }

    func test_givenADownloadCutWithoutRetry_whenDownloadedAgainWithTheResumption_thenOnlyTheRestIsFetched() throws {
        let key = counterKey()
        let before = transportFiles()
        let client = try makeClient()
        let destination = scratch.appendingPathComponent("resumed.bin")
        let resumption = DownloadResumption()
        let cut = endpoint(key, "cuts=70000", retry: RetryPolicy.none)

        let error = failure(of: client.download(cut, to: destination, resumption: resumption), within: 30)
        XCTAssertEqual(error.map(errorKind), "transport")
        XCTAssertEqual(try value(of: resumption.pause()), 70_000, "pause() with nothing running: what is kept")
        XCTAssertEqual(resumption.keptBytes, 70_000)
        XCTAssertEqual(resumption.expectedBytes, Int64(size))
        XCTAssertFalse(resumption.isInUse)
        XCTAssertEqual(transportFiles().subtracting(before).count, 1, "the part waits in the temporary folder")
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path))

        let file = try value(of: client.download(cut, to: destination, resumption: resumption), within: 30)

        XCTAssertEqual(try Data(contentsOf: destination), pattern(size))
        XCTAssertEqual(file.response.statusCode, 206)
        XCTAssertEqual(try log(key).map(\.range), [nil, "bytes=70000-"])
        XCTAssertEqual(try log(key).map(\.ifRange), [nil, "\"v1-\(key)\""])
        XCTAssertEqual(resumption.keptBytes, 0, "the part became the file")
        XCTAssertTrue(eventually { !resumption.isInUse })
        XCTAssertEqual(transportFiles().subtracting(before), [])
    }

    func test_givenAStalledDownload_whenPaused_thenPauseGivesTheKeptBytesAndTheNextDownloadResumes() throws {
        let key = counterKey()
        let client = try makeClient()
        let destination = scratch.appendingPathComponent("paused.bin")
        let resumption = DownloadResumption()
        let stalling = endpoint(key, "cuts=70000&hold=1", retry: RetryPolicy.none)
        // FoundationNetworking hands a body over in pieces of up to 64 KiB; the server sent
        // 70 000 bytes and waits, so at least the first piece arrives.
        let reached = expectation(description: "the first 64 KiB arrived")

        let download = client.download(stalling, to: destination, resumption: resumption, progress: progress(reaching: 65_536, reached))
        wait(for: [reached], timeout: 20)
        XCTAssertTrue(resumption.isInUse)
        let kept = try value(of: resumption.pause(), within: 20)

        XCTAssertEqual(failure(of: download).map(errorKind), "cancelled")
        XCTAssertFalse(resumption.isInUse, "pause() fulfils once the transfer stopped")
        XCTAssertTrue((65_536...70_000).contains(kept), "kept \(kept)")
        XCTAssertEqual(resumption.keptBytes, kept)
        let reports = ReportLog()
        _ = try value(of: client.download(stalling, to: destination, resumption: resumption, progress: ProgressHandler { reports.add($0) }), within: 30)
        XCTAssertEqual(try Data(contentsOf: destination), pattern(size))
        XCTAssertEqual(try log(key).map(\.range), [nil, "bytes=\(kept)-"])
        XCTAssertGreaterThanOrEqual(reports.all.first?.bytesReceived ?? 0, kept, "counts the kept part from the first report")
        XCTAssertEqual(reports.all.last?.bytesReceived, Int64(size))
    }

    func test_givenAResumptionInUse_whenASecondDownloadStartsWithIt_thenThatOneFailsAtOnce() throws {
        let key = counterKey()
        let client = try makeClient()
        let resumption = DownloadResumption()
        let reached = expectation(description: "the first download is under way")
        let first = client.download(
            endpoint(key, "cuts=70000&hold=1", retry: RetryPolicy.none), to: scratch.appendingPathComponent("first.bin"),
            resumption: resumption, progress: progress(reaching: 1, reached))
        wait(for: [reached], timeout: 20)

        let second = client.download(endpoint(key, ""), to: scratch.appendingPathComponent("second.bin"), resumption: resumption)

        XCTAssertEqual(failure(of: second).map(errorKind), "invalidRequest")
        XCTAssertTrue(first.isPending, "the first download goes on")
        XCTAssertGreaterThan(try value(of: resumption.pause(), within: 20), 0)
        XCTAssertEqual(try log(key).count, 1, "the second download sent nothing")
    }

    func test_givenNoStrongValidator_whenCut_thenNothingIsKeptAndTheNextDownloadStartsOver() throws {
        let key = counterKey()
        let before = transportFiles()
        let client = try makeClient()
        let destination = scratch.appendingPathComponent("weak.bin")
        let resumption = DownloadResumption()
        let cut = endpoint(key, "cuts=70000&validator=weak", retry: RetryPolicy.none)

        XCTAssertNotNil(failure(of: client.download(cut, to: destination, resumption: resumption), within: 30))
        XCTAssertEqual(try value(of: resumption.pause()), 0)
        XCTAssertEqual(transportFiles().subtracting(before), [])
        _ = try value(of: client.download(cut, to: destination, resumption: resumption), within: 30)

        XCTAssertEqual(try Data(contentsOf: destination), pattern(size))
        XCTAssertEqual(try log(key).map(\.range), [nil, nil])
    }

    func test_givenAKeptPart_whenDiscardedOrTheResumptionIsReleased_thenItsFileIsDeleted() throws {
        let client = try makeClient()
        let before = transportFiles()
        var resumption: DownloadResumption? = DownloadResumption()
        for name in ["discarded", "released"] {
            let key = counterKey() + name
            _ = failure(of: client.download(
                endpoint(key, "cuts=70000", retry: RetryPolicy.none), to: scratch.appendingPathComponent(name), resumption: resumption!),
                within: 30)
            XCTAssertEqual(try value(of: resumption!.pause()), 70_000, name)
            XCTAssertEqual(transportFiles().subtracting(before).count, 1, name)
            if name == "discarded" {
                resumption?.discard()
                XCTAssertEqual(resumption?.keptBytes, 0)
            } else {
                resumption = nil
            }
            XCTAssertEqual(transportFiles().subtracting(before), [], "\(name): the part is deleted")
        }
    }

    func test_givenTheCompletionStyle_whenCutAndDownloadedAgain_thenTheFileIsWhole() throws {
        let key = counterKey()
        let client = try makeClient()
        let destination = scratch.appendingPathComponent("completion.bin")
        let resumption = DownloadResumption()
        let cut = endpoint(key, "cuts=120000", retry: RetryPolicy.none)
        for expected in ["transport", "saved"] {
            let done = expectation(description: expected)
            let outcome = SharedValue<String?>(nil)
            client.download(cut, to: destination, resumption: resumption) { result in
                outcome.withLock { $0 = (try? result.get()).map { _ in "saved" } ?? result.failure.map(errorKind) }
                done.fulfill()
            }
            wait(for: [done], timeout: 30)
            XCTAssertEqual(outcome.withLock { $0 }, expected)
            _ = try value(of: resumption.pause())
        }
        XCTAssertEqual(try Data(contentsOf: destination), pattern(size))
        XCTAssertEqual(try log(key).map(\.range), [nil, "bytes=120000-"])
    }

    /// Keeps a 70 000-byte part of `/resumable/<key>` in `resumption` (a download cut without retry).
    private func keepPart(of key: String, in resumption: DownloadResumption, with client: NetworkClient) throws {
        _ = failure(of: client.download(
            endpoint(key, "cuts=70000", retry: RetryPolicy.none), to: scratch.appendingPathComponent("part-\(key)"),
            resumption: resumption), within: 30)
        XCTAssertEqual(try value(of: resumption.pause()), 70_000)
    }

    func test_givenADownloadThatFailed_whenTheNextStartsAsSoonAsTheCallerHears_thenTheResumptionIsFree() throws {
        let key = counterKey()
        let client = try makeClient()
        let destination = scratch.appendingPathComponent("at-once.bin")
        let resumption = DownloadResumption()
        let cut = endpoint(key, "cuts=70000", retry: RetryPolicy.none)

        let next = client.download(cut, to: destination, resumption: resumption).recover { _ in
            client.download(cut, to: destination, resumption: resumption)   // no pause() in between
        }

        _ = try value(of: next, within: 30)
        XCTAssertEqual(try Data(contentsOf: destination), pattern(size))
        XCTAssertEqual(try log(key).map(\.range), [nil, "bytes=70000-"])
    }

    func test_givenAnErrorAnswerToTheResumedRequest_thenThePartIsKeptForTheNextDownload() throws {
        let key = counterKey()
        let client = try makeClient()
        let destination = scratch.appendingPathComponent("after-error.bin")
        let resumption = DownloadResumption()
        let resumed = endpoint(key, "cuts=70000&fail=2:503", retry: RetryPolicy.none)
        try keepPart(of: key, in: resumption, with: client)

        let error = failure(of: client.download(resumed, to: destination, resumption: resumption), within: 30)
        XCTAssertEqual(error.map(errorKind), "serverError(503)")
        XCTAssertEqual(try value(of: resumption.pause()), 70_000, "a 503 says nothing about the part")
        _ = try value(of: client.download(resumed, to: destination, resumption: resumption), within: 30)

        XCTAssertEqual(try Data(contentsOf: destination), pattern(size))
        XCTAssertEqual(try log(key).map(\.range), [nil, "bytes=70000-", "bytes=70000-"])
    }

    func test_givenResumeDataTakenAndRestored_whenDownloaded_thenOnlyTheRestIsFetched() throws {
        let key = counterKey()
        let before = transportFiles()
        let client = try makeClient()
        let destination = scratch.appendingPathComponent("relaunched.bin")
        var first: DownloadResumption? = DownloadResumption()
        try keepPart(of: key, in: first!, with: client)

        let data = try XCTUnwrap(first?.takeResumeData())
        XCTAssertEqual(first?.keptBytes, 0, "handed over")
        XCTAssertNil(first?.takeResumeData(), "only once")
        first = nil   // as when the app quits: the file stays
        XCTAssertEqual(transportFiles().subtracting(before).count, 1)

        let restored = DownloadResumption(resumeData: data)
        XCTAssertEqual(restored.keptBytes, 70_000)
        XCTAssertEqual(restored.expectedBytes, Int64(size))
        _ = try value(of: client.download(endpoint(key, ""), to: destination, resumption: restored), within: 30)

        XCTAssertEqual(try Data(contentsOf: destination), pattern(size))
        XCTAssertEqual(try log(key).map(\.range), [nil, "bytes=70000-"])
        XCTAssertEqual(transportFiles().subtracting(before), [])
    }

    func test_givenResumeDataThatPointsElsewhereOrIsDamaged_thenTheResumptionIsEmptyAndNothingIsTouched() throws {
        let key = counterKey()
        let client = try makeClient()
        let resumption = DownloadResumption()
        try keepPart(of: key, in: resumption, with: client)
        var stored = try XCTUnwrap(JSONSerialization.jsonObject(with: XCTUnwrap(resumption.takeResumeData())) as? [String: Any])
        let temporary = FileManager.default.temporaryDirectory
        let partFile = temporary.appendingPathComponent(try XCTUnwrap(stored["file"] as? String))
        defer { try? FileManager.default.removeItem(at: partFile) }
        // A link to the part, and a readable copy of it, under names the client would use.
        let link = temporary.appendingPathComponent("courier-download-\(UUID().uuidString)")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: partFile.path)
        let shared = temporary.appendingPathComponent("courier-download-\(UUID().uuidString)")
        try Data(count: 70_000).write(to: shared)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: shared.path)
        defer { [link, shared].forEach { try? FileManager.default.removeItem(at: $0) } }
        let tampered: [(String, Any)] = [
            ("file", "../" + partFile.lastPathComponent), ("file", partFile.path), ("file", "courier-download-x"),
            ("file", link.lastPathComponent), ("file", shared.lastPathComponent), ("length", 69_999),
            ("totalLength", 70_000), ("totalLength", -5), ("validator", "\"v1\"\r\nX-Evil: 1"),
            ("validator", "W/\"v1\""), ("version", 1),
        ]

        for (field, value) in tampered {
            let original = stored[field]
            stored[field] = value
            let restored = DownloadResumption(resumeData: try JSONSerialization.data(withJSONObject: stored))
            XCTAssertEqual(restored.keptBytes, 0, "\(field) = \(value)")
            stored[field] = original
        }
        XCTAssertEqual(DownloadResumption(resumeData: Data("not json".utf8)).keptBytes, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: partFile.path), "a refused restore leaves the part where it is")
        XCTAssertEqual(try Data(contentsOf: shared).count, 70_000, "and touches no other file")

        let data = try JSONSerialization.data(withJSONObject: stored)
        let restored = DownloadResumption(resumeData: data)
        XCTAssertEqual(restored.keptBytes, 70_000, "the untampered data restores")
        XCTAssertFalse(FileManager.default.fileExists(atPath: partFile.path), "the part is taken over under a new name")
        XCTAssertEqual(DownloadResumption(resumeData: data).keptBytes, 0, "so the same data restores once")
        restored.discard()
    }

    func test_givenALinkPlantedWhereThePartWas_whenResumed_thenTheLinkIsNotFollowedAndTheDownloadStartsOver() throws {
        let key = counterKey()
        let before = transportFiles()
        let client = try makeClient()
        let resumption = DownloadResumption()
        try keepPart(of: key, in: resumption, with: client)
        let name = try XCTUnwrap(transportFiles().subtracting(before).first)
        let partFile = FileManager.default.temporaryDirectory.appendingPathComponent(name)
        // The part is swept, and a link to a file of the user's takes its name.
        let victim = scratch.appendingPathComponent("victim.txt")
        try Data("precious".utf8).write(to: victim)
        try FileManager.default.removeItem(at: partFile)
        try FileManager.default.createSymbolicLink(atPath: partFile.path, withDestinationPath: victim.path)
        defer { try? FileManager.default.removeItem(at: partFile) }
        let destination = scratch.appendingPathComponent("fresh.bin")

        _ = try value(of: client.download(endpoint(key, ""), to: destination, resumption: resumption), within: 30)

        XCTAssertEqual(try Data(contentsOf: destination), pattern(size), "started over")
        XCTAssertEqual(try log(key).map(\.range), [nil, nil])
        XCTAssertEqual(try Data(contentsOf: victim), Data("precious".utf8), "the link's target is untouched")
    }

    func test_givenAResumedAttemptTheTransportRefuses_thenThePartIsKept() throws {
        let key = counterKey()
        let resumption = DownloadResumption()
        try keepPart(of: key, in: resumption, with: try makeClient())
        // A plugin sends the attempt to another scheme: the transport refuses it before sending.
        let client = try makeClient { $0.plugins = [SchemeChanger()] }

        let error = failure(of: client.download(
            endpoint(key, "", retry: RetryPolicy.none), to: scratch.appendingPathComponent("refused.bin"), resumption: resumption))

        XCTAssertEqual(error.map(errorKind), "invalidRequest")
        XCTAssertEqual(try value(of: resumption.pause()), 70_000, "the untouched part goes back to the resumption")
        XCTAssertEqual(try log(key).count, 1, "nothing more was sent")
    }

    func test_givenAPartOfAnotherResource_whenDownloaded_thenThePartIsDeletedAndTheDownloadStartsOver() throws {
        let (first, second) = (counterKey() + "a", counterKey() + "b")
        let before = transportFiles()
        let client = try makeClient()
        let resumption = DownloadResumption()
        try keepPart(of: first, in: resumption, with: client)

        _ = try value(of: client.download(endpoint(second, ""), to: scratch.appendingPathComponent("other.bin"), resumption: resumption), within: 30)

        XCTAssertEqual(try log(second).map(\.range), [nil], "no Range for another path")
        XCTAssertEqual(resumption.keptBytes, 0)
        XCTAssertEqual(transportFiles().subtracting(before), [], "the other resource's part is deleted")
    }

    func test_givenAPart_whenTheSamePathIsDownloadedByAnEndpointThatRefuses206_thenThePartIsNotOffered() throws {
        struct Only200: Endpoint {
            typealias Response = EmptyResponse
            let path: String
            let query: [URLQueryItem]
            var timeout: TimeInterval? { 20 }
            var acceptedStatusCodes: StatusCodeSet { [200] }
        }
        let key = counterKey()
        let before = transportFiles()
        let client = try makeClient()
        let resumption = DownloadResumption()
        try keepPart(of: key, in: resumption, with: client)
        let destination = scratch.appendingPathComponent("only200.bin")

        let error = failure(of: client.download(
            Only200(path: "resumable/\(key)", query: query("fail=2:503")), to: destination, resumption: resumption), within: 30)

        XCTAssertEqual(error.map(errorKind), "serverError(503)")
        XCTAssertEqual(try log(key).map(\.range), [nil, nil], "no Range: a 206 would not be accepted")
        XCTAssertEqual(try value(of: resumption.pause()), 70_000, "the part waits for a download that can use it")
        resumption.discard()
        XCTAssertEqual(transportFiles().subtracting(before), [])
    }

    func test_givenAPart_whenAStubbedClientDownloads_thenItStartsOverAndItsSuccessDeletesThePart() throws {
        let key = counterKey()
        let before = transportFiles()
        let resumption = DownloadResumption()
        try keepPart(of: key, in: resumption, with: try makeClient())
        let stubbed = NetworkClient.stubbing().body(Data("stubbed".utf8)).makeClient(configuration: .init(baseURL: try server.baseURL))
        let destination = scratch.appendingPathComponent("stubbed.bin")

        _ = try value(of: stubbed.download(endpoint(key, "cuts=70000", retry: RetryPolicy.none), to: destination, resumption: resumption))

        XCTAssertEqual(try Data(contentsOf: destination), Data("stubbed".utf8), "the stub's body, from the beginning")
        XCTAssertEqual(resumption.keptBytes, 0, "the whole body was saved: the part is obsolete")
        XCTAssertEqual(transportFiles().subtracting(before), [], "and deleted, not left behind")
    }

    func test_givenAPauseWhileTheResumedAttemptIsPrepared_thenPauseWaitsForThePartToBeKeptAgain() throws {
        let key = counterKey()
        let resumption = DownloadResumption()
        try keepPart(of: key, in: resumption, with: try makeClient())
        let entered = expectation(description: "prepare runs")
        let gate = DispatchSemaphore(value: 0)
        let client = try makeClient { $0.plugins = [BlockingPrepare(entered: entered, gate: gate)] }
        let download = SharedValue<Promise<DownloadedFile>?>(nil)

        let resumed = endpoint(key, "cuts=70000", retry: RetryPolicy.none)
        let destination = scratch.appendingPathComponent("prepared.bin")
        DispatchQueue.global().async {
            let started = client.download(resumed, to: destination, resumption: resumption)
            download.withLock { $0 = started }
        }
        wait(for: [entered], timeout: 20)
        let pause = resumption.pause()   // the attempt holds the part: it is in neither place now
        XCTAssertTrue(pause.isPending, "pause() waits while the attempt holds the part")
        gate.signal()

        XCTAssertEqual(try value(of: pause, within: 20), 70_000, "the part is kept again")
        XCTAssertTrue(eventually { download.withLock { $0 } != nil })
        XCTAssertEqual(download.withLock { $0 }.flatMap { failure(of: $0) }.map(errorKind), "cancelled")
        XCTAssertEqual(try log(key).count, 1, "the paused attempt was never sent")
    }
}

/// Points every request at an `ftp:` URL.
private struct SchemeChanger: RequestPlugin {
    func prepare(_ request: URLRequest, for endpoint: any Endpoint) -> URLRequest {
        var changed = request
        var components = request.url.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: false) }
        components?.scheme = "ftp"
        changed.url = components?.url
        return changed
    }
}

/// Blocks `prepare` until `gate` is signalled, after fulfilling `entered`.
private struct BlockingPrepare: RequestPlugin {
    let entered: XCTestExpectation
    let gate: DispatchSemaphore

    func prepare(_ request: URLRequest, for endpoint: any Endpoint) -> URLRequest {
        entered.fulfill()
        gate.wait()
        return request
    }
}

private extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
