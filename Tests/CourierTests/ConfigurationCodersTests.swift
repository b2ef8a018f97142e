import Foundation
import XCTest
@testable import Courier
import Promises

/// `Configuration.decoder` and `Configuration.encoder`: the client decodes and encodes with the
/// instances the caller configured, however they were set.
final class ConfigurationCodersTests: XCTestCase {
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

    private let body = #"{"display_name":"Ada","joined_at":86400}"#
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
}
