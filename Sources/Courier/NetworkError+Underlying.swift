import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension NetworkError {
    /// The error underneath: the transport's for ``transport(underlying:)``, the decoder's (or the
    /// file system's) for ``decodingFailed(underlying:response:)``, the refresh's or the refused
    /// challenge's for ``authenticationFailed(underlying:)``; `nil` for the other cases (Alamofire's
    /// `AFError.underlyingError`).
    public var underlyingError: (any Error)? {
        switch self {
        case .transport(let underlying), .decodingFailed(let underlying, _), .authenticationFailed(let underlying):
            underlying
        case .clientError, .serverError, .unexpectedStatus, .timedOut, .cancelled, .invalidRequest:
            nil
        }
    }

    /// The `URLError` underneath, when the ``underlyingError`` is one (or an `NSError` in
    /// `NSURLErrorDomain`, as some transports report it, converted); `nil` otherwise.
    ///
    /// Code that caught `URLError` from a raw `URLSession` call finds it here, wrapped in
    /// ``transport(underlying:)`` (or, for a refused authentication challenge, in
    /// ``authenticationFailed(underlying:)``). A `URLError` timeout or cancellation is not
    /// wrapped: it becomes ``timedOut`` or ``cancelled``. An `NSError` with a code that
    /// FoundationNetworking's `URLError.Code` does not know gives `nil` on Linux; Apple platforms
    /// convert any code.
    ///
    /// ```swift
    /// } catch let error as NetworkError where error.urlError?.code == .secureConnectionFailed {
    ///     showTLSProblem()
    /// }
    /// ```
    public var urlError: URLError? {
        guard let underlying = underlyingError else { return nil }
        if let urlError = underlying as? URLError { return urlError }
        guard let code = RetryPolicy.urlErrorCode(of: underlying) else { return nil }
        return URLError(code, userInfo: (underlying as NSError).userInfo)
    }

    /// `true` when the request failed because the server could not be reached at all: no
    /// network, the connection was lost, the host could not be found or connected to. An app
    /// shows "you're offline" for these, and a "try again" rather than an error report.
    ///
    /// It is a ``transport(underlying:)`` failure whose ``urlError`` has one of the codes in
    /// ``connectivityFailureCodes``. A deadline (``timedOut``), a TLS failure or an HTTP status
    /// is not one.
    ///
    /// ```swift
    /// client.request(Feed.latest).catch(on: .mainActor) { error in
    ///     if (error as? NetworkError)?.isConnectivityFailure == true { banner.show("You're offline") }
    /// }
    /// ```
    public var isConnectivityFailure: Bool {
        guard case .transport = self, let code = urlError?.code else { return false }
        return Self.connectivityFailureCodes.contains(code)
    }

    /// The `URLError` codes ``isConnectivityFailure`` counts: `.notConnectedToInternet`,
    /// `.networkConnectionLost`, `.cannotFindHost`, `.cannotConnectToHost`, `.dnsLookupFailed`,
    /// `.internationalRoamingOff`, `.dataNotAllowed` and `.callIsActive`.
    public static let connectivityFailureCodes: Set<URLError.Code> = [
        .notConnectedToInternet, .networkConnectionLost, .cannotFindHost, .cannotConnectToHost,
        .dnsLookupFailed, .internationalRoamingOff, .dataNotAllowed, .callIsActive,
    ]
}
