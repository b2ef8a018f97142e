import Foundation
import XCTest
@testable import Courier
import Promises
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Multipart forms with file parts: a small form is encoded in memory; a large one is written to
/// a private temporary file that every attempt streams, with the bytes of the same form held in
/// memory; bad files are refused before sending, and the temporary file goes away with the request.
final class MultipartFileTests: XCTestCase {
    struct Upload: Endpoint {
        typealias Response = EmptyResponse
        var path: String { "forms" }
        var method: HTTPMethod { .post }
        let form: MultipartFormData
        var retryPolicy: RetryPolicy?
        var body: RequestBody { .multipart(form) }
    }

    private var scratch: URL!

    override func setUpWithError() throws {
        scratch = try makeScratchFolder("MultipartFileTests")
    }

    override func tearDownWithError() throws {
        removeScratchFolder(scratch)
    }

    /// A form with a text field and `file` as a file part, and the same form with the file's
    /// bytes in memory (same boundary), which must encode to the same body.
    private func forms(file: URL, content: Data) -> (onDisk: MultipartFormData, inMemory: MultipartFormData) {
        var onDisk = MultipartFormData(boundary: "B0undary")
        onDisk.append("Ada", name: "name")
        onDisk.append(file, name: "clip", contentType: "video/mp4")
        var inMemory = MultipartFormData(boundary: "B0undary")
        inMemory.append("Ada", name: "name")
        inMemory.append(content, name: "clip", filename: file.lastPathComponent, contentType: "video/mp4")
        return (onDisk, inMemory)
    }

    /// Over the 1 MiB in-memory limit: staged, in many 64 KiB pieces and a partial one.
    private let content = Data((0..<1_100_000).map { UInt8($0 % 251) })

    /// Holds the staging queue until the returned semaphore is signalled, so that a test can act
    /// between building a request and staging its form.
    private func holdStaging() -> DispatchSemaphore {
        let release = DispatchSemaphore(value: 0)
        let held = DispatchSemaphore(value: 0)
        StagedForm.queue.async {
            held.signal()
            release.wait()
        }
        held.wait()
        return release
    }

    func test_givenAFilePart_whenAppended_thenItsNameAndTypeComeFromTheURLUnlessGiven() {
        var form = MultipartFormData()
        form.append(URL(fileURLWithPath: "/photos/Ada.PNG"), name: "avatar")
        form.append(URL(fileURLWithPath: "/exports/data.weird"), name: "blob")
        form.append(URL(fileURLWithPath: "/exports/report.txt"), name: "report", filename: "r.csv", contentType: "text/csv")

        XCTAssertEqual(form.parts.map(\.filename), ["Ada.PNG", "data.weird", "r.csv"])
        XCTAssertEqual(form.parts.map(\.contentType), ["image/png", "application/octet-stream", "text/csv"])
        XCTAssertEqual(form.parts.map(\.fileURL?.path), ["/photos/Ada.PNG", "/exports/data.weird", "/exports/report.txt"])
        XCTAssertEqual(form.parts.map(\.data), [Data(), Data(), Data()])
        let part = MultipartFormData.Part(name: "clip", fileURL: URL(fileURLWithPath: "/v/Trip.MOV"))
        XCTAssertEqual(part.filename, "Trip.MOV", "a file part built directly is named like an appended one")
        XCTAssertEqual(part.contentType, "video/quicktime")
    }

