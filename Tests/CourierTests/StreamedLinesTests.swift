import Foundation
import XCTest
@testable import Courier

/// `StreamedResponse.lines` and `.events`: pieces cut anywhere (inside a CR LF, inside a UTF-8
/// sequence) give the same lines and events as the whole body.
final class StreamedLinesTests: XCTestCase {
    /// A streamed response whose body arrives as `pieces`.
    private func response(_ pieces: [String], limit: Int = .max) -> StreamedResponse {
        response(pieces.map { Data($0.utf8) }, limit: limit)
    }

    private func response(_ pieces: [Data], limit: Int = .max) -> StreamedResponse {
        let stream = ResponseBodyStream(accepting: { _ in true }, limit: limit)
        XCTAssertTrue(stream.shouldStream(HTTPResponse(statusCode: 200)))
        for piece in pieces { stream.yield(piece) }
        stream.finish()
        return StreamedResponse(head: HTTPResponse(statusCode: 200), reader: StreamedBodyReader(stream))
    }

    private func lines(_ pieces: [String]) async throws -> [String] {
        try await response(pieces).lines.reduce(into: []) { $0.append($1) }
    }

    func test_givenLinesCutAcrossPieces_thenTheyAreJoinedAndSplitAtLineFeeds() async throws {
        let split = try await lines(["ab\ncd", "\r", "\nef\n\n", "g"])
        XCTAssertEqual(split, ["ab", "cd", "ef", "", "g"])
    }

    func test_givenAnyCutOfTheBody_thenTheLinesAreThoseOfTheWholeBody() async throws {
        let body = "first\r\nsecond\n\nthird café ☕️\r\nfourth\rfifth\r\r\nlast"
        let expected = try await lines([body])
        XCTAssertEqual(expected, ["first", "second", "", "third café ☕️", "fourth", "fifth", "", "last"])
        let bytes = Array(body.utf8)
        for cut in 1..<bytes.count {
            for second in (cut + 1)...bytes.count {
                let pieces = [Data(bytes[..<cut]), Data(bytes[cut..<second]), Data(bytes[second...])]
                let split = try await response(pieces).lines.reduce(into: [String]()) { $0.append($1) }
                XCTAssertEqual(split, expected, "cut at \(cut) and \(second)")
            }
        }
    }

    func test_givenLoneCarriageReturns_thenTheyEndLinesAsURLLinesDoes() async throws {
        let split = try await lines(["a\rb\r", "\rc\r", "\nd\r"])
        XCTAssertEqual(split, ["a", "b", "", "c", "d"], "CR, CR LF across pieces, and a CR at the very end")
    }

    func test_givenALineEndingWithACarriageReturn_thenItIsReadBeforeTheNextPieceArrives() async throws {
        let stream = ResponseBodyStream(accepting: { _ in true }, limit: .max)
        XCTAssertTrue(stream.shouldStream(HTTPResponse(statusCode: 200)))
        let streamed = StreamedResponse(head: HTTPResponse(statusCode: 200), reader: StreamedBodyReader(stream))
        stream.yield(Data("data: now\r".utf8))

        // The body stays open: waiting for the piece after the CR would time out here.
        let first = try await bounded {
            var iterator = streamed.lines.makeAsyncIterator()
            return try await iterator.next()
        }

        XCTAssertEqual(first, "data: now")
    }

    func test_givenAnEventStreamWithCarriageReturnLineEnds_thenItsEventsAreRead() async throws {
        let events = try await response(["data: one\r\rdata: two\r", "\r"]).events.reduce(into: [ServerSentEvent]()) { $0.append($1) }
        XCTAssertEqual(events.map(\.data), ["one", "two"])
    }

    func test_readingFailsWithATypedNetworkError() async {
        let streamed = response(["0123456789", "0123456789", "\n"], limit: 15)
        do throws(NetworkError) {
            for try await _ in streamed.lines {}
            XCTFail("a line over the limit must fail")
        } catch {
            // `error` is a `NetworkError`: the loop's failure type is typed.
            XCTAssertEqual(error.errorDescription?.contains("larger than 15 bytes"), true, "\(error)")
        }
    }

