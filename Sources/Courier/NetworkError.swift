import Foundation
import Promises
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Everything that can go wrong with a Courier request.
///
/// Status errors carry the response and the server's ``ServerMetadata`` so a caller can act on them:
///
/// ```swift
/// client.request(GetUser(id: 9)).catch { error in
///     switch error as? NetworkError {
///     case .clientError(404, let metadata, _)?: showNotFound(metadata?.message)
///     case .timedOut?, .transport?: showOfflineBanner()
///     case .cancelled?: break
///     default: showGenericError(error)
///     }
/// }
/// ```
///
/// Descriptions (``description``, `localizedDescription`) are short and never contain credentials.
public enum NetworkError: Error, Sendable {
    /// The server answered with a status in `400...499`.
    ///
    /// - Parameters:
    ///   - statusCode: the HTTP status.
    ///   - metadata: what the configured error-metadata parser found in the body, if anything.
    ///   - response: the whole response.
    case clientError(statusCode: Int, metadata: ServerMetadata?, response: HTTPResponse)
    /// The server answered with a status in `500...599`.
    ///
    /// - Parameters:
    ///   - statusCode: the HTTP status.
    ///   - metadata: what the configured error-metadata parser found in the body, if anything.
    ///   - response: the whole response.
    case serverError(statusCode: Int, metadata: ServerMetadata?, response: HTTPResponse)
    /// The server answered with a status that is neither a success (`2xx`) nor an error
    /// (`4xx`/`5xx`): `1xx`, `3xx`, or anything outside `100...599`; also a `2xx` that the
    /// endpoint's ``Endpoint/acceptedStatusCodes`` leaves out. A status the endpoint accepts is
    /// never an error.
    ///
    /// - Parameters:
    ///   - statusCode: the HTTP status.
    ///   - response: the whole response.
    case unexpectedStatus(statusCode: Int, response: HTTPResponse)
    /// The response was a success but its body could not be decoded into the endpoint's `Response`
    /// type, or, for a download, saved to its file.
    ///
    /// - Parameters:
    ///   - underlying: the decoder's error, usually a `DecodingError`; for a download, the file
    ///     system's error (a `CocoaError` naming the path).
    ///   - response: the whole response.
    case decodingFailed(underlying: any Error, response: HTTPResponse)
    /// No HTTP response was received at all: DNS failure, refused connection, TLS failure, offline…
    ///
    /// - Parameter underlying: the transport's error, usually a `URLError`.
    case transport(underlying: any Error)
    /// The request did not complete within its timeout (``Endpoint/timeout``), or an attempt went
    /// without progress for its idle timeout (``Endpoint/idleTimeout``).
    case timedOut
    /// The request was cancelled before it completed.
    case cancelled
    /// The server rejected the credential and the authenticator could not obtain a new one, a
    /// ``URLSessionTransport/ChallengeHandler`` refused an authentication challenge, or a
    /// ``RequestAdapter`` failed with an error that is not a ``NetworkError``.
    ///
    /// - Parameter underlying: the error the refresh failed with; for a refused challenge
    ///   `URLError(.userCancelledAuthentication)` (or `.serverCertificateUntrusted` for a server's certificate).
    case authenticationFailed(underlying: any Error)
    /// The request could not be built, e.g. a body that cannot be encoded or a path that makes no
    /// URL; also a redirect a security rule refused (`https` to `http`, or to a scheme other than
    /// `http` and `https`), and a response larger than
    /// ``NetworkClient/Configuration/maximumResponseSize``.
    ///
    /// - Parameter reason: what was wrong, in words.
    case invalidRequest(reason: String)
}

extension NetworkError {
    /// The HTTP status of ``clientError(statusCode:metadata:response:)``,
    /// ``serverError(statusCode:metadata:response:)``, ``unexpectedStatus(statusCode:response:)``
    /// (the status the case carries, which is the response's unless a validator or a plugin made
    /// the error, say a `422` for an error reported inside a `200`) and
    /// ``decodingFailed(underlying:response:)`` (the response's); `nil` for the others.
    public var statusCode: Int? {
        switch self {
        case .clientError(let status, _, _), .serverError(let status, _, _), .unexpectedStatus(let status, _):
            status
        case .decodingFailed(_, let response):
            response.statusCode
        case .transport, .timedOut, .cancelled, .authenticationFailed, .invalidRequest:
            nil
        }
    }