    func test_givenAStagedForm_whenWritten_thenOnlyItsOwnerCanReadIt() throws {
        let url = try writeFile(content, in: scratch, named: "clip.mp4")
        let staged = StagedForm(forms(file: url, content: content).onDisk)

        try staged.write(shouldStop: { false })

        let attributes = try FileManager.default.attributesOfItem(atPath: staged.file.path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        XCTAssertThrowsError(try staged.write(shouldStop: { false }), "an existing file is never written through")
    }

    func test_givenAFilePart_whenEncoded_thenTheBytesAreThoseOfTheSameFormInMemory() throws {
        let url = try writeFile(content, in: scratch, named: "clip.mp4")
        let (onDisk, inMemory) = forms(file: url, content: content)

        XCTAssertEqual(try onDisk.encoded(), try inMemory.encoded())
    }

    func test_givenAFilePart_whenSent_thenTheTransportStreamsAStagedCopyOfTheWholeForm() throws {
        let url = try writeFile(content, in: scratch, named: "clip.mp4")
        let (onDisk, inMemory) = forms(file: url, content: content)
        let read = SharedValue<Data?>(nil)   // read while sent: the copy is deleted with the request
        let transport = RecordingTransport(.immediate { request in
            read.withLock { $0 = request.httpBodyStream.map(readAll) }
            return .success(HTTPResponse(statusCode: 204, url: request.url))
        }, keepsCompletions: false)

        _ = try exampleClient(transport).request(Upload(form: onDisk)).wait(within: 5)

        let sent = try XCTUnwrap(transport.requests.first)
        let expected = try inMemory.encoded()
        XCTAssertNil(sent.httpBody, "the pipeline never holds a large form with files in memory")
        XCTAssertEqual(read.withLock { $0 }, expected)
        XCTAssertEqual(sent.value(forHTTPHeaderField: "Content-Length"), String(expected.count))
        XCTAssertEqual(sent.value(forHTTPHeaderField: "Content-Type"), "multipart/form-data; boundary=B0undary")
        let staged = try XCTUnwrap(transport.contexts.first?.uploadFile)
        XCTAssertNotEqual(staged, url, "the transport uploads the staged form, not the part's file")
        XCTAssertTrue(staged.lastPathComponent.hasPrefix("courier-upload-"), staged.path)
    }

    func test_givenRetries_thenEveryAttemptSendsTheSameStagedForm() throws {
        let url = try writeFile(content, in: scratch, named: "clip.mp4")
        let (onDisk, inMemory) = forms(file: url, content: content)
        let reads = SharedValue<[Data]>([])
        let transport = RecordingTransport(.immediate { request in
            let read = request.httpBodyStream.map(readAll) ?? Data()
            let attempt = reads.withLock { reads -> Int in
                reads.append(read)
                return reads.count
            }
            return .success(HTTPResponse(statusCode: attempt < 3 ? 503 : 204, url: request.url))
        }, keepsCompletions: false)
        let retrying = RetryPolicy(maximumRetryCount: 3, delayBeforeRetry: .milliseconds(1), jitter: 0, retryableMethods: [.post])

        _ = try exampleClient(transport).request(Upload(form: onDisk, retryPolicy: retrying)).wait(within: 5)

        let expected = try inMemory.encoded()
        XCTAssertEqual(reads.withLock { $0 }, [expected, expected, expected])
        XCTAssertEqual(Set(transport.contexts.map(\.uploadFile)).count, 1, "one staged file for every attempt")
    }

    func test_givenTheRequestIsOver_thenTheStagedFileIsDeleted() throws {
        let url = try writeFile(content, in: scratch, named: "clip.mp4")
        for status in [204, 500] {
            let existedWhileSent = SharedValue(false)
            let transport = RecordingTransport(.immediate { request in
                existedWhileSent.withLock { $0 = request.httpBodyStream != nil }
                return .success(HTTPResponse(statusCode: status, url: request.url))
            }, keepsCompletions: false)

            _ = try? exampleClient(transport).request(Upload(form: forms(file: url, content: content).onDisk)).wait(within: 5)

            let staged = try XCTUnwrap(transport.contexts.first?.uploadFile)
            XCTAssertTrue(existedWhileSent.withLock { $0 }, "sent from the staged file")
            XCTAssertTrue(staged.lastPathComponent.hasPrefix("courier-upload-"), staged.path)
            XCTAssertTrue(eventually { !FileManager.default.fileExists(atPath: staged.path) }, "after \(status)")
        }
    }

    func test_givenARequestCancelledWhileHeld_thenNothingIsSentAndTheStagedFileIsDeleted() throws {
        let url = try writeFile(content, in: scratch, named: "clip.mp4")
        let transport = RecordingTransport.answering(204)
        let client = exampleClient(transport)
        client.pause()
        let before = stagedFiles()
        let promise = client.request(Upload(form: forms(file: url, content: content).onDisk))
        XCTAssertTrue(eventually { client.core.gate.heldCount == 1 }, "staged, then held by the pause")
        XCTAssertEqual(stagedFiles().subtracting(before).count, 1)

        promise.cancel()

        XCTAssertThrowsError(try promise.wait(within: 5)) { error in
            XCTAssertTrue(isCancellation(error), "\(error)")
        }
        client.resume()
        client.core.gate.queue.sync {}   // whatever resume released has left the gate
        XCTAssertEqual(transport.sendCount, 0)
        XCTAssertTrue(eventually { stagedFiles().isSubset(of: before) }, "the staged copy is deleted")
    }

    func test_givenARequestCancelledBeforeItsFormIsStaged_thenNoCopyIsMadeAndNothingIsSent() throws {
        let url = try writeFile(content, in: scratch, named: "clip.mp4")
        let transport = RecordingTransport.answering(204)
        let before = stagedFiles()
        let release = holdStaging()
        let promise = exampleClient(transport).request(Upload(form: forms(file: url, content: content).onDisk))

        promise.cancel()
        release.signal()

        XCTAssertThrowsError(try promise.wait(within: 5)) { error in
            XCTAssertTrue(isCancellation(error), "\(error)")
        }
        StagedForm.queue.sync {}   // the staging block ran and stopped
        XCTAssertEqual(transport.sendCount, 0)
        XCTAssertTrue(eventually { stagedFiles().isSubset(of: before) }, "no copy is left")
    }

    /// Makes the next staged copy stop at its first piece, as a read on a hung file system
    /// would, until the returned semaphore is signalled; `copying` is signalled when it is stuck.
    private func holdCopy() -> (copying: DispatchSemaphore, release: DispatchSemaphore) {
        let copying = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let first = SharedValue(true)
        StagedForm.beforeEachPiece.withLock { hook in
            hook = {
                guard first.withLock({ isFirst in defer { isFirst = false }; return isFirst }) else { return }
                copying.signal()
                release.wait()
            }
        }
        addTeardownBlock { StagedForm.beforeEachPiece.withLock { $0 = nil } }
        return (copying, release)
    }

    func test_givenAStagingCopyThatOutlastsTheTimeout_thenTheRequestTimesOutWithoutSending() throws {
        let url = try writeFile(content, in: scratch, named: "clip.mp4")
        let transport = RecordingTransport.answering(204)
        let clock = VirtualClock()
        let before = stagedFiles()
        let stuck = holdCopy()
        let promise = exampleClient(transport) { $0.scheduler = clock; $0.timeout = 10 }
            .request(Upload(form: forms(file: url, content: content).onDisk))

        XCTAssertEqual(stuck.copying.wait(timeout: .now() + 5), .success, "the copy started")
        XCTAssertTrue(clock.waitUntilPending(atLeast: 1), "the deadline runs during the copy")
        clock.advance(by: 10)

        XCTAssertEqual(outcomeName(Result { try promise.wait(within: 5) }), "timedOut")
        stuck.release.signal()
        StagedForm.queue.sync {}   // the copy saw the request over and stopped
        XCTAssertEqual(transport.sendCount, 0)
        XCTAssertTrue(eventually { stagedFiles().isSubset(of: before) }, "no copy is left")
    }

    func test_givenACopyStuckForGood_thenAFormWaitingBehindItTimesOutInsteadOfWaitingForEver() throws {
        let url = try writeFile(content, in: scratch, named: "clip.mp4")
        let transport = RecordingTransport.answering(204)
        let clock = VirtualClock()
        let client = exampleClient(transport) { $0.scheduler = clock; $0.timeout = 10 }
        let stuck = holdCopy()
        let first = client.request(Upload(form: forms(file: url, content: content).onDisk))
        XCTAssertEqual(stuck.copying.wait(timeout: .now() + 5), .success, "the first copy hangs")

        let behind = client.request(Upload(form: forms(file: url, content: content).onDisk))
        XCTAssertTrue(clock.waitUntilPending(atLeast: 2), "the first copy's deadline, and the second form's wait")
        clock.advance(by: 10)

        XCTAssertEqual(outcomeName(Result { try behind.wait(within: 5) }), "timedOut", "not waiting for ever")
        XCTAssertEqual(outcomeName(Result { try first.wait(within: 5) }), "timedOut")
        stuck.release.signal()
        StagedForm.queue.sync {}
        XCTAssertEqual(transport.sendCount, 0)
    }

    func test_givenAStagedForm_thenTheFirstAttemptsDeadlineCountsTheCopy() throws {
        let url = try writeFile(content, in: scratch, named: "clip.mp4")
        let transport = RecordingTransport(.manual)
        let clock = VirtualClock()
        let stuck = holdCopy()
        let promise = exampleClient(transport) { $0.scheduler = clock; $0.timeout = 10 }
            .request(Upload(form: forms(file: url, content: content).onDisk))
        XCTAssertEqual(stuck.copying.wait(timeout: .now() + 5), .success)
        XCTAssertTrue(clock.waitUntilPending(atLeast: 1))

        clock.advance(by: 6)   // six of the ten seconds go to the copy
        stuck.release.signal()
        XCTAssertTrue(eventually { transport.sendCount == 1 }, "sent once the copy is written")
        clock.advance(by: 4)

        XCTAssertEqual(outcomeName(Result { try promise.wait(within: 5) }), "timedOut", "ten seconds after the copy began")
    }

    func test_givenAFormWaitingBehindOtherCopies_thenTheWaitAndItsOwnCopyEachHaveATimeout() throws {
        let url = try writeFile(content, in: scratch, named: "clip.mp4")
        let transport = RecordingTransport(.manual)
        let clock = VirtualClock()
        let release = holdStaging()   // another form's copy holds the staging queue
        let promise = exampleClient(transport) { $0.scheduler = clock; $0.timeout = 10 }
            .request(Upload(form: forms(file: url, content: content).onDisk))

        XCTAssertTrue(clock.waitUntilPending(atLeast: 1), "the wait for its turn has a timeout")
        clock.advance(by: 9.9)
        XCTAssertTrue(promise.isPending)
        release.signal()
        XCTAssertTrue(eventually { transport.sendCount == 1 })
        clock.advance(by: 9.9)
        XCTAssertTrue(promise.isPending, "its ten seconds started again with its own copy")
        clock.advance(by: 0.1)

        XCTAssertEqual(outcomeName(Result { try promise.wait(within: 5) }), "timedOut")
    }

    func test_givenAFileRemovedBeforeItsFormIsStaged_thenTheRequestFailsAsInvalidWithoutSending() throws {
        let url = try writeFile(content, in: scratch, named: "clip.mp4")
        let transport = RecordingTransport.answering(204)
        let before = stagedFiles()
        let release = holdStaging()
        let promise = exampleClient(transport).request(Upload(form: forms(file: url, content: content).onDisk))

        try FileManager.default.removeItem(at: url)   // checked when built, gone when staged
        release.signal()

        XCTAssertThrowsError(try promise.wait(within: 5)) { error in
            guard case .invalidRequest(let reason)? = error as? NetworkError else {
                return XCTFail("expected invalidRequest, got \(error)")
            }
            XCTAssertTrue(reason.contains(url.path), reason)
        }
        XCTAssertEqual(transport.sendCount, 0)
        XCTAssertTrue(eventually { stagedFiles().isSubset(of: before) }, "the partial copy is deleted")
    }

    func test_givenAStagedForm_whenSentWithAsyncAwait_thenTheWholeFormIsStreamed() async throws {
        let url = try writeFile(content, in: scratch, named: "clip.mp4")
        let (onDisk, inMemory) = forms(file: url, content: content)
        let transport = RecordingTransport(.immediate { request in
            .success(HTTPResponse(statusCode: 204, url: request.url))
        }, keepsCompletions: false)

        _ = try await exampleClient(transport).send(Upload(form: onDisk))

        XCTAssertEqual(transport.requests.first?.value(forHTTPHeaderField: "Content-Length"), String(try inMemory.encoded().count))
        XCTAssertNotNil(transport.contexts.first?.uploadFile)
    }

    func test_givenAStagedFormAnsweredInsideSend_thenTheAnswerIsNotDecodedOnTheStagingQueue() throws {
        struct Probe: Decodable, Sendable {
            let onStagingQueue: Bool
            init(from decoder: any Decoder) throws {
                onStagingQueue = DispatchQueue.getSpecific(key: stagingQueueMark) == true
            }
        }
        struct Upload: Endpoint {
            typealias Response = Probe
            let form: MultipartFormData
            var path: String { "forms" }
            var method: HTTPMethod { .post }
            var body: RequestBody { .multipart(form) }
        }
        StagedForm.queue.setSpecific(key: stagingQueueMark, value: true)
        let url = try writeFile(content, in: scratch, named: "clip.mp4")
        let transport = RecordingTransport(.immediate { request in
            .success(HTTPResponse(statusCode: 200, body: Data("{}".utf8), url: request.url))
        }, keepsCompletions: false)

        let probe = try exampleClient(transport).request(Upload(form: forms(file: url, content: content).onDisk)).wait(within: 5)

        XCTAssertNotNil(transport.contexts.first?.uploadFile, "staged")
        XCTAssertFalse(probe.onStagingQueue, "decoding would hold up every other form's copy")
    }

    func test_givenASmallFormWithAFilePart_thenItIsEncodedInMemoryWhenBuilt() throws {
        let small = Data("a small file".utf8)
        let url = try writeFile(small, in: scratch, named: "note.txt")
        let (onDisk, inMemory) = forms(file: url, content: small)
        let transport = RecordingTransport.answering(204)

        _ = try exampleClient(transport).request(Upload(form: onDisk)).wait(within: 5)

        XCTAssertEqual(transport.requests.first?.httpBody, try inMemory.encoded())
        XCTAssertNil(transport.contexts.first?.uploadFile, "nothing staged for a form under 1 MiB")
    }

    func test_givenAFilePartThatCannotBeRead_thenTheRequestIsRefusedBeforeSending() throws {
        let transport = RecordingTransport.answering(204)
        let client = exampleClient(transport)
        let candidates = [
            scratch.appendingPathComponent("missing.bin"),
            scratch!,
            URL(fileURLWithPath: "/dev/zero"),
            URL(string: "https://elsewhere.example/clip.mp4")!,
        ]

        for file in candidates {
            var form = MultipartFormData()
            form.append(file, name: "clip")
            XCTAssertThrowsError(try client.request(Upload(form: form)).wait(within: 5), file.absoluteString) { error in
                guard case .invalidRequest(let reason)? = error as? NetworkError else {
                    return XCTFail("expected invalidRequest, got \(error)")
                }
                XCTAssertTrue(reason.contains("part \"clip\""), reason)
            }
        }
        XCTAssertEqual(transport.sendCount, 0)
    }

    func test_givenAStagingCopyAskedToStop_thenItStopsWithCancelled() throws {
        let url = try writeFile(content, in: scratch, named: "clip.mp4")
        let staged = StagedForm(forms(file: url, content: content).onDisk)
        let asked = SharedValue(0)

        XCTAssertThrowsError(try staged.write(shouldStop: { asked.withLock { $0 += 1; return $0 > 2 } })) { error in
            XCTAssertEqual((error as? NetworkError).map(\.shortName), "cancelled")
        }
        XCTAssertEqual(asked.withLock { $0 }, 3, "stops at the first piece after being told")
    }

    func test_givenAFilePart_whenInspected_thenMakeURLRequestShowsTheWholeBodyAndCurlItsOwnFormOptions() throws {
        let url = try writeFile(content, in: scratch, named: "clip.mp4")
        let (onDisk, inMemory) = forms(file: url, content: content)
        let client = exampleClient(RecordingTransport.answering())

        let request = try client.makeURLRequest(for: Upload(form: onDisk))
        let command = try client.curlCommand(for: Upload(form: onDisk))

        XCTAssertEqual(request.httpBody, try inMemory.encoded())
        XCTAssertTrue(command.contains("--form-string 'name=Ada'"), command)
        XCTAssertTrue(command.contains(#"-F 'clip=@"\#(url.path)";type=video/mp4;filename="clip.mp4"'"#), command)
        XCTAssertFalse(command.contains("Content-Type"), "curl frames the parts with its own boundary: \(command)")
        XCTAssertFalse(command.contains("--data"), command)

        var listed = MultipartFormData()
        listed.append(url, name: "clip", contentType: "text/plain, text/csv")   // curl would read "," as a file list
        let withList = try client.curlCommand(for: Upload(form: listed))
        XCTAssertTrue(withList.contains(#"-F 'clip=@"\#(url.path)";filename="clip.mp4"'"#), withList)
    }

    func test_givenAFormWithSecretsAndBinaryParts_whenPrintedAsCurl_thenTheyAreNotShown() throws {
        var form = MultipartFormData()
        form.append("hunter2", name: "password")
        form.append("session=abc", name: "cookie")        // a header-style credential name
        form.append(Data([0xFF, 0x00]), name: "blob", filename: "b.bin")
        struct Login: Endpoint {
            let form: MultipartFormData
            var path: String { "login" }
            var method: HTTPMethod { .post }
            var body: RequestBody { .multipart(form) }
        }

        let command = try exampleClient(RecordingTransport.answering()).curlCommand(for: Login(form: form))

        XCTAssertTrue(command.contains("--form-string 'password=<redacted>'"), command)
        XCTAssertTrue(command.contains("--form-string 'cookie=<redacted>'"), command)
        XCTAssertFalse(command.contains("abc"), command)
        XCTAssertTrue(command.contains("--form-string 'blob=<2 bytes of application/octet-stream not shown>'"), command)
        XCTAssertFalse(command.contains("hunter2"), command)
    }

    func test_givenAFileBodyThatIsASymbolicLink_thenTheTargetsSizeAndBytesAreSent() throws {
        let target = try writeFile(content, in: scratch, named: "target.bin")
        let link = scratch.appendingPathComponent("link.bin")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        var form = MultipartFormData(boundary: "B")
        form.append(link, name: "clip")
        let client = exampleClient(RecordingTransport.answering())

        let fileBody = try client.makeURLRequest(for: FileBodyTests.Upload(file: link))
        let formBody = try client.makeURLRequest(for: Upload(form: form))

        XCTAssertEqual(fileBody.value(forHTTPHeaderField: "Content-Length"), String(content.count),
                       "the link's own size (its path's length) would hang or corrupt the connection")
        XCTAssertEqual(fileBody.httpBodyStream.map(readAll), content)
        XCTAssertTrue(formBody.httpBody.map { $0.range(of: content) != nil } ?? false)
    }

    func test_givenAFileBodyThatIsNotARegularFile_thenItIsRefusedBeforeSending() throws {
        let transport = RecordingTransport.answering(204)

        XCTAssertThrowsError(
            try exampleClient(transport).request(FileBodyTests.Upload(file: URL(fileURLWithPath: "/dev/zero"))).wait(within: 5)
        ) { error in
            guard case .invalidRequest(let reason)? = error as? NetworkError else {
                return XCTFail("expected invalidRequest, got \(error)")
            }
            XCTAssertTrue(reason.contains("not a regular file"), reason)
        }
        XCTAssertEqual(transport.sendCount, 0)
    }

    /// The staged copies (`courier-upload-…` in the temporary directory) that exist now.
    private func stagedFiles() -> Set<String> {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: FileManager.default.temporaryDirectory.path)) ?? []
        return Set(names.filter { $0.hasPrefix("courier-upload-") })
    }
}

/// Marks `StagedForm.queue` for the test that checks where a staged form's answer is decoded.
private let stagingQueueMark = DispatchSpecificKey<Bool>()
