import Foundation
import XCTest
@testable import Courier
import Promises
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `DownloadDestination` and `HTTPResponse.suggestedFilename`: a server-chosen name always lands
/// directly in the chosen folder, a destination picked from the response is checked like a fixed
/// one, and the three kinds work through both call styles.
final class DownloadDestinationTests: XCTestCase {
    struct Report: Endpoint {
        var path = "reports/q3"
    }

    private var scratch: URL!

    override func setUpWithError() throws {
        scratch = try makeScratchFolder("DownloadDestinationTests")
    }

    override func tearDownWithError() throws {
        removeScratchFolder(scratch)
    }

    private func response(disposition: String?, url: String = "https://api.example.com/reports/q3.pdf?v=2") -> HTTPResponse {
        HTTPResponse(statusCode: 200, headers: disposition.map { ["Content-Disposition": $0] } ?? [:], url: URL(string: url))
    }

    // MARK: suggestedFilename

    func test_givenContentDispositions_thenTheSuggestedNameIsTheServersMadeSafe() {
        let cases: [(header: String, expected: String)] = [
            (#"attachment; filename="Q3 results.pdf""#, "Q3 results.pdf"),
            ("inline; filename=report.csv", "report.csv"),
            (#"attachment; filename="EUR rates.pdf"; filename*=UTF-8''%E2%82%AC%20rates.pdf"#, "€ rates.pdf"),
            ("attachment; filename*=iso-8859-1'en'%A3%20rates.txt", "£ rates.txt"),
            (#"attachment; FILENAME="upper.txt""#, "upper.txt"),
            (#"attachment; filename="a\"b.txt""#, #"a"b.txt"#),
            (#"attachment; filename="../../etc/passwd""#, "_.._etc_passwd"),
            (#"attachment; filename=..\..\boot.ini"#, "_.._boot.ini"),
            (#"attachment; filename="a\\b.txt""#, "a_b.txt"),
            (#"attachment; filename=".bashrc""#, "bashrc"),
            ("attachment; filename=\"invoice\u{202E}fdp.exe\"", "invoicefdp.exe"),
            ("attachment; filename=\"tab\there\u{7}.txt\"", "tabhere.txt"),
            (#"attachment; filename="  spaced.txt  ""#, "spaced.txt"),
        ]
        for (header, expected) in cases {
            XCTAssertEqual(response(disposition: header).suggestedFilename, expected, header)
        }
    }

    func test_givenNoUsableDisposition_thenTheURLsLastComponentIsSuggested() {
        for header in [nil, "attachment", #"attachment; filename="...""#, #"attachment; filename="""#,
                       "attachment; filename*=x-unknown''abc", "attachment; filename*=UTF-8''%ZZ"] {
            XCTAssertEqual(response(disposition: header).suggestedFilename, "q3.pdf", header ?? "no header")
        }
        XCTAssertNil(response(disposition: nil, url: "https://api.example.com/").suggestedFilename)
        XCTAssertNil(HTTPResponse(statusCode: 200).suggestedFilename)
    }

    func test_givenInvisibleOrCombiningCharacters_thenTheyCannotHideADotOrDisguiseTheName() {
        let cases: [(header: String, expected: String?)] = [
            ("attachment; filename*=UTF-8''.%CC%81bashrc", "bashrc"),                      // "." + combining acute
            ("attachment; filename*=UTF-8''%E2%80%8B.profile", "profile"),                 // zero-width space first
            ("attachment; filename*=UTF-8''a%D8%9Cb%EF%BB%BFc%E2%80%A8d.txt", "abcd.txt"), // U+061C, U+FEFF, U+2028
            ("attachment; filename*=UTF-8''e%CC%81.txt", "\u{E9}.txt"),                    // NFC: one precomposed é
            ("attachment; filename*=UTF-8''%E2%80%AE%E2%80%8B", nil),                       // nothing visible left
        ]
        for (header, expected) in cases {
            XCTAssertEqual(SuggestedFilename.parse(header), expected, header)
        }
    }

    func test_givenACombiningMarkAfterADelimiter_thenTheDelimiterStillEndsTheValue() {
        // Read by Character, `"` + U+0301 or `;` + U+0301 is one character and not a delimiter,
        // so the name would run on; a proxy reading bytes sees the delimiter.
        let cases: [(header: String, expected: String)] = [
            ("attachment; filename=\"report.pdf\"\u{301}.exe\"", "report.pdf"),
            ("attachment; filename=notes.txt;\u{301}.exe", "notes.txt"),
        ]
        for (header, expected) in cases {
            XCTAssertEqual(SuggestedFilename.parse(header), expected, header.debugDescription)
        }
    }

    func test_givenOneHugeCharacter_whenCut_thenTheNameIsNeitherEmptyNorHidden() throws {
        let marks = String(repeating: "%CC%81", count: 200)   // 200 combining marks on one letter: one Character
        for tail in [".pdf", ".", ""] {
            let name = try XCTUnwrap(SuggestedFilename.parse("attachment; filename*=UTF-8''a\(marks)\(tail)"), tail)
            XCTAssertLessThanOrEqual(name.utf8.count, 255, tail)
            XCTAssertFalse(name.hasPrefix("."), "\(tail): \(name.prefix(8))")
            XCTAssertTrue(name.unicodeScalars.first == "\u{E1}", tail)   // NFC: á, then the rest of the marks
            if tail == ".pdf" { XCTAssertTrue(name.hasSuffix(".pdf"), name) }
        }
    }

    /// Thousands of random names, weighted towards the characters that matter (dots, slashes,
    /// spaces, marks, format and control characters, long runs): every suggestion is a single,
    /// visible, non-hidden path component of at most 255 bytes.
    func test_givenRandomNames_thenEverySuggestionIsOneSafeComponent() {
        var generator = SplitMix64(seed: 0xC0_FFEE)
        let pieces: [String] = [".", "..", "/", "\\", " ", "a", "Z", "é", "e\u{301}", "\u{301}", "\u{202E}", "\u{200B}",
                                "\u{061C}", "\u{FEFF}", "\u{2028}", "\u{7}", "\u{85}", "\u{1F600}", "\u{1F469}\u{200D}\u{1F4BB}",
                                "pdf", "\t", "\"", ";", "%2F", "漢字"]
        for _ in 0..<3_000 {
            let count = Int(generator.next() % 80) + (generator.next() % 10 == 0 ? 300 : 0)
            let name = (0..<count).map { _ in pieces[Int(generator.next() % UInt64(pieces.count))] }.joined()
            guard let safe = SuggestedFilename.sanitize(name) else { continue }
            XCTAssertFalse(safe.isEmpty, name.debugDescription)
            XCTAssertLessThanOrEqual(safe.utf8.count, 255, name.debugDescription)
            XCTAssertFalse(safe.unicodeScalars.first == ".", safe.debugDescription)
            XCTAssertFalse(safe.contains("/") || safe.contains("\\"), safe.debugDescription)
            XCTAssertFalse(safe.unicodeScalars.contains {
                [.control, .format, .lineSeparator, .paragraphSeparator].contains($0.properties.generalCategory)
            }, safe.debugDescription)
            XCTAssertEqual(URL(fileURLWithPath: "/folder").appendingPathComponent(safe).deletingLastPathComponent().path, "/folder",
                           safe.debugDescription)
        }
    }

    func test_givenAVeryLongName_thenItIsCutTo255BytesKeepingTheExtension() throws {
        let long = String(repeating: "é", count: 200) + ".pdf"   // 404 bytes
        let name = try XCTUnwrap(response(disposition: "attachment; filename=\"\(long)\"").suggestedFilename)

        XCTAssertLessThanOrEqual(name.utf8.count, 255)
        XCTAssertGreaterThan(name.utf8.count, 250)
        XCTAssertTrue(name.hasSuffix("é.pdf"), name)
    }

    // MARK: Destinations through the pipeline

    func test_givenSuggestedInAFolder_whenDownloaded_thenTheServersNameIsUsedInsideIt() throws {
        let client = NetworkClient.stubbing()
            .body(Data("report".utf8)).headers(["Content-Disposition": #"attachment; filename="../Q3 results.pdf""#])
            .makeClient()
        let folder = scratch.appendingPathComponent("reports")

        let file = try client.download(Report(), to: .suggested(in: folder)).wait(within: 5)

        XCTAssertEqual(file.fileURL, folder.appendingPathComponent("_Q3 results.pdf"))
        XCTAssertEqual(file.fileURL.deletingLastPathComponent().path, folder.path)
        XCTAssertEqual(try Data(contentsOf: file.fileURL), Data("report".utf8))
    }

    func test_givenSuggestedNamesThatExist_whenDownloaded_thenExistingFilesAreKeptAndNumberedNamesUsed() throws {
        let folder: URL = scratch
        let existing = try writeFile(Data("mine".utf8), in: folder, named: "report.pdf")
        let client = NetworkClient.stubbing()
            .body(Data("theirs".utf8)).headers(["Content-Disposition": "attachment; filename=report.pdf"]).makeClient()

        let second = try client.download(Report(), to: .suggested(in: folder)).wait(within: 5)
        let third = try client.download(Report(), to: .suggested(in: folder)).wait(within: 5)

        XCTAssertEqual(try Data(contentsOf: existing), Data("mine".utf8), "the server cannot replace a file of yours")
        XCTAssertEqual([second, third].map(\.fileURL.lastPathComponent), ["report 2.pdf", "report 3.pdf"])
        XCTAssertEqual(try Data(contentsOf: third.fileURL), Data("theirs".utf8))
    }

    /// A suggested name may already take all 255 bytes a file name can: the numbered name is
    /// made shorter, a whole character at a time, instead of failing with ENAMETOOLONG.
    func test_givenALongestSuggestedNameThatExists_whenDownloadedAgain_thenTheNumberedNameFits() throws {
        let name = String(repeating: "é", count: 125) + "a.pdf"   // 2 × 125 + 5 = 255 bytes
        let client = NetworkClient.stubbing()
            .body(Data("x".utf8)).headers(["Content-Disposition": "attachment; filename=\"\(name)\""]).makeClient()

        let first = try client.download(Report(), to: .suggested(in: scratch)).wait(within: 5)
        let second = try client.download(Report(), to: .suggested(in: scratch)).wait(within: 5)

        XCTAssertEqual(first.fileURL.lastPathComponent, name)
        // 251 bytes of stem must lose 2 for " 2": "a" goes, then a whole "é" (never half of one).
        XCTAssertEqual(second.fileURL.lastPathComponent, String(repeating: "é", count: 124) + " 2.pdf")
        XCTAssertLessThanOrEqual(second.fileURL.lastPathComponent.utf8.count, 255)
        XCTAssertEqual(try Data(contentsOf: second.fileURL), Data("x".utf8))
    }

    func test_givenSuggestedWithNoName_whenDownloaded_thenTheFallbackIsUsed() throws {
        struct Root: Endpoint { var path: String { "" } }
        let client = NetworkClient.stubbing().body(Data("x".utf8)).makeClient()

        let file = try client.download(Root(), to: .suggested(in: scratch, fallback: "../latest.bin")).wait(within: 5)

        XCTAssertEqual(file.fileURL.lastPathComponent, "_latest.bin", "the fallback is made safe too")
        XCTAssertEqual(try Data(contentsOf: file.fileURL), Data("x".utf8))
    }

    func test_givenAFolderThatIsAFile_thenTheDownloadIsRefusedBeforeSending() throws {
        let notAFolder = try writeFile(Data("x".utf8), in: scratch, named: "plain.txt")
        let transport = RecordingTransport.answering()
        let client = exampleClient(transport)

        XCTAssertThrowsError(try client.download(Report(), to: .suggested(in: notAFolder)).wait(within: 5)) { error in
            guard case .invalidRequest(let reason)? = error as? NetworkError else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("is a file"), reason)
        }
        XCTAssertEqual(transport.sendCount, 0)
    }

    func test_givenACustomDestination_whenDownloaded_thenItIsChosenFromTheResponse() throws {
        let client = NetworkClient.stubbing().body(Data("v2".utf8)).headers(["ETag": "v2"]).makeClient()
        let folder: URL = scratch
        let destination = DownloadDestination.custom { response in
            folder.appendingPathComponent("report-\(response.header("ETag") ?? "none").txt")
        }

        let file = try client.download(Report(), to: destination).wait(within: 5)

        XCTAssertEqual(file.fileURL.lastPathComponent, "report-v2.txt")
        XCTAssertEqual(try Data(contentsOf: file.fileURL), Data("v2".utf8))
    }

    func test_givenACustomDestinationThatCannotBeAFile_thenTheDownloadFailsWithTheResponseAndTheBodyIsDeleted() throws {
        let folder: URL = scratch
        for chosen in [folder, URL(string: "https://elsewhere.example/report.pdf")!, folder.appendingPathComponent("sub/")] {
            let body = try writeFile(Data("streamed".utf8), in: folder, named: "body-\(UUID().uuidString)")
            let transport = RecordingTransport(.async { request in
                .success(HTTPResponse(statusCode: 200, url: request.url, bodyFileURL: body))
            })
            let client = exampleClient(transport)

            XCTAssertThrowsError(try client.download(Report(), to: .custom { _ in chosen }).wait(within: 5), "\(chosen)") { error in
                guard case .decodingFailed(let underlying, let response)? = error as? NetworkError else { return XCTFail("\(error)") }
                XCTAssertEqual(response.statusCode, 200)
                XCTAssertNil(response.bodyFileURL)
                XCTAssertEqual((underlying as? CocoaError)?.code, .fileWriteInvalidFileName, "\(underlying)")
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: body.path), "the body is deleted: \(chosen)")
        }
    }

    func test_givenTheCompletionStyle_whenDownloadedToASuggestedName_thenTheCompletionGetsTheFile() throws {
        let client = NetworkClient.stubbing()
            .body(Data("csv".utf8)).headers(["Content-Disposition": "attachment; filename=export.csv"]).makeClient()
        let done = expectation(description: "completion")
        let outcome = SharedValue<Result<DownloadedFile, NetworkError>?>(nil)

        client.download(Report(), to: .suggested(in: scratch)) { result in
            outcome.withLock { $0 = result }
            done.fulfill()
        }
        wait(for: [done], timeout: 5)

        let file = try XCTUnwrap(outcome.withLock { $0 }).get()
        XCTAssertEqual(file.fileURL.lastPathComponent, "export.csv")
        XCTAssertEqual(try Data(contentsOf: file.fileURL), Data("csv".utf8))
    }
}

/// A small seeded generator (SplitMix64), so that the random-name test is the same on every run.
private struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
