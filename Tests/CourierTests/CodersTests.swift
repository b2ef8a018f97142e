import Foundation
import XCTest
@testable import Courier
import Promises

/// `Configuration.decoder` and `Configuration.encoder`: the client decodes and encodes with the
/// instances the caller configured, however they were set; an endpoint's own `decoder` wins.
final class CodersTests: XCTestCase {
    struct Profile: Codable, Sendable, Equatable {
        let displayName: String
        let joinedAt: Date
    }

    struct GetProfile: Endpoint {
        typealias Response = Profile
        var path: String { "profile" }
    }

    struct SaveProfile: Endpoint {
        typealias Response = EmptyResponse
        let profile: Profile
        var path: String { "profile" }
        var method: HTTPMethod { .put }
        var body: RequestBody { .json(profile) }
    }

    struct LegacyProfile: Endpoint {
        typealias Response = Profile
        let decoder: JSONDecoder?
        var path: String { "profile" }
    }

    struct LegacySave: Endpoint {
        typealias Response = EmptyResponse
        let profile: Profile
        let encoder: JSONEncoder?
        var path: String { "profile" }
        var method: HTTPMethod { .put }
        var body: RequestBody { .json(profile) }
    }

    private let body = #"{"display_name":"Ada","joined_at":86400}"#
    private let ada = Profile(displayName: "Ada", joinedAt: Date(timeIntervalSince1970: 86400))

