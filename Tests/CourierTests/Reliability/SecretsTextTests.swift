import Foundation
import XCTest
@testable import Courier
import Promises

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Secrets inside free text and inside JSON strings, found by an audit and a user trial: a
/// non-JSON error body, a next-page link in a JSON string, JSON kept in a string, a message that
/// quotes a URL, a URL's user and password in other text, a request written in place, and names
/// recognised by their words.
final class SecretsTextTests: XCTestCase {
    private let secret = "sx-7f3a9c2e41"

    private func error(status: Int, body: String, headers: [String: String] = [:]) throws -> NetworkError {
        let response = HTTPResponse(statusCode: status, headers: headers, body: Data(body.utf8),
                                    url: URL(string: "https://api.example.com/login"))
        return try XCTUnwrap(NetworkError.classify(response, parser: ServerMetadata.parse))
    }

    private func texts(of error: NetworkError) -> [String] {
        var dumped = ""
        dump(error, to: &dumped)
        var texts = [error.description, String(reflecting: error), error.localizedDescription, dumped]
        if let metadata = error.metadata { texts += [metadata.description, String(reflecting: metadata)] }
        return texts
    }

    // MARK: Free text

    func test_givenANonJSONErrorBodyWithACodeInALinkAUserInAURLOrAForm_whenDescribed_thenEachSecretIsRedacted() throws {
        let bodies = [
            "Found. Redirecting to https://app.example.com/cb?code=\(secret)&state=xyz",
            "See https://deploy:\(secret)@git.example.com/repo.git for details",
            "grant_type=password&username=ada&password=\(secret)",
            "callback myapp://cb#access_token=\(secret)&state=xyz",
        ]
        for body in bodies {
            let error = try error(status: 302, body: body)
            for text in texts(of: error) {
                XCTAssertFalse(text.contains(secret), "\(body) → \(text)")
            }
        }
        let form = try error(status: 400, body: "grant_type=password&username=ada&password=\(secret)")
        XCTAssertTrue(form.description.contains("username=ada"), "fields that are not credentials stay: \(form.description)")
    }

