import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransport {
    /// How ``URLSessionTransport`` answers an authentication challenge: a server's
    /// `WWW-Authenticate: Basic` on a `401`, a proxy's, or (on Apple platforms) a server's
    /// certificate to evaluate, for certificate or public-key pinning.
    public enum ChallengeAnswer {
        /// Answer with this credential: a user and password (`URLCredential(user:password:persistence:)`),
        /// a client certificate, or on Apple platforms `URLCredential(trust:)` for a server trust
        /// you evaluated and accept.
        case useCredential(URLCredential)
        /// What `URLSession` does without a handler. On Apple platforms: the system's trust
        /// evaluation for certificates, stored credentials for HTTP authentication, and otherwise
        /// the `401` as the response. On Linux: the `401` as the response (with its body, so the
        /// client reads the server's metadata and the authenticator may refresh).
        case performDefaultHandling
        /// Refuse: the request fails with ``NetworkError/authenticationFailed(underlying:)``
        /// whose underlying error is `URLError(.serverCertificateUntrusted)` for a server's
        /// certificate and `URLError(.userCancelledAuthentication)` otherwise. It is not retried.
        case cancel
    }

    /// Decides each authentication challenge of a ``URLSessionTransport``.
    ///
    /// It runs on the transport's delegate queue, which serves all of the transport's requests
    /// one callback at a time: answer quickly, without waiting for other work. It is not asked
    /// again once a challenge has failed ``maximumChallengeFailures`` times in a row
    /// (`challenge.previousFailureCount`); the transport then does the default handling, so a
    /// server that refuses every credential ends the request with its `401` instead of a loop.
    public typealias ChallengeHandler = @Sendable (URLAuthenticationChallenge) -> ChallengeAnswer

    /// How many failed answers to one challenge the ``ChallengeHandler`` may give before the
    /// transport stops asking it (5).
    public static let maximumChallengeFailures = 5
}

extension URLSessionTransportDelegate {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        let answer: URLSessionTransport.ChallengeAnswer
        if let challengeHandler, challenge.previousFailureCount < URLSessionTransport.maximumChallengeFailures {
            answer = challengeHandler(challenge)
        } else {
            answer = .performDefaultHandling
        }
        let identifier = task.taskIdentifier
        switch answer {
        case .useCredential(let credential):
            completionHandler(.useCredential, credential)
        case .cancel:
            let reason = URLError(Self.refusalCode(for: challenge))
            fail(identifier, with: .authenticationFailed(underlying: reason))
            completionHandler(.cancelAuthenticationChallenge, nil)
        case .performDefaultHandling:
            #if canImport(FoundationNetworking)
            // FoundationNetworking's default handling of a `Basic` challenge never ends the task
            // (it waits for ever), and it has already passed the whole 401 (head and body) to this
            // delegate: cancel the challenge and deliver that response when the task completes.
            tasks.withLock { $0[identifier]?.declinedChallenge = true }
            completionHandler(.cancelAuthenticationChallenge, nil)
            #else
            completionHandler(.performDefaultHandling, nil)
            #endif
        }
    }

    /// The code of the error a refused `challenge` fails its request with.
    private static func refusalCode(for challenge: URLAuthenticationChallenge) -> URLError.Code {
        #if canImport(FoundationNetworking)
        return .userCancelledAuthentication   // FoundationNetworking never asks about certificates
        #else
        let isServerTrust = challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust
        return isServerTrust ? .serverCertificateUntrusted : .userCancelledAuthentication
        #endif
    }

    /// `error`, unless it is the cancellation that follows a challenge this delegate declined
    /// (FoundationNetworking only): the response received before the challenge is then the answer.
    static func ignoringDeclinedChallenge(_ error: (any Error)?, of entry: Entry) -> (any Error)? {
        guard entry.declinedChallenge, let error, (error as? URLError)?.code == .cancelled else { return error }
        return nil
    }
}
