import Foundation
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Proves the local test server answers every route with the documented status and body shape,
/// using a plain URLSession (no Courier code), so integration-test failures can be trusted.
final class TestServerSmokeTests: XCTestCase {
    /// The suite-wide server (started once per test process).
    private var server: TestServer {
        get throws { try TestServer.shared }
    }

    // MARK: - Lifecycle

    func test_givenAStartedServer_whenStopped_thenItsPortRefusesConnections() throws {
        let own = try TestServer.start()
        XCTAssertEqual(try own.fetch("/stats").statusCode, 200)
        own.stop()
        XCTAssertThrowsError(try own.fetch("/stats", timeout: 2)) { error in
            XCTAssertEqual((error as? URLError)?.code, .cannotConnectToHost, "\(error)")
        }
        own.stop()   // idempotent
    }

    func test_givenAScriptThatExitsEarly_whenStarting_thenAClearErrorArrivesQuickly() throws {
        let script = try temporaryScript("import sys\nsys.exit(3)\n")
        let start = Date()
        XCTAssertThrowsError(try TestServer.start(script: script, timeout: 5)) { error in
            XCTAssertTrue("\(error)".contains("exit status 3"), "\(error)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 4, "an early exit must not wait for the timeout")
    }

    func test_givenAScriptThatNeverPrintsItsPort_whenStarting_thenItTimesOutAndIsStopped() throws {
        let script = try temporaryScript("import time\ntime.sleep(30)\n")
        let start = Date()
        XCTAssertThrowsError(try TestServer.start(script: script, timeout: 0.5)) { error in
            XCTAssertTrue("\(error)".contains("no 'PORT <n>' line within 0.5 s"), "\(error)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 4)
    }

    private func temporaryScript(_ source: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("courier-\(UUID().uuidString).py")
        try Data(source.utf8).write(to: url)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    func test_givenTheServer_whenStarted_thenItListensOnLoopbackOnly() throws {
        let server = try server
        XCTAssertEqual(server.baseURL.host, "127.0.0.1")
        XCTAssertEqual(server.localhostURL.host, "localhost")
        XCTAssertGreaterThan(server.port, 0)
        XCTAssertEqual(try server.fetch("/stats").statusCode, 200)
        XCTAssertEqual(try TestServer.fetch(url: server.localhostURL("/stats")).statusCode, 200)
    }

    // MARK: - Echo routes

    func test_anything_echoesMethodPathQueryHeadersAndJSONBody() throws {
        let body = Data(#"{"name":"courier"}"#.utf8)
        let response = try server.fetch("PATCH", "/anything/a/b?x=1&y=two", body: body,
                                        headers: ["Content-Type": "application/json", "X-Probe": "42"])
        XCTAssertEqual(response.statusCode, 200)
        let echo = response.jsonObject
        XCTAssertEqual(echo["method"] as? String, "PATCH")
        XCTAssertEqual(echo["path"] as? String, "/anything/a/b")
        XCTAssertEqual(echo["query"] as? [String: String], ["x": "1", "y": "two"])
        XCTAssertEqual((echo["headers"] as? [String: String])?["X-Probe"], "42")
        XCTAssertEqual(echo["body"] as? String, #"{"name":"courier"}"#)
        XCTAssertEqual((echo["json"] as? [String: String])?["name"], "courier")
    }

    func test_anything_givenANonJSONBody_thenJSONIsNull() throws {
        let response = try server.fetch("POST", "/anything", body: Data("plain text".utf8),
                                        headers: ["Content-Type": "text/plain"])
        XCTAssertEqual(response.jsonObject["body"] as? String, "plain text")
        XCTAssertTrue(response.jsonObject["json"] is NSNull)
    }

    func test_headers_echoesRequestHeaders() throws {
        let response = try server.fetch("/headers", headers: ["Authorization": "Bearer abc"])
        let headers = response.jsonObject["headers"] as? [String: String] ?? [:]
        XCTAssertEqual(headers["Authorization"], "Bearer abc")
        XCTAssertEqual(response.jsonObject["unparsed_header_lines"] as? [String], [], "well-formed headers all parse")
    }

    // MARK: - Status routes

    func test_status_givenEachBodyKind_thenTheErrorBodyHasThatShape() throws {
        let metadata = try server.fetch("/status/404?body=metadata")
        XCTAssertEqual(metadata.statusCode, 404)
        XCTAssertEqual(metadata.jsonObject["metadata"] as? [String: String], ["status": "404", "desc": "not found"])

        let error = try server.fetch("/status/503?body=error")
        XCTAssertEqual(error.statusCode, 503)
        let inner = error.jsonObject["error"] as? [String: Any]
        XCTAssertEqual(inner?["code"] as? Int, 503)
        XCTAssertEqual(inner?["message"] as? String, "service unavailable")

        let message = try server.fetch("/status/422?body=message")
        XCTAssertEqual(message.jsonObject["message"] as? String, "unprocessable entity")

        let html = try server.fetch("/status/500?body=html")
        XCTAssertEqual(html.statusCode, 500)
        XCTAssertTrue(html.header("Content-Type")?.hasPrefix("text/html") ?? false)
        XCTAssertTrue(String(decoding: html.body, as: UTF8.self).contains("<h1>500"))

        let empty = try server.fetch("/status/502?body=empty")
        XCTAssertEqual(empty.statusCode, 502)
        XCTAssertTrue(empty.body.isEmpty)
    }

    func test_status_givenSuccessAndNoContentCodes_thenStatusIsKept() throws {
        XCTAssertEqual(try server.fetch("/status/201").statusCode, 201)
        let noContent = try server.fetch("/status/204")
        XCTAssertEqual(noContent.statusCode, 204)
        XCTAssertTrue(noContent.body.isEmpty)
        XCTAssertEqual(try server.fetch("/status/300").statusCode, 300)
    }

    // MARK: - Timing routes

    func test_delay_answersAfterTheDelay() throws {
        let start = Date()
        let response = try server.fetch("/delay/0.3")
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.29)
        XCTAssertEqual(response.jsonObject["delay"] as? Double, 0.3)
    }

    func test_stall_neverAnswers_soTheClientTimesOut() throws {
        // Whole seconds: FoundationNetworking on Linux applies timeoutIntervalForRequest in whole
        // seconds (0.5 s times out at once, 1.5 s after 1 s).
        let start = Date()
        XCTAssertThrowsError(try server.fetch("/stall", timeout: 1)) { error in
            XCTAssertEqual((error as? URLError)?.code, .timedOut, "\(error)")
        }
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.9)
    }

    func test_closeMidBody_endsTheConnectionBeforeTheBodyIsComplete() throws {
        XCTAssertThrowsError(try server.fetch("/close-mid-body", timeout: 3)) { error in
            XCTAssertNotNil(error as? URLError, "\(error)")
        }
    }

    // MARK: - Payload routes

    func test_bytes_returnsNDeterministicBytes() throws {
        let response = try server.fetch("/bytes/1000")
        XCTAssertEqual(response.header("Content-Type"), "application/octet-stream")
        XCTAssertEqual(response.body.count, 1000)
        XCTAssertEqual(Array(response.body.prefix(3)), [0, 1, 2])
        XCTAssertEqual(response.body[response.body.startIndex + 999], UInt8(999 % 256))
    }

    func test_jsonLarge_returnsADocumentOfAboutTheRequestedSize() throws {
        let response = try server.fetch("/json/large?kb=16")
        XCTAssertGreaterThanOrEqual(response.body.count, 16 * 1024)
        XCTAssertLessThan(response.body.count, 17 * 1024)
        let items = response.jsonObject["items"] as? [[String: Any]] ?? []
        XCTAssertEqual(response.jsonObject["count"] as? Int, items.count)
        XCTAssertEqual(items.first?["name"] as? String, "item-0")
    }

    func test_gzip_isDecompressedByTheSession() throws {
        XCTAssertEqual(try server.fetch("/gzip").jsonObject["gzipped"] as? Bool, true)
    }

    func test_responseHeaders_setsTheRequestedHeaders() throws {
        let response = try server.fetch("/response-headers?Retry-After=7&X-Extra=yes")
        XCTAssertEqual(response.header("Retry-After"), "7")
        XCTAssertEqual(response.header("X-Extra"), "yes")
    }

    // MARK: - Redirects

    func test_redirectTo_givenNoFollowing_thenTheRedirectStatusAndLocationArrive() throws {
        let target = try server.localhostURL("/headers").absoluteString
        let encoded = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? target
        let response = try server.fetch("/redirect-to?url=\(encoded)&status=307", followRedirects: false)
        XCTAssertEqual(response.statusCode, 307)
        XCTAssertEqual(response.header("Location"), target)
    }

    func test_redirectTo_givenFollowing_thenTheOtherHostAnswers() throws {
        let target = try server.localhostURL("/headers").absoluteString
        let encoded = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? target
        let response = try server.fetch("/redirect-to?url=\(encoded)")
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(response.url?.host, "localhost")
        XCTAssertNotNil(response.jsonObject["headers"])
    }

    func test_redirectChain_endsAtAnything() throws {
        let response = try server.fetch("/redirect/3")
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(response.jsonObject["path"] as? String, "/anything")
        let first = try server.fetch("/redirect/3", followRedirects: false)
        XCTAssertEqual(first.statusCode, 302)
        XCTAssertEqual(first.header("Location"), "/redirect/2")
    }

    // MARK: - Authentication state

    func test_bearer_givenTheValidToken_thenAuthenticated_andAfterRotation_then401() throws {
        let realm = "smoke-\(UUID().uuidString)"
        _ = try server.fetch("POST", "/auth/set/\(realm)?token=first")
        let accepted = try server.fetch("/bearer/\(realm)", headers: ["Authorization": "Bearer first"])
        XCTAssertEqual(accepted.statusCode, 200)
        XCTAssertEqual(accepted.jsonObject["authenticated"] as? Bool, true)
        XCTAssertEqual(accepted.jsonObject["token"] as? String, "first")

        let rotated = try server.fetch("POST", "/auth/token/\(realm)").jsonObject["token"] as? String
        XCTAssertNotNil(rotated)
        let rejected = try server.fetch("/bearer/\(realm)", headers: ["Authorization": "Bearer first"])
        XCTAssertEqual(rejected.statusCode, 401)
        XCTAssertEqual(rejected.jsonObject["metadata"] as? [String: String], ["status": "401", "desc": "token expired"])
        XCTAssertEqual(try server.fetch("/auth/valid/\(realm)?token=\(rotated ?? "")").jsonObject["valid"] as? Bool,
                       true)
        XCTAssertEqual(try server.fetch("/auth/stats/\(realm)").jsonObject["rotations"] as? Int, 1)
    }

    func test_xAuth_usesTheBareTokenHeader() throws {
        let realm = "smoke-\(UUID().uuidString)"
        _ = try server.fetch("POST", "/auth/set/\(realm)?token=bare")
        XCTAssertEqual(try server.fetch("/x-auth/\(realm)", headers: ["x-auth-token": "bare"]).statusCode, 200)
        XCTAssertEqual(try server.fetch("/x-auth/\(realm)", headers: ["x-auth-token": "Bearer bare"]).statusCode,
                       401)
    }

    // MARK: - Counters and stats

    func test_counterStatuses_givesTheNthStatusThenRepeatsTheLast() throws {
        let key = UUID().uuidString
        let path = "/counter/\(key)/statuses?seq=503,429,200&retry_after=0"
        let codes = try (1...4).map { _ in try server.fetch(path) }
        XCTAssertEqual(codes.map(\.statusCode), [503, 429, 200, 200])
        XCTAssertEqual(codes.map { $0.jsonObject["attempt"] as? Int }, [1, 2, 3, 4])
        XCTAssertEqual(codes[0].header("Retry-After"), "0")
        XCTAssertNil(codes[2].header("Retry-After"))
        XCTAssertEqual(try server.fetch("/counter/\(key)").jsonObject["count"] as? Int, 4)
    }

    func test_counterStatuses_givenADelayedEntry_thenThatAttemptIsSlow() throws {
        let key = UUID().uuidString
        let start = Date()
        XCTAssertEqual(try server.fetch("/counter/\(key)/statuses?seq=200@0.3,200").statusCode, 200)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.29)
    }

    func test_stats_countsEveryRequest() throws {
        let before = try server.fetch("/stats").jsonObject["requests"] as? Int ?? 0
        _ = try server.fetch("/anything")
        let after = try server.fetch("/stats").jsonObject["requests"] as? Int ?? 0
        XCTAssertGreaterThanOrEqual(after, before + 2)
    }
}
