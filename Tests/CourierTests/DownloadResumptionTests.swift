import Foundation
import XCTest
@testable import Courier
import Promises

/// `DownloadResumption` without a server: `pause()` with transports that stay silent after a
/// cancellation, many pauses at once, and the resumption's own bookkeeping.
final class DownloadResumptionTests: XCTestCase {
    struct File: Endpoint {
        var path: String { "files/video" }
    }

    private var scratch: URL!

    override func setUpWithError() throws {
        scratch = try makeScratchFolder("DownloadResumptionTests")
    }

    override func tearDownWithError() throws {
        removeScratchFolder(scratch)
    }

    func test_givenAStubThatNeverAnswersACancelledAttempt_whenPaused_thenPauseStillFinishes() throws {
        // The stub drops its completion when cancelled (it never calls it): the resumption
        // learns that the attempt is over when the transport lets go of the completion.
        let client = NetworkClient.stubbing().body(Data("video".utf8)).delay(60).makeClient()
        let resumption = DownloadResumption()
        let download = client.download(File(), to: scratch.appendingPathComponent("video"), resumption: resumption)
        XCTAssertTrue(resumption.isInUse)

        let pauses = (0..<50).map { _ in resumption.pause() }

        for pause in pauses { XCTAssertEqual(try pause.wait(within: 5), 0) }
        XCTAssertThrowsError(try download.wait(within: 5)) { error in
            XCTAssertEqual((error as? NetworkError)?.shortName, "cancelled")
        }
        XCTAssertFalse(resumption.isInUse)
        XCTAssertEqual(try resumption.pause().wait(within: 1), 0, "nothing running: at once")
    }

    func test_givenAFinishedDownload_thenTheResumptionIsFreeAgainAndHoldsNothing() throws {
        let client = NetworkClient.stubbing().body(Data("video".utf8)).makeClient()
        let resumption = DownloadResumption()
        let target = scratch.appendingPathComponent("video")

        for round in 1...3 {
            let file = try client.download(File(), to: target, resumption: resumption).wait(within: 5)
            XCTAssertEqual(try Data(contentsOf: file.fileURL), Data("video".utf8), "round \(round)")
            XCTAssertEqual(try resumption.pause().wait(within: 5), 0)
        }
        XCTAssertEqual(resumption.description, "DownloadResumption(0 bytes kept)")
    }

    func test_givenADestinationThatIsRefused_thenTheResumptionIsNotClaimed() throws {
        let client = NetworkClient.stubbing().makeClient()
        let resumption = DownloadResumption()

        XCTAssertThrowsError(try client.download(File(), to: scratch, resumption: resumption).wait(within: 5))
        XCTAssertFalse(resumption.isInUse, "a folder is refused before the resumption is claimed")
    }
}

extension DownloadResumptionTests {
    /// A part in a file of its own, `length` bytes long.
    private func part(_ length: Int) throws -> PartialDownload {
        let file = scratch.appendingPathComponent(UUID().uuidString)
        try Data(count: length).write(to: file)
        return PartialDownload(fileURL: file, length: Int64(length), validator: "\"v1\"", totalLength: 100)
    }

    func test_givenADownloadThatSucceeded_whenALatePartArrives_thenItIsDeletedNotKept() throws {
        let resumption = DownloadResumption()
        let user = ObjectIdentifier(resumption)   // what a claimed, not yet attached download is
        let stale = try part(10)
        resumption.keep(stale, from: "GET x")
        XCTAssertNil(try resumption.claim(origin: "GET x", takingPart: false))
        XCTAssertEqual(resumption.keptBytes, 10, "not taken: kept")

        resumption.settled(by: user, succeeded: true)
        let late = try part(20)
        resumption.keep(late, from: "GET x")

        XCTAssertEqual(resumption.keptBytes, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: stale.fileURL.path), "a success deletes what was kept")
        XCTAssertFalse(FileManager.default.fileExists(atPath: late.fileURL.path), "and what arrives after it")
    }

    func test_givenAPartAppendedInPlace_whenKeptAgain_thenItsFileIsNotDeleted() throws {
        let resumption = DownloadResumption()
        let first = try part(10)
        resumption.keep(first, from: "GET x")
        resumption.keep(PartialDownload(fileURL: first.fileURL, length: 30, validator: "\"v1\"", totalLength: 100), from: "GET x")

        XCTAssertEqual(resumption.keptBytes, 30)
        XCTAssertTrue(FileManager.default.fileExists(atPath: first.fileURL.path))
        resumption.discard()
        XCTAssertFalse(FileManager.default.fileExists(atPath: first.fileURL.path))
    }
}