    /// The server's metadata of a client or server error; `nil` for the others.
    public var metadata: ServerMetadata? {
        switch self {
        case .clientError(_, let metadata, _), .serverError(_, let metadata, _): metadata
        default: nil
        }
    }

    /// The response, for every case that has one; `nil` for transport-level failures.
    public var response: HTTPResponse? {
        switch self {
        case .clientError(_, _, let response), .serverError(_, _, let response),
             .unexpectedStatus(_, let response), .decodingFailed(_, let response):
            response
        case .transport, .timedOut, .cancelled, .authenticationFailed, .invalidRequest:
            nil
        }
    }

    /// Classifies a response by its status.
    ///
    /// - Returns: `nil` for a status in `accepted` (by default `200...299`);
    ///   ``clientError(statusCode:metadata:response:)`` for `400...499`;
    ///   ``serverError(statusCode:metadata:response:)`` for `500...599` (both with `parser`'s metadata);
    ///   ``unexpectedStatus(statusCode:response:)`` for anything else, a 2xx left out of `accepted` too.
    static func classify(
        _ response: HTTPResponse,
        accepted: StatusCodeSet = .successful,
        parser: @Sendable (HTTPResponse) -> ServerMetadata?
    ) -> NetworkError? {
        let statusCode = response.statusCode
        if accepted.contains(statusCode) { return nil }
        switch statusCode {
        case 400...499: return .clientError(statusCode: statusCode, metadata: parser(response), response: response)
        case 500...599: return .serverError(statusCode: statusCode, metadata: parser(response), response: response)
        default: return .unexpectedStatus(statusCode: statusCode, response: response)
        }
    }

    /// Maps an error from a transport (or from the promise machinery around it) to a `NetworkError`.
    ///
    /// A `NetworkError` passes through unchanged; `URLError.timedOut` and `PromiseError.timedOut` become
    /// ``timedOut``; `URLError.cancelled`, `CancellationError`, `PromiseError.cancelled` and any other
    /// cancellation (see `isCancellation(_:)`) become ``cancelled``; everything else is wrapped in
    /// ``transport(underlying:)``.
    static func fromTransport(_ error: any Error) -> NetworkError {
        switch error {
        case let error as NetworkError: return error
        case let error as URLError where error.code == .timedOut: return .timedOut
        case PromiseError.timedOut: return .timedOut
        case _ where isCancellation(error): return .cancelled
        default: return .transport(underlying: error)
        }
    }
}

extension NetworkError: CancellableError {
    /// `true` only for ``cancelled``.
    public var isCancelled: Bool {
        if case .cancelled = self { return true }
        return false
    }
}

extension NetworkError {
    /// The failure of a response whose body passes `limit` bytes (the client's
    /// `maximumResponseSize`), the same from every transport.
    static func responseTooLarge(limit: Int) -> NetworkError {
        .invalidRequest(reason: "response larger than \(limit) bytes")
    }
}

extension NetworkError {
    /// The same error, with no ``HTTPResponse/bodyFileURL`` in the response it carries: for an
    /// error about a download whose file is deleted.
    func withoutBodyFile() -> NetworkError {
        func stripped(_ response: HTTPResponse) -> HTTPResponse {
            var response = response
            response.bodyFileURL = nil
            return response
        }
        switch self {
        case .clientError(let status, let metadata, let response):
            return .clientError(statusCode: status, metadata: metadata, response: stripped(response))
        case .serverError(let status, let metadata, let response):
            return .serverError(statusCode: status, metadata: metadata, response: stripped(response))
        case .unexpectedStatus(let status, let response):
            return .unexpectedStatus(statusCode: status, response: stripped(response))
        case .decodingFailed(let underlying, let response):
            return .decodingFailed(underlying: underlying, response: stripped(response))
        case .transport, .timedOut, .cancelled, .authenticationFailed, .invalidRequest:
            return self
        }
    }
}
