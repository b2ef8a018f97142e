import Foundation
import XCTest
@testable import Courier

/// The hostile-response corpus at the level of the client's own steps: status classification with
/// the default metadata parser, then decoding. Every row must end in its named outcome.
final class HostileResponseClassificationTests: XCTestCase {
    /// Descriptions are meant to stay short whatever the body holds.
    private let descriptionLimit = 1_000

    func test_corpus_hasAtLeastSixtyRowsWithUniqueNames() {
        let names = HostileCorpus.all.map(\.name)
        XCTAssertGreaterThanOrEqual(names.count, 60)
        XCTAssertEqual(Set(names).count, names.count, "row names must be unique")
    }

    func test_givenEveryRow_whenClassifiedAndDecoded_thenTheOutcomeIsTheNamedOne() {
        for row in HostileCorpus.all {
            let (outcome, _) = HostileCorpus.classifyAndDecode(row)
            XCTAssertEqual(outcome, row.expected, "row: \(row)")
        }
    }

    func test_givenEveryStatusError_whenClassified_thenMetadataIsWhatTheDefaultParserFinds() {
        for row in HostileCorpus.all {
            guard let error = NetworkError.classify(row.response, parser: ServerMetadata.parse) else { continue }
            XCTAssertEqual(error.statusCode, row.status, "row: \(row)")
            XCTAssertEqual(error.response, row.response, "row: \(row)")
            if case .unexpectedStatus = error {
                XCTAssertNil(error.metadata, "row: \(row)")
            } else {
                XCTAssertEqual(error.metadata, ServerMetadata.parse(row.response), "row: \(row)")
            }
        }
    }

    func test_givenEveryFailingRow_whenDescribed_thenTheTextIsShortNonEmptyAndHasNoSecret() {
        for row in HostileCorpus.all {
            guard let error = HostileCorpus.classifyAndDecode(row).error else { continue }
            for text in [error.description, error.localizedDescription, String(describing: error)] {
                XCTAssertFalse(text.isEmpty, "row: \(row)")
                XCTAssertLessThanOrEqual(text.count, descriptionLimit, "row: \(row)")
                XCTAssertFalse(text.contains(HostileCorpus.secret), "secret leaked for row: \(row): \(text)")
            }
        }
    }

    func test_givenEveryRow_whenTheResponseIsDescribed_thenNoSecretAppears() {
        for row in HostileCorpus.all {
            let text = String(describing: row.response)
            XCTAssertFalse(text.contains(HostileCorpus.secret), "secret leaked for row: \(row): \(text.prefix(300))")
        }
    }

    func test_givenEveryFailingRow_whenARetryDelayIsComputed_thenItLiesWithinTheCap() {
        let policy = RetryPolicy.default
        for row in HostileCorpus.all {
            guard let error = HostileCorpus.classifyAndDecode(row).error else { continue }
            let wait = policy.delay(beforeRetry: 1, after: error, now: Date(timeIntervalSince1970: 1_700_000_000),
                                    random: { $0.lowerBound })
            XCTAssertTrue((0...policy.maximumDelay).contains(wait), "row: \(row), delay \(wait)")
        }
    }

    /// Apple platforms give Dispatch worker threads 512 KiB stacks, and the client decodes on one:
    /// no row may need more (deep nesting must fail cleanly, not overflow the stack).
    func test_givenEveryRow_whenHandledOnA512KiBStack_thenItCompletesWithTheSameOutcome() {
        let done = DispatchSemaphore(value: 0)
        let outcomes = OutcomeBox()
        let thread = Thread {
            for row in HostileCorpus.all {
                outcomes.append(HostileCorpus.classifyAndDecode(row).outcome)
                _ = HostileCorpus.classifyAndDecode(row).error?.description
            }
            done.signal()
        }
        thread.stackSize = 512 * 1_024
        thread.start()
        XCTAssertEqual(done.wait(timeout: .now() + 120), .success, "the corpus did not finish within 120 s")
        XCTAssertEqual(outcomes.values, HostileCorpus.all.map(\.expected))
    }
}

/// Outcomes collected on another thread.
// @unchecked Sendable: `storage` is only touched while holding `lock`.
private final class OutcomeBox: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [HostileOutcome] = []

    func append(_ outcome: HostileOutcome) { lock.withLock { storage.append(outcome) } }
    var values: [HostileOutcome] { lock.withLock { storage } }
}