    func test_givenAServerMessageQuotingAURLWithACode_whenDescribed_thenTheCodeIsRedactedAndTheRestShown() throws {
        let error = try error(status: 400, body: #"{"message":"bad redirect https://app.example.com/cb?code=\#(secret)&state=1"}"#)
        XCTAssertEqual(error.metadata?.message, "bad redirect https://app.example.com/cb?code=\(secret)&state=1", "the metadata keeps the server's words")
        for text in texts(of: error) {
            XCTAssertFalse(text.contains(secret), text)
        }
        XCTAssertTrue(error.description.contains("code=<redacted>&state=1"), error.description)
    }

    func test_givenARegisteredSecretLongerThanTheCut_whenAMessageQuotesIt_thenNoPartOfItIsShown() throws {
        let long = "lt-" + String(repeating: "9a8b7c6d5e", count: 30)   // 303 characters
        Redaction.register(secretValue: long)
        let error = try error(status: 401, body: #"{"message":"token \#(long) rejected"}"#)
        for text in texts(of: error) {
            XCTAssertFalse(text.contains("9a8b7c6d5e9a8b7c6d5e"), "scrubbed before the text is cut: \(text)")
        }
    }

    func test_givenARegisteredSecretWithAQuote_whenAnErrorBodyQuotesItEscaped_thenItIsNotShown() throws {
        let password = #"pa"ss\w0rd-e61"#
        Redaction.register(secretValue: password)
        let error = try error(status: 500, body: #"{"errors":[{"detail":"bad pa\"ss\\w0rd-e61"}]}"#)
        for text in texts(of: error) {
            XCTAssertFalse(text.contains(#"pa\"ss"#), text)
            XCTAssertFalse(text.contains(password), text)
        }
    }

    func test_givenAnotherLibrarysErrorTextWithAUserAndPassword_whenWrapped_thenTheyAreDropped() {
        struct EngineError: Error, CustomStringConvertible {
            let secret: String
            var description: String { "connect to https://svc:\(secret)@db.example.com:5432/x failed" }
        }
        let error = NetworkError.authenticationFailed(underlying: EngineError(secret: secret))
        XCTAssertFalse(error.description.contains(secret), error.description)
        XCTAssertTrue(error.description.contains("https://db.example.com:5432/x"), error.description)
    }

    func test_givenALocationHeaderWithAUserAndPassword_whenTheResponseIsDescribed_thenTheyAreDropped() {
        let response = HTTPResponse(statusCode: 302, headers: ["Location": "https://ada:\(secret)@files.example.com/a"])
        XCTAssertFalse(response.description.contains(secret), response.description)
        XCTAssertTrue(response.description.contains("https://files.example.com/a"), response.description)
    }

    func test_givenARegisteredValueBeforeASensitiveParameter_whenRedacted_thenTheParameterAfterItIsStillHidden() {
        let state = "st-" + UUID().uuidString
        Redaction.register(secretValue: state)
        let text = Redaction.redact(text: "GET https://h.example/cb?state=\(state)&client_secret=\(secret)")
        XCTAssertFalse(text.contains(secret), text)
        XCTAssertFalse(text.contains(state), text)
    }

    func test_givenSecretsInASentenceOrInJSONCutShort_whenRedactedAsText_thenTheyAreHidden() {
        let texts = [
            "login failed: user=bob password=\(secret) from 10.0.0.1",
            #"upstream said: {"access_token":"\#(secret)","scope":"read"}"#,
            #"{"user":"ada","password":"\#(secret)"#,
            "api_key=\(secret);\(secret)&page=2",
        ]
        for text in texts {
            let redacted = Redaction.redact(text: text)
            XCTAssertFalse(redacted.contains(secret), "\(text) → \(redacted)")
        }
        XCTAssertEqual(Redaction.redact(text: "login failed: user=bob password=\(secret) from 10.0.0.1"),
                       "login failed: user=bob password=<redacted> from 10.0.0.1")
        XCTAssertEqual(Redaction.redact(text: "api_key=\(secret);\(secret)&page=2"), "api_key=<redacted>&page=2")
    }

    func test_givenAHugeErrorBody_whenDescribed_thenOnlyItsSizeIsShown() throws {
        let body = "<html>" + String(repeating: "x", count: 70_000) + "</html>"
        let error = try error(status: 502, body: body)
        XCTAssertTrue(error.description.contains("<70013 bytes not shown>"), error.description)
    }

    // MARK: JSON strings

    func test_givenJSONStringsHoldingALinkJSONOrAForm_whenPrinted_thenTheirSecretsAreRedacted() throws {
        let bodies = [
            #"{"paging":{"next":"https://graph.example.com/feed?access_token=\#(secret)&after=x"}}"#,
            #"{"data":"{\"access_token\":\"\#(secret)\",\"scope\":\"read\"}"}"#,
            #"{"q":"grant_type=password&password=\#(secret)"}"#,
            #"[{"name":"password","value":"\#(secret)"}]"#,
            #""{\"refresh_token\":\"\#(secret)\"}""#,
        ]
        for body in bodies {
            let printed = CurlCommand.printable(Data(body.utf8), contentType: "application/json")
            XCTAssertFalse(printed.contains(secret), "\(body) → \(printed)")
            XCTAssertFalse(printed.hasPrefix("<"), "shown, not replaced by a placeholder: \(printed)")
            let described = try error(status: 422, body: body).description
            XCTAssertFalse(described.contains(secret), "\(body) → \(described)")
        }
        let link = CurlCommand.printable(Data(bodies[0].utf8), contentType: "application/json")
        XCTAssertTrue(link.contains("access_token=<redacted>&after=x"), link)
        let embedded = CurlCommand.printable(Data(bodies[1].utf8), contentType: "application/json")
        XCTAssertTrue(embedded.contains("read"), "the rest of the embedded JSON is shown: \(embedded)")
    }

    func test_givenAnErrorObjectWithACode_whenItsBodyIsLogged_thenTheCodeIsShownButAnOAuthCodeIsNot() {
        let errorBody = #"{"error":{"code":"AUTH_EXPIRED","message":"token expired"}}"#
        let printed = CurlCommand.printable(Data(errorBody.utf8), contentType: "application/json")
        XCTAssertTrue(printed.contains("AUTH_EXPIRED"), "an error code is not a credential: \(printed)")
        let exchange = #"{"code":"\#(secret)","redirect_uri":"https://app.example.com/cb"}"#
        let sent = CurlCommand.printable(Data(exchange.utf8), contentType: "application/json")
        XCTAssertFalse(sent.contains(secret), "an OAuth code outside an error object stays hidden: \(sent)")
    }

    // MARK: Requests written in place

    func test_givenARequestWithCredentials_whenPrintedOrDumped_thenNothingSecretIsShown() throws {
        var request = Request<JSON>.post("login", body: .form(["user": "ada", "password": secret]))
        request.baseURL = URL(string: "https://svc:\(secret)@api.example.com/v1")
        request.headers = ["Authorization": "Bearer \(secret)", "Accept": "application/json"]
        request.query = [URLQueryItem(name: "api_key", value: secret), URLQueryItem(name: "page", value: "2")]
        var dumped = ""
        dump(request, to: &dumped)
        for text in [request.description, "\(request)", String(reflecting: request), dumped] {
            XCTAssertFalse(text.contains(secret), text)
        }
        XCTAssertEqual(request.description,
                       "Request<JSON>(POST login, baseURL: https://api.example.com/v1, query: [api_key=<redacted>&page=2], "
                       + "headers: [Accept: application/json, Authorization: <redacted>], body: form([password: <redacted>, user: ada]))")
    }

    func test_givenBodiesOfEveryKind_whenDescribed_thenOnlyTheirShapeIsShown() {
        struct Credentials: Encodable { let password: String }
        var form = MultipartFormData()
        form.append("ada", name: "user")
        XCTAssertEqual(RequestBody.json(Credentials(password: secret)).description, "json(Credentials)")
        XCTAssertEqual(RequestBody.data(Data(secret.utf8), contentType: "text/plain").description, "data(13 bytes, text/plain)")
        XCTAssertEqual(RequestBody.multipart(form).description, "multipart(1 part)")
        XCTAssertEqual(RequestBody.urlEncoded(Credentials(password: secret)).description, "urlEncoded(Credentials)")
        var dumped = ""
        dump(RequestBody.json(Credentials(password: secret)), to: &dumped)
        XCTAssertFalse(dumped.contains(secret), dumped)
    }

    func test_givenAMultipartTextPartHoldingJSON_whenRenderedAsCurl_thenItsSecretMemberIsRedacted() throws {
        var form = MultipartFormData()
        form.append(#"{"password":"\#(secret)","user":"ada"}"#, name: "meta")
        let client = NetworkClient.stubbing().makeClient()
        let command = try client.curlCommand(for: Request<JSON>.post("upload", body: .multipart(form)))
        XCTAssertFalse(command.contains(secret), command)
        XCTAssertTrue(command.contains("ada"), command)
    }

    // MARK: Names

    func test_givenNamesThatAreCredentialsByTheirWords_whenChecked_thenTheyAreSensitiveAndLookalikesAreNot() {
        let queryNames = ["privateKey", "accessKey", "signingKey", "client_assertion", "code_verifier", "oauth_verifier",
                          "newPwd", "pwd2", "user_pass", "otp", "OTPCode", "pin_code", "PHPSESSID", "JSESSIONID",
                          "SAMLResponse", "auth_code", "authCode", "device_code", "passcode", "passphrase", "hmac"]
        let plainQueryNames = ["footprint", "compass", "passport", "monkey", "author", "auth_type", "oauth_provider",
                               "country_code", "error_code", "zip", "sort", "pinned", "keyboard", "publicKey", "sortKey",
                               "LastEvaluatedKey", "otp_enabled", "passTypeIdentifier", "sid", "appid", "pin"]
        for name in queryNames { XCTAssertTrue(Redaction.isSensitive(queryItemName: name), name) }
        for name in plainQueryNames { XCTAssertFalse(Redaction.isSensitive(queryItemName: name), name) }
        let headerNames = ["X-ZUMO-AUTH", "Auth", "X-GitHub-OTP", "DPoP", "X-Signing-Key"]
        let plainHeaderNames = ["Author", "X-Footprint", "WWW-Authenticate", "Keep-Alive"]
        for name in headerNames { XCTAssertTrue(Redaction.isSensitive(headerName: name), name) }
        for name in plainHeaderNames { XCTAssertFalse(Redaction.isSensitive(headerName: name), name) }
    }

    func test_givenJSONMembersNamedLikeHeaderOnlyWordsOrHoldingFlags_whenPrinted_thenTheyAreShown() {
        let body = #"{"auth_type":"oauth","authProvider":"google","otp_enabled":true,"password_set":false,"token":null}"#
        let printed = CurlCommand.printable(Data(body.utf8), contentType: "application/json")
        for shown in ["\"auth_type\":\"oauth\"", "\"authProvider\":\"google\"", "\"otp_enabled\":true", "\"token\":null"] {
            XCTAssertTrue(printed.contains(shown), "\(shown) in \(printed)")
        }
    }

    func test_givenErrorCodesInEnvelopesGraphQLExtensionsOrAsNumbers_whenPrinted_thenTheyAreShown() {
        let bodies = [
            (#"{"code":0,"msg":"ok"}"#, #""code":0"#),
            (#"{"errors":[{"message":"Bad credentials","extensions":{"code":"UNAUTHENTICATED"}}]}"#, "UNAUTHENTICATED"),
            (#"{"message":"Validation Failed","errors":[{"resource":"Issue","field":"title","code":"missing_field"}]}"#, "missing_field"),
        ]
        for (body, expected) in bodies {
            let printed = CurlCommand.printable(Data(body.utf8), contentType: "application/json")
            XCTAssertTrue(printed.contains(expected), "\(expected) in \(printed)")
        }
    }

    func test_givenCodesOutsideAnError_whenPrinted_thenTheyStayHidden() {
        let bodies = [
            #"{"message":"ok","data":{"code":"\#(secret)"}}"#,       // beside a message, not in it
            #"{"code":482913,"remember_device":true}"#,               // a one-time code is a number
            #"{"otp":{"code":"\#(secret)"}}"#,
            #"{"items":[{"code":"\#(secret)"}],"msg":"ok"}"#,
        ]
        for body in bodies {
            let printed = CurlCommand.printable(Data(body.utf8), contentType: "application/json")
            XCTAssertFalse(printed.contains(secret) || printed.contains("482913"), printed)
            XCTAssertTrue(printed.contains("<redacted>"), printed)
        }
    }

    func test_givenEscapedJSONInFreeText_whenRedacted_thenTheSecretValueIsHiddenWhateverItHolds() {
        let texts = [
            #"decoding failed: {\"password\":\"\#(secret)\",\"user\":\"ada\"}"#,
            #"payload {\"client_secret\" : \"\#(secret)\"}"#,
            // A quote and a backslash inside the value, escaped twice: the whole value goes.
            #"{\"password\":\"ab\\\"cd\\\\\#(secret)\"}"#,
        ]
        for text in texts {
            let redacted = Redaction.redact(text: text)
            XCTAssertFalse(redacted.contains(secret), redacted)
            XCTAssertFalse(redacted.contains("cd"), redacted)
        }
        XCTAssertTrue(Redaction.redact(text: texts[0]).contains(#"\"user\":\"ada\""#), "other pairs are kept")
    }

    func test_givenJSONKeptInStringsFarDown_whenRedacted_thenItFinishesAndTheSecretIsStillHidden() {
        // A string that holds JSON, nested 90 levels down in a document that is itself kept in a
        // string 90 levels down: read as text there (no document inside a deep one), still redacted.
        func nest(_ inner: JSON, _ levels: Int) -> JSON {
            (0..<levels).reduce(inner) { value, _ in .array([value]) }
        }
        let innermost = JSON.string(#"{"password":"\#(secret)"}"#)
        let middle = JSON.string(nest(innermost, 90).description)
        let body = nest(middle, 90)
        let printed = Redaction.redactMembers(body, scrubbingStrings: true).description
        XCTAssertFalse(printed.contains(secret), String(printed.suffix(200)))
        XCTAssertTrue(printed.contains("<redacted>"))
        // Near the top, JSON in a string is read as a document (and written back compact); from
        // 16 levels down it is left as text, white space included.
        let spaced = JSON.string(#"{"a": 1}"#)
        XCTAssertEqual(Redaction.redactMembers(nest(spaced, 3)).description, nest(.string(#"{"a":1}"#), 3).description)
        XCTAssertEqual(Redaction.redactMembers(nest(spaced, 20)).description, nest(spaced, 20).description)
    }

    func test_givenAnUnclosedOrdinaryPairBeforeASecretOne_whenRedacted_thenTheSecretIsStillHidden() {
        let texts = [
            #"ValidationError(input: "{\"id\":\"12", fields: ["password": "\#(secret)"])"#,
            #"["say \"a\":\"b", {"access_token":"\#(secret)"}]"#,
            #"{"msg":"bad {\"password\":\"\#(secret)\"}"}"#,
        ]
        for text in texts {
            let redacted = Redaction.redact(text: text)
            XCTAssertFalse(redacted.contains(secret), redacted)
        }
    }

    func test_givenASemicolonInsideAHiddenValue_whenParametersAreRedacted_thenTheRestOfTheValueGoesWithIt() {
        XCTAssertEqual(Redaction.redact(parameters: "api_key=abc;def&x=1;y"), "api_key=<redacted>&x=1;y")
        XCTAssertEqual(Redaction.redact(parameters: "api_key=abc;def;ghi"), "api_key=<redacted>")
        XCTAssertEqual(Redaction.redact(parameters: "api_key=abc;"), "api_key=<redacted>")
        XCTAssertEqual(Redaction.redact(parameters: "a=1;"), "a=1;")
        XCTAssertEqual(Redaction.redact(parameters: "a=1;b;c=2"), "a=1;b;c=2")
    }

    func test_givenAMetadataBodyOver64KiB_whenDescribedOrDumped_thenItIsShownBySizeOnly() {
        let long = String(repeating: "x", count: 70_000)
        let metadata = ServerMetadata(status: "500", message: long, body: .object(["trace": .string(long)]))
        var dumped = ""
        dump(metadata, to: &dumped)
        for text in [metadata.description, dumped] {
            XCTAssertFalse(text.contains(String(repeating: "x", count: 300)), String(text.prefix(300)))
            XCTAssertTrue(text.contains("not shown"), String(text.prefix(300)))
        }
        let small = ServerMetadata(status: "500", message: "boom", body: .object(["trace": .string("short")]))
        XCTAssertTrue(small.description.contains("short"), small.description)
    }

    func test_givenARequestWhosePathCarriesAToken_whenDescribed_thenTheTokenIsRedacted() {
        let request = Request<JSON>("reset?token=\(secret)&lang=en")
        XCTAssertFalse(request.description.contains(secret), request.description)
        XCTAssertTrue(request.description.contains("lang=en"), request.description)
    }

    // MARK: Registered values

    func test_givenAnAPIKeyInTheDefaultHeaders_whenAServerMessageQuotesIt_thenItIsScrubbed() throws {
        let key = "ak-" + UUID().uuidString
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        configuration.defaultHeaders["X-Api-Key"] = key
        let client = NetworkClient.stubbing()
            .respond { _ in .json(#"{"message":"API key \#(key) is disabled"}"#, status: 403) }
            .makeClient(configuration: configuration)
        let failed = try XCTUnwrap(networkError(settle(client.request(StubJSONEndpoint(path: "maps")))))
        XCTAssertEqual(failed.statusCode, 403)
        for text in texts(of: failed) { XCTAssertFalse(text.contains(key), text) }
    }

    func test_givenACookieDefaultHeader_whenAClientIsMade_thenEachLongCookieValueIsScrubbedAndShortOnesAreNot() {
        let session = "sess-" + UUID().uuidString
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        configuration.defaultHeaders["Cookie"] = "session=\(session); theme=dark"
        _ = NetworkClient(configuration: configuration)
        XCTAssertEqual(Redaction.scrub("the server said \(session)"), "the server said <redacted>")
        XCTAssertEqual(Redaction.scrub("theme=dark stays"), "theme=dark stays")
    }

    func test_givenAHeaderThatOnlyLooksSensitive_whenAClientIsMade_thenItsOrdinaryValueIsNotScrubbedEverywhere() {
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        configuration.defaultHeaders["X-Auth-Mode"] = "standards"
        _ = NetworkClient(configuration: configuration)
        XCTAssertEqual(Redaction.scrub("the standards apply"), "the standards apply")
    }

    func test_givenAValueMarkedSensitive_whenManyTokensRotateAfterIt_thenItIsStillScrubbed() {
        let key = "mk-" + UUID().uuidString
        NetworkClient.markSensitiveValue(key)
        for index in 0..<(Redaction.secretValueLimit + 8) { Redaction.register(secretValue: "rotating-token-\(index)-\(UUID())") }
        XCTAssertEqual(Redaction.scrub("key \(key) here"), "key <redacted> here")
    }

    func test_givenADownloadOriginWithAUserAndPassword_whenRecorded_thenTheyAreLeftOut() throws {
        let base = try XCTUnwrap(URL(string: "https://ada:\(secret)@files.example.com/v1?sig=1"))
        let origin = DownloadResumption.origin(of: Request<JSON>("backups/1"), at: base)
        XCTAssertEqual(origin, "GET https://files.example.com/v1 backups/1")
    }

    func test_givenAStubRouteWithAnEncodedToken_whenTheBuilderIsDescribed_thenTheWholeValueIsRedacted() {
        let builder = NetworkClient.stubbing().stub(.get, "auth?token=abc%20\(secret)%26x", .json("{}"))
        XCTAssertFalse(builder.description.contains(secret), builder.description)
    }
}