extension DownloadResumptionTests {
    /// Many resumptions, each cycling through downloads that race a `pause()` from another
    /// thread: every download settles once (saved, or cancelled), every pause fulfils, and every
    /// resumption ends free, whichever wins each race.
    func test_givenDownloadsRacingPausesOnManyThreads_thenEverythingSettlesAndEveryResumptionEndsFree() throws {
        let client = NetworkClient.stubbing().body(Data("video".utf8)).delay(0.002).makeClient()
        let cycles = 150
        let outcomes = SharedValue((saved: 0, cancelled: 0, other: 0, pauses: 0))
        let finished = DispatchGroup()
        let folder: URL = scratch

        DispatchQueue.concurrentPerform(iterations: 8) { lane in
            let resumption = DownloadResumption()
            let target = folder.appendingPathComponent("lane-\(lane)")
            for cycle in 0..<cycles {
                // `pause()` first, then a new download: a busy resumption would reject it.
                _ = try? resumption.pause().wait(within: 5)
                let download = client.download(File(), to: target, resumption: resumption)
                finished.enter()
                _ = download.tap { result in
                    outcomes.withLock { counts in
                        switch result {
                        case .success: counts.saved += 1
                        case .failure(let error) where (error as? NetworkError)?.shortName == "cancelled": counts.cancelled += 1
                        case .failure: counts.other += 1
                        }
                    }
                    finished.leave()
                }
                if cycle % 2 == 0 {
                    DispatchQueue.global().async {
                        _ = resumption.pause().tap { _ in outcomes.withLock { $0.pauses += 1 } }
                    }
                }
            }
            XCTAssertEqual(try? resumption.pause().wait(within: 5), 0, "lane \(lane): free at the end")
            XCTAssertFalse(resumption.isInUse)
        }

        XCTAssertEqual(finished.wait(timeout: .now() + 30), .success)
        let counts = outcomes.withLock { $0 }
        XCTAssertEqual(counts.saved + counts.cancelled, 8 * cycles, "each download settled once")
        XCTAssertEqual(counts.other, 0)
        XCTAssertTrue(eventually { outcomes.withLock { $0.pauses } == 8 * cycles / 2 }, "every pause fulfilled")
    }

    /// A part is kept for one resource: `Request(url:)` downloads of two files are two resources
    /// (the endpoint's own base URL counts), and a renewed signature in the query is the same one.
    func test_givenDownloadsOfWholeURLs_thenEachFileIsItsOwnResourceWhateverItsQuery() throws {
        let client = try XCTUnwrap(URL(string: "https://api.example.com/v1?key=1"))
        func origin(_ url: String) throws -> String {
            DownloadResumption.origin(of: Request<JSON>(url: try XCTUnwrap(URL(string: url))), at: client)
        }
        XCTAssertNotEqual(try origin("https://files.example.com/a.bin"), try origin("https://files.example.com/b.bin"))
        XCTAssertNotEqual(try origin("https://one.example.com/a.bin"), try origin("https://two.example.com/a.bin"))
        XCTAssertEqual(try origin("https://files.example.com/a.bin?sig=old"), try origin("https://files.example.com/a.bin?sig=new"))
        XCTAssertEqual(DownloadResumption.origin(of: Request<JSON>("a.bin"), at: client),
                       DownloadResumption.origin(of: Request<JSON>("a.bin"), at: try XCTUnwrap(URL(string: "https://api.example.com/v1?key=2"))))
    }
}
