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
/// Custom strategies (`.custom { }` closures) and `userInfo` values are then also called from
/// several threads at once, as on the systems that declare the coders `Sendable`.
struct SharedCoder<Coder: SharableCoder>: @unchecked Sendable {
    /// The coder itself.
    let coder: Coder
}

/// The coders ``SharedCoder`` may hold; no other class can be boxed as `Sendable` by accident.
protocol SharableCoder: AnyObject {}

extension JSONDecoder: SharableCoder {}
extension JSONEncoder: SharableCoder {}
