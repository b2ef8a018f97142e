import Courier
import Foundation
import Promises
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The edges of redirects that keep a body: 301 and 302 of other methods than POST, multipart
/// forms (in memory and staged on disk), the redirect rules on the hop the transport sends itself,
/// cancellation of that hop, and a transport released before the redirect arrives.
extension RedirectBodyIntegrationTests {
    func test_givenA301Or302OfAPutPatchOrDeleteWithABody_thenTheMethodAndTheBodyArrive() throws {
        let client = try makeClient()
        for status in [301, 302] {
            for method in [HTTPMethod.put, .patch, .delete] {
                let query = [URLQueryItem(name: "url", value: "/anything/moved"), URLQueryItem(name: "status", value: "\(status)")]
                let endpoint = LiveEndpoint<ServerEcho>(path: "redirect-to", method: method, query: query,
                                                        body: .data(Data("kept".utf8), contentType: "text/plain"), timeout: 10)
                let echo = try value(of: client.request(endpoint))
                XCTAssertEqual(echo.method, method.rawValue, "\(status) \(method)")
                XCTAssertEqual(echo.body, "kept", "\(status) \(method): FoundationNetworking alone sends it empty")
            }
        }
    }

    func test_givenMultipartFormsInMemoryAndStagedOnDisk_thenEveryPartFollowsA307() throws {
        let folder = try makeScratchFolder("RedirectBody")
        defer { removeScratchFolder(folder) }
        let large = try writeFile(Data(repeating: 0x5A, count: 1_200_000), in: folder, named: "large.bin")   // over 1 MiB: staged
        var small = MultipartFormData()
        small.append("Ada", name: "author")
        var staged = MultipartFormData()
        staged.append("Ada", name: "author")
        staged.append(large, name: "blob")
        let client = try makeClient()
        for (name, form, sizes) in [("in memory", small, [3]), ("staged", staged, [3, 1_200_000])] {
            let query = [URLQueryItem(name: "url", value: "/multipart"), URLQueryItem(name: "status", value: "307")]
            let endpoint = LiveJSONEndpoint(path: "redirect-to", method: .post, query: query, body: .multipart(form), timeout: 20)
            let json = try value(of: client.request(endpoint), within: 20)
            XCTAssertEqual((json["parts"].array ?? []).map { $0["size"].int }, sizes, name)
        }
    }

    func test_givenA307OfAPostToAnotherHost_thenTheBodyFollowsAndTheCredentialDoesNot() throws {
        let client = try makeClient()
        let target = try server.localhostURL("/anything/elsewhere").absoluteString
        let query = [URLQueryItem(name: "url", value: target), URLQueryItem(name: "status", value: "307")]
        let endpoint = LiveEndpoint<ServerEcho>(path: "redirect-to", method: .post, query: query,
                                                headers: ["Authorization": "Bearer top-secret"],
                                                body: .data(Data("payload".utf8), contentType: "text/plain"), timeout: 10)

        let echo = try value(of: client.request(endpoint))

        XCTAssertEqual(echo.header("Host")?.hasPrefix("localhost"), true)
        XCTAssertEqual(echo.body, "payload")
        XCTAssertNil(echo.header("Authorization"), "a credential must not follow a redirect to another host")
    }

    func test_givenTheSameOriginPolicy_whenA307OfAPostLeadsElsewhere_thenThe307IsDelivered() throws {
        let target = try server.localhostURL("/anything/elsewhere").absoluteString
        let query = [URLQueryItem(name: "url", value: target), URLQueryItem(name: "status", value: "307")]
        let endpoint = LiveEndpoint<ServerEcho>(path: "redirect-to", method: .post, query: query,
                                                body: .data(Data("payload".utf8), contentType: "text/plain"), timeout: 10)
        let client = NetworkClient(configuration: .init(baseURL: try server.baseURL), transport: URLSessionTransport(redirects: .sameOrigin))

        let error = failure(of: client.request(endpoint))

        XCTAssertEqual(errorKind(error ?? PromiseError.cancelled), "unexpectedStatus(307)")
    }

