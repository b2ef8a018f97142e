import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransport {
    /// How ``URLSessionTransport`` answers an authentication challenge: a server's
    /// `WWW-Authenticate: Basic` on a `401`, and on Apple platforms also a proxy's, other HTTP
    /// schemes, and the server's certificate to evaluate (certificate or public-key pinning).
    /// FoundationNetworking on Linux raises a challenge only for a `401` with a `Basic` challenge
    /// that names a realm; every other `401` and `407` arrives as a response.
    ///
    /// **Linux.** FoundationNetworking answers a credential by sending the request it started
    /// with again, so the transport uses a credential only when that is still the same request:
    /// not after a redirect (the credential would go to the first URL), not for a body streamed
    /// from an `InputStream` (it would arrive empty), and not for a ``NetworkClient/stream(_:)``
    /// request whose endpoint accepted the `401` (its head was already handed out). In those cases
    /// the `401` is delivered, as with ``performDefaultHandling``. A redirect after a credential was
    /// accepted fails the request with ``NetworkError/invalidRequest(reason:)``, because
    /// FoundationNetworking would send the original request again instead of following it.
    public enum ChallengeAnswer {
        /// Answer with this credential: a user and password (`URLCredential(user:password:persistence:)`),
        /// or on Apple platforms a client certificate or `URLCredential(trust:)` for a server trust
        /// you evaluated and accept. On Linux, see the rules above.
        case useCredential(URLCredential)
        /// What `URLSession` does without a handler. On Apple platforms: the system's trust
        /// evaluation for certificates, stored credentials for HTTP authentication, and otherwise
        /// the `401` as the response. On Linux: the `401` as the response (with its body, so the
        /// client reads the server's metadata and the authenticator may refresh).
        case performDefaultHandling
        /// Refuse: the request fails with ``NetworkError/authenticationFailed(underlying:)``
        /// whose underlying error is `URLError(.serverCertificateUntrusted)` for a server's
        /// certificate and `URLError(.userCancelledAuthentication)` otherwise. No ``RetryPolicy``
        /// retries it; request retriers (``RequestRetrier``) are still asked.
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
        let identifier = task.taskIdentifier
        guard let state = tasks.withLock({ $0[identifier] }).map(ChallengedTask.init), !state.failed else {
            // Nobody waits for this task's answer any more (a rule failed it, or it is unknown).
            return completionHandler(.cancelAuthenticationChallenge, nil)
        }
        var answer = URLSessionTransport.ChallengeAnswer.performDefaultHandling
        if let challengeHandler, challenge.previousFailureCount < URLSessionTransport.maximumChallengeFailures {
            answer = challengeHandler(challenge)
        }
        #if canImport(FoundationNetworking)
        if case .useCredential = answer, !state.canBeResent(task) { answer = .performDefaultHandling }
        #endif
        // The answer is given under the request's handle lock, and not at all once it was
        // cancelled: FoundationNetworking answers a credential by suspending and resuming the
        // task, and a cancel landing in between makes it trap ("NativeProtocol.swift:69: Fatal
        // error", seen under AddressSanitizer). A cancelled task ends as cancelled without it.
        let reply = { (disposition: URLSession.AuthChallengeDisposition, credential: URLCredential?) in
            Self.answer(through: state.handle) { completionHandler(disposition, credential) }
        }
        switch answer {
        case .useCredential(let credential):
            let sent = task.countOfBytesSent
            tasks.withLock { tasks in
                tasks[identifier]?.answeredWithCredential = true
                tasks[identifier]?.sentBeforeCredential = sent
            }
            reply(.useCredential, credential)
        case .cancel:
            let reason = URLError(Self.refusalCode(for: challenge))
            fail(identifier, with: .authenticationFailed(underlying: reason))
            reply(.cancelAuthenticationChallenge, nil)
        case .performDefaultHandling:
            #if canImport(FoundationNetworking)
            // FoundationNetworking's default handling of a `Basic` challenge never ends the task
            // (it waits for ever), and it has already passed the whole 401 (head and body) to this
            // delegate: cancel the challenge and deliver that response when the task completes.
            tasks.withLock { $0[identifier]?.declinedChallenge = true }
            reply(.cancelAuthenticationChallenge, nil)
            #else
            reply(.performDefaultHandling, nil)
            #endif
        }
    }

    /// What the challenge callback needs to know about its task.
    private struct ChallengedTask {
        let failed: Bool
        let streaming: Bool
        let redirected: Bool
        let handle: TaskHandle?

        init(_ entry: Entry) {
            failed = entry.failure != nil
            streaming = entry.streaming
            redirected = entry.redirected
            handle = entry.handle
        }

        /// Whether FoundationNetworking can resend `task` with a credential as it was sent: it
        /// resends the *original* request (so not after a redirect, where the credential would go
        /// to the first URL and every later redirect would bring that request back), a body from
        /// a stream arrives empty the second time (an upload task's file is read again), and a
        /// head already handed to a stream cannot be taken back.
        func canBeResent(_ task: URLSessionTask) -> Bool {
            !streaming && !redirected && task.originalRequest?.httpBodyStream == nil
        }
    }

    /// `decision`, unless it follows a redirect after a challenge was answered with a credential
    /// on FoundationNetworking, which would send the original request again instead (up to its
    /// redirect limit, each time with the credential).
    static func checkingAnsweredChallenge(_ decision: RedirectRule.Decision, answeredWithCredential: Bool) -> RedirectRule.Decision {
        #if canImport(FoundationNetworking)
        if case .follow = decision, answeredWithCredential {
            return .refuse(.invalidRequest(
                reason: "a redirect after an answered authentication challenge is not followed (FoundationNetworking would send the original request again)"))
        }
        #endif
        return decision
    }

    /// Calls `reply` (a delegate's completion handler) through `handle`, so not at all once its
    /// request was cancelled (see ``TaskHandle/answerUnlessCancelled(_:)``); directly without one.
    static func answer(through handle: TaskHandle?, _ reply: () -> Void) {
        if let handle { _ = handle.answerUnlessCancelled(reply) } else { reply() }
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
