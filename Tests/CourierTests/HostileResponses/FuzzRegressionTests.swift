import Foundation
import XCTest
@testable import Courier

/// Crashes found by the fuzzer (scripts/fuzz.sh) or the hostile-response corpus, kept as regression tests.
///
/// Each test names the input that crashed and the invariant it broke.
final class FuzzRegressionTests: XCTestCase {
    /// Found by the corpus row "511 nested arrays": `JSON(data:)` recursed once per level, and
    /// Foundation's parser accepts 512 levels, so a 200-level body overflowed a 512 KiB stack (the size of
    /// Dispatch worker threads on Apple platforms, where the client decodes) with SIGSEGV in debug builds,
    /// 300 levels in release builds. Fixed by `JSON.maximumDepth` (100).
    func test_givenDeeplyNestedJSON_whenDecodedOnA512KiBStack_thenItThrowsInsteadOfOverflowing() {
        let results = run(onStackOfKiB: 512) {
            [101, 200, 300, 511, 10_000].map { depth -> Bool in
                let arrays = (try? JSON(data: Data(HostileCorpus.nestedArrays(depth).utf8))) == nil
                let objects = (try? JSON(data: Data(HostileCorpus.nestedObjects(depth).utf8))) == nil
                return arrays && objects
            }
        }
        XCTAssertEqual(results, [true, true, true, true, true], "every document deeper than the limit must throw")
    }

    func test_givenJSONAtTheDepthLimit_whenDecodedOnA512KiBStack_thenItDecodes() {
        let decoded = run(onStackOfKiB: 512) { () -> JSON? in
            try? JSON(data: Data(HostileCorpus.nestedArrays(JSON.maximumDepth).utf8))
        }
        var json = decoded ?? .null
        var depth = 0
        while case .array(let items) = json {
            depth += 1
            json = items.first ?? .null
        }
        XCTAssertEqual(depth, JSON.maximumDepth)
    }

    /// The limit counts levels of an enclosing `Decodable` too: `JSON` used as a member cannot be
    /// nested deeper either.
    func test_givenJSONMemberNestedTooDeep_whenDecodedInsideAStruct_thenDecodingFails() {
        struct Envelope: Decodable { let payload: JSON }
        let deep = Data(("{\"payload\":" + HostileCorpus.nestedArrays(JSON.maximumDepth) + "}").utf8)
        let shallow = Data(("{\"payload\":" + HostileCorpus.nestedArrays(JSON.maximumDepth - 1) + "}").utf8)
        XCTAssertThrowsError(try JSONDecoder().decode(Envelope.self, from: deep))
        XCTAssertNoThrow(try JSONDecoder().decode(Envelope.self, from: shallow))
    }

    // MARK: - Helpers

    /// Runs `body` on a thread with a stack of `kibibytes` KiB and waits at most 60 s for it.
    private func run<T: Sendable>(onStackOfKiB kibibytes: Int, _ body: @escaping @Sendable () -> T) -> T? {
        let done = DispatchSemaphore(value: 0)
        let box = ValueBox<T>()
        let thread = Thread {
            box.value = body()
            done.signal()
        }
        thread.stackSize = kibibytes * 1_024
        thread.start()
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success, "the work did not finish within 60 s")
        return box.value
    }
}

/// A value handed from another thread.
// @unchecked Sendable: `stored` is only touched while holding `lock`.
private final class ValueBox<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: T?

    var value: T? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