    private static func snakeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }
    private let base = URL(string: "https://api.example.com")!

    func test_givenDecoderWithStrategies_whenResponseDecoded_thenTheStrategiesApply() throws {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .secondsSince1970
        var configuration = NetworkClient.Configuration(baseURL: base)
        configuration.decoder = decoder
        let client = NetworkClient.stubbing().body(json: body).makeClient(configuration: configuration)

        XCTAssertTrue(client.configuration.decoder === decoder)
        let profile = try client.request(GetProfile()).wait()
        XCTAssertEqual(profile, Profile(displayName: "Ada", joinedAt: Date(timeIntervalSince1970: 86400)))
    }

    func test_givenDefaultDecoderChangedInPlace_whenResponseDecoded_thenTheChangeApplies() throws {
        let configuration = NetworkClient.Configuration(baseURL: base)
        configuration.decoder.keyDecodingStrategy = .convertFromSnakeCase
        configuration.decoder.dateDecodingStrategy = .secondsSince1970
        let client = NetworkClient.stubbing().body(json: body).makeClient(configuration: configuration)

        let profile = try client.request(GetProfile()).wait()
        XCTAssertEqual(profile.displayName, "Ada")
    }

    func test_givenDefaultDecoder_whenSnakeCaseBodyDecoded_thenDecodingFails() {
        let client = NetworkClient.stubbing().body(json: body).makeClient(configuration: .init(baseURL: base))

        XCTAssertThrowsError(try client.request(GetProfile()).wait()) { error in
            guard case NetworkError.decodingFailed? = error as? NetworkError else {
                return XCTFail("expected .decodingFailed, got \(error)")
            }
        }
    }

    func test_givenEncoderWithStrategies_whenRequestBuilt_thenTheBodyUsesThem() throws {
        let configuration = NetworkClient.Configuration(baseURL: base)
        configuration.encoder.keyEncodingStrategy = .convertToSnakeCase
        configuration.encoder.dateEncodingStrategy = .secondsSince1970
        configuration.encoder.outputFormatting = .sortedKeys
        let client = NetworkClient(configuration: configuration)

        let request = try client.makeURLRequest(for: SaveProfile(profile: Profile(displayName: "Ada", joinedAt: Date(timeIntervalSince1970: 60))))
        XCTAssertEqual(request.httpBody.map { String(decoding: $0, as: UTF8.self) }, #"{"display_name":"Ada","joined_at":60}"#)
    }

    func test_givenCopiedConfiguration_whenOneCopyGetsANewDecoder_thenTheOtherKeepsItsOwn() {
        let original = NetworkClient.Configuration(baseURL: base)
        var copy = original
        copy.decoder = JSONDecoder()
        copy.encoder = JSONEncoder()

        XCTAssertFalse(copy.decoder === original.decoder)
        XCTAssertFalse(copy.encoder === original.encoder)
        XCTAssertTrue(NetworkClient(configuration: original).configuration.encoder === original.encoder)
    }

    // MARK: - An endpoint's own decoder

    func test_givenEndpointDecoder_whenTheClientHasTheDefault_thenTheEndpointsDecodes() throws {
        let client = NetworkClient.stubbing().body(json: body).makeClient(configuration: .init(baseURL: base))

        XCTAssertEqual(try client.request(LegacyProfile(decoder: Self.snakeDecoder())).wait(), ada)
        XCTAssertThrowsError(try client.request(LegacyProfile(decoder: nil)).wait(), "nil: the client's decoder")
    }

    func test_givenEndpointDecoder_whenTheClientsWouldSucceed_thenTheEndpointsStillWins() throws {
        let configuration = NetworkClient.Configuration(baseURL: base)
        configuration.decoder.keyDecodingStrategy = .convertFromSnakeCase
        configuration.decoder.dateDecodingStrategy = .secondsSince1970
        let client = NetworkClient.stubbing().body(json: body).makeClient(configuration: configuration)

        XCTAssertEqual(try client.request(LegacyProfile(decoder: nil)).wait(), ada)
        XCTAssertThrowsError(try client.request(LegacyProfile(decoder: JSONDecoder())).wait()) { error in
            guard case NetworkError.decodingFailed? = error as? NetworkError else {
                return XCTFail("expected .decodingFailed, got \(error)")
            }
        }
    }

    func test_givenEndpointDecoder_whenWrappedWithHTTPResponse_thenTheValueUsesIt() async throws {
        let client = NetworkClient.stubbing().body(json: body).makeClient(configuration: .init(baseURL: base))
        let decoder = Self.snakeDecoder()

        let wrapped = LegacyProfile(decoder: decoder).withHTTPResponse()
        XCTAssertTrue(wrapped.decoder === decoder)
        let answer = try await client.send(wrapped)
        XCTAssertEqual(answer.value, ada)
        XCTAssertEqual(answer.response.statusCode, 200)
    }

    func test_givenRequestValue_whenItsDecoderIsSetOrCopied_thenItDecodesWithIt() async throws {
        let client = NetworkClient.stubbing().body(json: body).makeClient(configuration: .init(baseURL: base))
        let decoder = Self.snakeDecoder()

        var request = Request<Profile>("profile")
        XCTAssertNil(request.decoder)
        request.decoder = decoder
        let sent = try await client.send(request)
        XCTAssertEqual(sent, ada)

        var optional = Request<Profile?>("profile")
        optional.decoder = decoder
        let sentOptional = try await client.send(optional)
        XCTAssertEqual(sentOptional, ada)

        let copied = Request(LegacyProfile(decoder: decoder))
        XCTAssertTrue(copied.decoder === decoder)
        let sentCopy = try await client.send(copied)
        XCTAssertEqual(sentCopy, ada)
    }

    // MARK: - An endpoint's own encoder

    private static func snakeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = .sortedKeys
        return encoder
    }

    private func sentBody<E: Endpoint>(_ endpoint: E, configuration: NetworkClient.Configuration) throws -> String? {
        try NetworkClient(configuration: configuration).makeURLRequest(for: endpoint).httpBody
            .map { String(decoding: $0, as: UTF8.self) }
    }

    func test_givenEndpointEncoder_whenTheBodyIsBuilt_thenItWinsOverTheClients() throws {
        let configuration = NetworkClient.Configuration(baseURL: base)
        configuration.encoder.outputFormatting = .sortedKeys   // camelCase, dates as seconds since 2001
        let profile = Profile(displayName: "Ada", joinedAt: Date(timeIntervalSince1970: 60))

        XCTAssertEqual(try sentBody(LegacySave(profile: profile, encoder: Self.snakeEncoder()), configuration: configuration),
                       #"{"display_name":"Ada","joined_at":60}"#)
        XCTAssertEqual(try sentBody(LegacySave(profile: profile, encoder: nil), configuration: configuration),
                       #"{"displayName":"Ada","joinedAt":-978307140}"#)
    }

    func test_givenEndpointEncoder_whenWrappedOrCopiedIntoARequest_thenItIsKept() throws {
        let encoder = Self.snakeEncoder()
        let save = LegacySave(profile: ada, encoder: encoder)
        XCTAssertTrue(save.withHTTPResponse().encoder === encoder)
        XCTAssertTrue(Request(save).encoder === encoder)

        var request = Request<EmptyResponse>.put("profile", body: .json(ada))
        XCTAssertNil(request.encoder)
        request.encoder = encoder
        XCTAssertEqual(try sentBody(request, configuration: .init(baseURL: base)), #"{"display_name":"Ada","joined_at":86400}"#)
    }
}
