import Foundation
import XCTest
@testable import Courier
import Promises

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension SharedExchangeTests {
    /// Answers from a global queue, except requests for `heldPath`, whose answers wait until
    /// ``release()``: a request to that path cancelled before the release cannot have its answer yet.
    // @unchecked: `waiting`, `released` and `sends` are only touched while holding `lock`.
    private final class HoldingTransport: HTTPTransport, @unchecked Sendable {
        private let lock = NSLock()
        private var waiting: [@Sendable () -> Void] = []
        private var released = false
        private var sends = 0
        let heldPath: String

        init(holding heldPath: String) { self.heldPath = heldPath }

        var sendCount: Int { lock.withLock { sends } }

        func send(
            _ request: URLRequest, context: TransportContext,
            completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
        ) -> any TransportTask {
            let path = request.url?.path ?? ""
            let answer: @Sendable () -> Void = {
                completion(.success(HTTPResponse(statusCode: 200, body: Data("{\"path\":\"\(path)\"}".utf8))))
            }
            let holds = lock.withLock { () -> Bool in
                sends += 1
                guard path == heldPath, !released else { return false }
                waiting.append(answer)
                return true
            }
            if !holds { DispatchQueue.global().async(execute: answer) }
            return RecordingTransport.Task {}
        }

        /// Sends every held answer, and answers later requests for the held path at once.
        func release() {
            let answers = lock.withLock { () -> [@Sendable () -> Void] in
                released = true
                defer { waiting = [] }
                return waiting
            }
            for answer in answers { DispatchQueue.global().async(execute: answer) }
        }
    }

    /// How a request of the stress test below was cancelled.
    private enum Cancelling: Hashable {
        /// Not cancelled: it must get its own URL's answer.
        case never
        /// Cancelled while its answer was held: it must end cancelled.
        case beforeItsAnswer
        /// Cancelled while a zero-delay answer races the cancellation: either outcome.
        case racingItsAnswer
    }

    /// 8 threads × 250 requests over 4 URLs sharing exchanges, a quarter of them cancelled at
    /// once: every request settles once, with its own URL's answer or a cancellation, and the
    /// transport is asked at most once per request. The answers for one URL are held until every
    /// request was made, so half of that URL's requests are certainly cancelled while their
    /// exchange is shared with the other half, which must still get the answer; the other URLs
    /// answer at once, racing their cancellations.
    func test_givenManyThreadsSharingAndCancelling_thenEveryRequestSettlesWithItsOwnAnswer() {
        let transport = HoldingTransport(holding: "/items/0")
        let client = exampleClient(transport) { $0.sharesIdenticalRequests = true }
        let threads = 8, perThread = 250
        let outcomes = SharedValue<[(cancelling: Cancelling, outcome: String)]>([])
        let issuing = DispatchGroup(), settling = DispatchGroup()
        for thread in 0..<threads {
            DispatchQueue.global().async(group: issuing) {
                for index in 0..<perThread {
                    let path = "items/\(index % 4)"
                    let promise = client.request(Request<JSON>(path))
                    let cancelling: Cancelling
                    if index % 4 == 0 {
                        cancelling = (index / 4 + thread).isMultiple(of: 2) ? .beforeItsAnswer : .never
                    } else {
                        cancelling = (index + thread) % 4 == 1 ? .racingItsAnswer : .never
                    }
                    if cancelling != .never { promise.cancel() }
                    settling.enter()
                    promise.tap { result in
                        let outcome: String
                        switch result {
                        case .success(let json): outcome = json["path"].string == "/\(path)" ? "own" : "other: \(json)"
                        case .failure(let error): outcome = isCancellation(error) ? "cancelled" : "error: \(error)"
                        }
                        outcomes.withLock { $0.append((cancelling, outcome)) }
                        settling.leave()
                    }.cauterize()
                }
            }
        }
        XCTAssertEqual(issuing.wait(timeout: .now() + 60), .success, "every request was made")
        transport.release()
        XCTAssertEqual(settling.wait(timeout: .now() + 60), .success, "every request settled")
        let all = outcomes.withLock { $0 }
        XCTAssertEqual(all.count, threads * perThread, "each request settled exactly once")
        let byKind = Dictionary(grouping: all, by: \.cancelling).mapValues { Set($0.map(\.outcome)) }
        XCTAssertEqual(byKind[.never], ["own"])
        XCTAssertEqual(byKind[.beforeItsAnswer], ["cancelled"])
        XCTAssertTrue(byKind[.racingItsAnswer]?.isSubset(of: ["own", "cancelled"]) == true, "\(byKind)")
        let heldAndCancelled = (0..<threads).reduce(0) { sum, thread in
            sum + stride(from: 0, to: perThread, by: 4).filter { ($0 / 4 + thread).isMultiple(of: 2) }.count
        }
        XCTAssertEqual(all.filter { $0.cancelling == .beforeItsAnswer }.count, heldAndCancelled)
        XCTAssertLessThanOrEqual(transport.sendCount, threads * perThread)
        // How many exchanges the held URL needed depends on the interleaving (a cancelled caller's
        // exchange takes nobody new), so this test pins settling, not sharing; the other tests of
        // this suite pin sharing itself.
    }
}
