import Foundation

/// A `JSONDecoder` or `JSONEncoder` kept where only `Sendable` values may be: in
/// ``NetworkClient/Configuration``, the request builder and the decoding closures.
///
/// `@unchecked Sendable`: Apple's SDKs declare both coders `Sendable` only from macOS 13,
/// iOS 16, tvOS 16 and watchOS 9, later than the oldest systems Courier supports, and without
/// this box every build for those systems would warn. What is missing there is the declaration, not
/// the safety Courier relies on: Courier only calls `decode` and `encode`, and each call copies
/// the coder's options when it starts and keeps its work in values of its own, so calls from
/// several threads share nothing that changes. Changing a coder's options while a client uses
/// it is the caller's race, on every system (``NetworkClient/Configuration/decoder`` says so).
struct SharedCoder<Coder: AnyObject>: @unchecked Sendable {
    /// The coder itself.
    let coder: Coder
}
