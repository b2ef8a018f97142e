import Foundation
import XCTest
@testable import Courier
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `CurlCommand`: a request as a `curl` command, with every secret redacted.
final class CurlCommandTests: XCTestCase {
    private func request(
        _ url: String, method: String = "GET", headers: [String: String] = [:], body: String? = nil
    ) throws -> URLRequest {
        var request = URLRequest(url: try XCTUnwrap(URL(string: url)))
        request.httpMethod = method
        request.allHTTPHeaderFields = headers
        request.httpBody = body.map { Data($0.utf8) }
        return request
    }

    func test_givenGETWithHeaders_thenURLAndSortedHeadersAreQuotedOnePerLine() throws {
        let command = CurlCommand.string(for: try request(
            "https://api.example.com/v1/users/42?page=2", headers: ["X-Trace": "abc", "Accept": "application/json"]))
        XCTAssertEqual(command, """
            curl 'https://api.example.com/v1/users/42?page=2' \\
              -H 'Accept: application/json' \\
              -H 'X-Trace: abc'
            """)
    }

    func test_givenPOSTWithJSONBodyAndCredentials_thenHeadersQueryAndBodyMembersAreRedacted() throws {
        let command = CurlCommand.string(for: try request(
            "https://api.example.com/login?api_key=K3Y-S3CR3T&v=1", method: "POST",
            headers: ["Authorization": "Bearer T0KEN-S3CR3T", "Content-Type": "application/json"],
            body: #"{"user":"ada","password":"P4SS-S3CR3T","profile":{"refresh_token":"R3FR3SH"}}"#))
        XCTAssertEqual(command, """
            curl -X 'POST' 'https://api.example.com/login?api_key=<redacted>&v=1' \\
              -H 'Authorization: <redacted>' \\
              -H 'Content-Type: application/json' \\
              --data-raw '{"password":"<redacted>","profile":{"refresh_token":"<redacted>"},"user":"ada"}'
            """)
        for secret in ["K3Y-S3CR3T", "T0KEN-S3CR3T", "P4SS-S3CR3T", "R3FR3SH"] {
            XCTAssertFalse(command.contains(secret), "\(secret) leaked")
        }
    }

    func test_givenFormBody_thenCredentialFieldsAreRedacted() throws {
        let command = CurlCommand.string(for: try request(
            "https://api.example.com/oauth/token", method: "POST",
            headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: "grant_type=password&username=ada&password=P4SS&client_secret=S3CR3T"))
        XCTAssertTrue(command.hasSuffix(
            "--data-raw 'grant_type=password&username=ada&password=<redacted>&client_secret=<redacted>'"), command)
    }

    func test_givenBinaryTextOrLargeBodies_thenOnlyTheirSizeAndTypeAreShown() throws {
        let png = CurlCommand.string(for: try request(
            "https://api.example.com/avatar", method: "PUT", headers: ["Content-Type": "image/png"], body: "PNGDATA"))
        XCTAssertTrue(png.hasSuffix("--data-raw '<7 bytes of image/png not shown>'"), png)
        let text = CurlCommand.string(for: try request(
            "https://api.example.com/notes", method: "POST", headers: ["Content-Type": "text/plain"], body: "my password is hunter2"))
        XCTAssertFalse(text.contains("hunter2"), "a text body may hold secrets the redaction cannot find")
        let large = String(repeating: "a", count: CurlCommand.maximumPrintedBodySize)
        let big = CurlCommand.string(for: try request(
            "https://api.example.com/big", method: "POST", headers: ["Content-Type": "application/json"],
            body: #"[""# + large + #""]"#))
        XCTAssertTrue(big.hasSuffix("--data-raw '<\(large.utf8.count + 4) bytes of application/json not shown>'"), big)
    }

    func test_givenAFormTypedBodyThatIsNotPairs_thenOnlyItsSizeIsShown() throws {
        for body in [#"{"password":"hunter2"}"#, "a=1;token=hunter2", "hunter2"] {
            let command = CurlCommand.string(for: try request(
                "https://api.example.com/login", method: "POST",
                headers: ["Content-Type": "application/x-www-form-urlencoded"], body: body))
            XCTAssertFalse(command.contains("hunter2"), command)
            XCTAssertTrue(command.hasSuffix("not shown>'"), command)
        }
    }

    func test_givenARegisteredSecretThatEncodingWouldDisguise_thenItIsRedactedAnyway() throws {
        let secret = #"abc+def/ghi='jkl\"#
        Redaction.register(secretValue: secret)
        let encoded = try XCTUnwrap(secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let form = CurlCommand.string(for: try request(
            "https://api.example.com/assert?x=\(encoded)", method: "POST",
            headers: ["Content-Type": "application/x-www-form-urlencoded", "X-Echo": secret],
            body: "assertion=\(encoded)&kind=jwt-bearer"))
        XCTAssertTrue(form.contains("?x=<redacted>"), form)
        XCTAssertTrue(form.contains("-H 'X-Echo: <redacted>'"), form)
        XCTAssertTrue(form.hasSuffix("--data-raw 'assertion=<redacted>&kind=jwt-bearer'"), form)
        let json = CurlCommand.string(for: try request(
            "https://api.example.com/assert", method: "POST", headers: ["Content-Type": "application/json"],
            body: #"{"assertion":"abc+def/ghi='jkl\\"}"#))
        XCTAssertTrue(json.hasSuffix(#"--data-raw '{"assertion":"<redacted>"}'"#), json)
    }

    func test_givenGETWithABody_thenTheMethodIsKept() throws {
        let command = CurlCommand.string(for: try request(
            "https://search.example.com/_search", headers: ["Content-Type": "application/json"], body: #"{"q":1}"#))
        XCTAssertTrue(command.hasPrefix("curl -X 'GET' 'https://search.example.com/_search'"), command)
    }

    func test_givenABodyStartingWithAt_thenItIsPassedAsDataNotAFileName() throws {
        let command = CurlCommand.string(for: try request(
            "https://api.example.com/form", method: "POST",
            headers: ["Content-Type": "application/x-www-form-urlencoded"], body: "@etc=passwd"))
        // `@` is not a form character, so the body is not printed; and it goes through
        // `--data-raw`, which never reads a file, whatever a future rule prints.
        XCTAssertTrue(command.hasSuffix("--data-raw '<11 bytes of application/x-www-form-urlencoded not shown>'"), command)
    }

    func test_givenCloudStyleCredentialNames_thenTheyAreRedacted() throws {
        let command = CurlCommand.string(for: try request(
            "https://bucket.s3.example.com/o?X-Amz-Signature=S1G&X-Amz-Credential=CR3D&oauth_signature=OS1G&v=1",
            headers: ["X-Auth-Key": "K1", "Ocp-Apim-Subscription-Key": "K2", "X-Goog-IAP-JWT-Assertion": "J1",
                      "X-Hub-Signature": "H1", "Accept": "*/*"]))
        for secret in ["S1G", "CR3D", "OS1G", "K1", "K2", "J1", "H1"] {
            XCTAssertFalse(command.contains("'\(secret)") || command.contains("=\(secret)") || command.contains(": \(secret)"),
                           "\(secret) leaked: \(command)")
        }
        XCTAssertTrue(command.contains("&v=1"), command)
        XCTAssertTrue(command.contains("-H 'Accept: */*'"), command)
    }

    func test_givenAHashRouteWithParameters_thenTheyAreRedacted() throws {
        let command = CurlCommand.string(for: try request("https://app.example.com/#/callback?code=XYZ&state=1"))
        XCTAssertEqual(command, "curl 'https://app.example.com/#/callback?code=<redacted>&state=1'")
    }

    func test_givenBracketsInTheURL_thenGlobbingIsOff() throws {
        let command = CurlCommand.string(for: try request("http://[::1]:8080/ping"))
        XCTAssertEqual(command, "curl --globoff 'http://[::1]:8080/ping'")
    }

    func test_givenSingleQuotesInValues_thenTheyAreEscapedForTheShell() throws {
        let command = CurlCommand.string(for: try request(
            "https://api.example.com/search?q=it's", headers: ["X-Note": "Ada's"]))
        XCTAssertEqual(command, """
            curl 'https://api.example.com/search?q=it'\\''s' \\
              -H 'X-Note: Ada'\\''s'
            """)
    }

    func test_givenHEAD_thenItUsesTheHeadOption() throws {
        XCTAssertEqual(CurlCommand.string(for: try request("https://api.example.com/ping", method: "HEAD")),
                       "curl --head 'https://api.example.com/ping'")
    }

    func test_givenARegisteredSecretValueInAnUnredactedPlace_thenItIsScrubbed() throws {
        Redaction.register(secretValue: "CURL-REGISTERED-SECRET")
        let command = CurlCommand.string(for: try request(
            "https://api.example.com/echo", headers: ["X-Echo": "CURL-REGISTERED-SECRET"]))
        XCTAssertFalse(command.contains("CURL-REGISTERED-SECRET"))
        XCTAssertTrue(command.contains("-H 'X-Echo: <redacted>'"), command)
    }

    func test_givenAnEndpoint_thenTheClientRendersWhatItWouldBuild() throws {
        struct CreatePost: Endpoint {
            var path: String { "posts" }
            var method: HTTPMethod { .post }
            var body: RequestBody { .data(Data(#"{"title":"Hello"}"#.utf8), contentType: "application/json") }
        }
        let client = NetworkClient(baseURL: try XCTUnwrap(URL(string: "https://blog.example.com/api/")))
        XCTAssertEqual(try client.curlCommand(for: CreatePost()), """
            curl -X 'POST' 'https://blog.example.com/api/posts' \\
              -H 'Accept: application/json' \\
              -H 'Content-Type: application/json' \\
              --data-raw '{"title":"Hello"}'
            """)
    }

    func test_givenLoggingPluginInCurlFormat_thenTheOutgoingLineIsTheRedactedCommand() throws {
        let lines = SharedValue<[String]>([])
        let plugin = LoggingPlugin(format: .curl) { line in lines.withLock { $0.append(line) } }
        plugin.willSend(try request("https://api.example.com/me", headers: ["Authorization": "Bearer T0KEN"]))
        XCTAssertEqual(lines.withLock { $0 }, ["→ curl 'https://api.example.com/me' \\\n  -H 'Authorization: <redacted>'"])
    }
}