    func test_givenABodyEndingWithALineBreak_thenNoEmptyLastLineIsAdded() async throws {
        let noTail = try await lines(["a\n", "b\n"])
        let empty = try await lines([])
        XCTAssertEqual(noTail, ["a", "b"])
        XCTAssertEqual(empty, [])
    }

    func test_givenALineLongerThanTheLimit_thenReadingFailsInsteadOfGrowing() async throws {
        let streamed = response(["0123456789", "0123456789", "\n"], limit: 15)
        var iterator = streamed.lines.makeAsyncIterator()
        await XCTAssertThrowsAsync(try await iterator.next()) { error in
            guard case .invalidRequest(let reason)? = error as? NetworkError else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("larger than 15 bytes"), reason)
        }
    }

    func test_givenAnEventStream_thenEventsFollowTheStandardsRules() async throws {
        let body = "\u{FEFF}: a comment\n"
            + "data: plain\n\n"
            + "event: update\nid: 7\ndata: first line\ndata:second line\nretry: 1500\n\n"
            + "data: inherits the id and the retry\n\n"
            + "event: ignored, no data\nid: 8\nretry: 3000\n\n"   // sets the id and the retry all the same
            + "data\n\n"                                   // a field with no colon: empty data
            + "id: 9\u{0}x\ndata: NUL in the id is ignored\nretry: soon\nunknown: field\n\n"
            + "data: never closed by a blank line"
        let events = try await response([body]).events.reduce(into: [ServerSentEvent]()) { $0.append($1) }
        XCTAssertEqual(events, [
            ServerSentEvent(data: "plain"),
            ServerSentEvent(event: "update", data: "first line\nsecond line", id: "7", retry: 1500),
            ServerSentEvent(data: "inherits the id and the retry", id: "7", retry: 1500),
            ServerSentEvent(data: "", id: "8", retry: 3000),
            ServerSentEvent(data: "NUL in the id is ignored", id: "8", retry: 3000),
        ])
    }

    func test_givenEventsCutAnywhere_thenTheyAreTheSameEvents() async throws {
        let body = "id: 1\r\ndata: a\r\n\r\nevent: b\r\ndata: ü\r\n\r\n"
        let whole = try await response([body]).events.reduce(into: [ServerSentEvent]()) { $0.append($1) }
        XCTAssertEqual(whole, [ServerSentEvent(data: "a", id: "1"), ServerSentEvent(event: "b", data: "ü", id: "1")])
        let bytes = Array(body.utf8)
        for cut in 1..<bytes.count {
            let pieces = [Data(bytes[..<cut]), Data(bytes[cut...])]
            let events = try await response(pieces).events.reduce(into: [ServerSentEvent]()) { $0.append($1) }
            XCTAssertEqual(events, whole, "cut at \(cut)")
        }
    }

    func test_givenDataLinesThatNeverEndAnEvent_thenReadingFailsInsteadOfGrowing() async throws {
        let streamed = response(Array(repeating: "data: 0123456789\n", count: 5), limit: 40)
        var iterator = streamed.events.makeAsyncIterator()
        await XCTAssertThrowsAsync(try await iterator.next()) { error in
            guard case .invalidRequest(let reason)? = error as? NetworkError else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("larger than 40 bytes"), reason)
        }
    }

    func test_givenManyShortLinesInOnePieceLargerThanTheLimit_thenOnlyTheUnfinishedLineCounts() async throws {
        let split = try await response(["aaaa\nbbbb\ncccc\ndddd\n"], limit: 8).lines.reduce(into: [String]()) { $0.append($1) }
        XCTAssertEqual(split, ["aaaa", "bbbb", "cccc", "dddd"])
    }

    func test_givenAColonFollowedByACombiningMark_thenTheColonStillSeparatesTheField() async throws {
        let events = try await response(["data:\u{301}x\n\n"]).events.reduce(into: [ServerSentEvent]()) { $0.append($1) }
        XCTAssertEqual(events.map(\.data), ["\u{301}x"])
    }
}