    func test_givenTheResentHopStalls_whenTheRequestIsCancelled_thenItsConnectionIsClosed() throws {
        let key = counterKey()
        let query = [URLQueryItem(name: "url", value: "/stall?key=\(key)"), URLQueryItem(name: "status", value: "307")]
        let endpoint = LiveEndpoint<ServerEcho>(path: "redirect-to", method: .post, query: query,
                                                body: .data(Data("payload".utf8), contentType: "text/plain"), timeout: 30)
        let client = try makeClient()
        let promise = client.request(endpoint)
        XCTAssertEqual(try server.fetch("/stall-state/\(key)?until=open&timeout=4").jsonObject["state"] as? String, "open",
                       "the redirected request reached the stalling route")

        promise.cancel()

        XCTAssertEqual(try server.fetch("/stall-state/\(key)?until=closed&timeout=4").jsonObject["state"] as? String, "closed",
                       "cancelling the request must stop the task the transport started for the redirect")
        XCTAssertTrue(isCancellation(failure(of: promise) ?? PromiseError.timedOut))
    }

    func test_givenATransportReleasedBeforeTheRedirectArrives_thenTheRequestFailsInsteadOfCrashing() throws {
        var transport: URLSessionTransport? = URLSessionTransport()
        let query = "url=%2Fanything&status=307&delay=0.3"
        var request = URLRequest(url: try server.url("/redirect-to?" + query))
        request.httpMethod = "POST"
        request.httpBody = Data("payload".utf8)
        let done = expectation(description: "completion")
        let outcome = ResultSlot<HTTPResponse>()
        _ = transport?.send(request, context: TransportContext(method: .post, endpointPath: "redirect-to")) { result in
            outcome.put(result)
            done.fulfill()
        }
        transport = nil   // the session is invalidated; its running task still finishes

        wait(for: [done], timeout: 10)

        guard case .failure(NetworkError.invalidRequest(let reason))? = outcome.take(within: 0) else {
            return XCTFail("expected invalidRequest")
        }
        XCTAssertTrue(reason.contains("released"), reason)
    }
}

extension RedirectBodyIntegrationTests {
    /// 8 lanes of 40 POSTs redirected by a 307 (so each runs on a second task the transport starts),
    /// a third of them cancelled from another thread at a random moment: each settles exactly once,
    /// the others with their own body.
    func test_givenCancelsRacingTheResentHop_whenManyRun_thenEachSettlesOnceWithItsOwnBody() throws {
        let client = try makeClient()
        let settled = SharedValue(0)
        let wrong = SharedValue<[String]>([])
        let group = DispatchGroup()
        DispatchQueue.concurrentPerform(iterations: 8) { lane in
            for index in 0..<40 {
                let text = "lane \(lane) request \(index)"
                let delay = index.isMultiple(of: 2) ? "0.01" : "0"
                let query = [URLQueryItem(name: "url", value: "/anything/next"), URLQueryItem(name: "status", value: "307"),
                             URLQueryItem(name: "delay", value: delay)]
                let endpoint = LiveEndpoint<ServerEcho>(path: "redirect-to", method: .post, query: query,
                                                        body: .data(Data(text.utf8), contentType: "text/plain"), timeout: 20)
                group.enter()
                let promise = client.request(endpoint)
                _ = promise.tap { result in
                    settled.withLock { $0 += 1 }
                    switch result {
                    case .success(let echo) where echo.body != text: wrong.withLock { $0.append("\(text) got \(echo.body)") }
                    case .failure(let error) where !isCancellation(error): wrong.withLock { $0.append("\(text): \(error)") }
                    default: break
                    }
                    group.leave()
                }
                if index % 3 == 0 {
                    DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int.random(in: 0...15))) { promise.cancel() }
                }
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 60), .success, "some requests never settled")
        XCTAssertEqual(settled.withLock { $0 }, 320)
        XCTAssertEqual(wrong.withLock { $0 }, [])
    }
}
