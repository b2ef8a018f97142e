import Foundation
import XCTest
@testable import Courier
import Promises

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension SharedExchangeTests {
    /// 8 threads × 250 requests over 4 URLs, a quarter of them cancelled at once: every request
    /// settles, each with its own URL's answer or a cancellation, and the transport is asked at
    /// most once per request.
    func test_givenManyThreadsSharingAndCancelling_thenEveryRequestSettlesWithItsOwnAnswer() {
        let transport = RecordingTransport(.async { request in
            .success(HTTPResponse(statusCode: 200, body: Data("{\"path\":\"\(request.url?.path ?? "")\"}".utf8)))
        }, keepsCompletions: false)
        let client = exampleClient(transport) { $0.sharesIdenticalRequests = true }
        let threads = 8, perThread = 250
        let outcomes = SharedValue<[String]>([])
        let group = DispatchGroup()
        for thread in 0..<threads {
            DispatchQueue.global().async(group: group) {
                for index in 0..<perThread {
                    let path = "items/\(index % 4)"
                    let promise = client.request(Request<JSON>(path))
                    if (index + thread) % 4 == 0 { promise.cancel() }
                    group.enter()
                    promise.tap { result in
                        let outcome: String
                        switch result {
                        case .success(let json): outcome = json["path"].string == "/\(path)" ? "own" : "other: \(json)"
                        case .failure(let error): outcome = isCancellation(error) ? "cancelled" : "error: \(error)"
                        }
                        outcomes.withLock { $0.append(outcome) }
                        group.leave()
                    }.cauterize()
                }
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 60), .success, "every request settled")
        let all = outcomes.withLock { $0 }
        XCTAssertEqual(all.count, threads * perThread)
        XCTAssertEqual(all.filter { $0 == "cancelled" }.count, threads * perThread / 4)
        XCTAssertEqual(all.filter { $0 == "own" }.count, threads * perThread * 3 / 4, "\(Set(all))")
        XCTAssertLessThanOrEqual(transport.sendCount, threads * perThread)
    }
}
