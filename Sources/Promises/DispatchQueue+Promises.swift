import Dispatch

extension DispatchQueue {
    /// The queue promise handlers run on when no `on:` queue is given:
    /// the global concurrent queue of quality of service `.default`.
    ///
    /// It is never the main queue: command-line programs and servers on Linux never
    /// service the main queue unless they call `dispatchMain()`, and apps should opt in
    /// to main-thread handlers explicitly with `on: .main`. Because it is concurrent,
    /// handlers attached to the same promise may run in parallel; pass a serial queue
    /// when their order matters.
    public static let promises: DispatchQueue = .global(qos: .default)
}

/// The marker that selects the promise-returning ``Dispatch/DispatchQueue/async(_:execute:)``:
/// `queue.async(.promise) { … }`, as in PromiseKit.
public enum PromiseNamespace: Sendable {
    /// Selects the promise-returning `async`.
    case promise
}

extension DispatchQueue {
    /// Runs `body` on this queue and returns a promise of its result (PromiseKit's
    /// `async(.promise)`): for moving work such as decoding or image processing off the
    /// caller's thread and into a chain.
    ///
    /// ```swift
    /// DispatchQueue.global(qos: .userInitiated).async(.promise) {
    ///     try JSONDecoder().decode(Catalogue.self, from: cachedData)
    /// }.done(on: .main) { catalogue in
    ///     show(catalogue)
    /// }
    /// ```
    ///
    /// Cancelling the promise before `body` starts means it never runs; once it runs, it runs to
    /// the end (its result is then ignored).
    ///
    /// - Parameters:
    ///   - _: `.promise`.
    ///   - body: The work; a throw rejects the promise.
    /// - Returns: A promise of `body`'s result.
    public func async<T: Sendable>(_: PromiseNamespace, execute body: @escaping @Sendable () throws -> T) -> Promise<T> {
        let (promise, resolver) = Promise<T>.pending()
        async {
            guard resolver.isPending else { return }   // cancelled before it ran
            do {
                resolver.fulfill(try body())
            } catch {
                resolver.reject(error)
            }
        }
        return promise
    }
}
