import Dispatch

/// Starts one promise per element with at most `limit` of them pending at any time, and waits
/// for all of them: PromiseKit's `when(fulfilled:concurrently:)`, for work such as "download
/// these 200 thumbnails, four at a time".
///
/// ```swift
/// when(fulfilled: photoIDs, concurrently: 4) { id in
///     client.request(Photos.thumbnail(id: id))
/// }.done { thumbnails in
///     show(thumbnails)                    // in the order of photoIDs
/// }
/// ```
///
/// - The values come back in the order of `elements`, whatever order the work finishes in.
/// - `body` runs on `queue`, never inside this call. Element *k* (counting from 1) with
///   *k > limit* starts only after *k − limit* earlier elements have fulfilled. On a concurrent
///   queue (the default) up to `limit` calls of `body` may run at the same time, not
///   necessarily in element order; pass a serial queue to call it one at a time.
/// - The first rejection (or a throw from `body`) rejects the result, cancels the promises
///   still pending and starts no more. A call of `body` already under way at that moment
///   still runs, and the promise it returns is cancelled.
/// - Cancelling the result cancels the promises still pending and starts no more (with the
///   same proviso).
/// - The inputs' promises are cancelled for everybody: don't hand out a shared or cached
///   promise you still need elsewhere. An input cancelled by someone else rejects the result
///   with ``PromiseError/cancelled``, as in ``when(fulfilled:)``.
///
/// - Parameters:
///   - elements: The inputs, read once, up front.
///   - limit: The most promises pending at once. A value below 1 counts as 1.
///   - queue: Where `body` runs. Default: ``Dispatch/DispatchQueue/promises``.
///   - body: Starts the work for one element.
/// - Returns: A promise of every value, in order; an empty `elements` fulfils with `[]`.
public func when<Element: Sendable, T: Sendable>(
    fulfilled elements: some Sequence<Element>,
    concurrently limit: Int,
    on queue: DispatchQueue = .promises,
    _ body: @escaping @Sendable (Element) throws -> Promise<T>
) -> Promise<[T]> {
    let inputs = Array(elements)
    guard !inputs.isEmpty else { return .value([]) }
    let result = Promise<[T]>(upstream: nil)
    let run = BoundedWhen(inputs, queue: queue, body: body, result: result)
    result._addCancelHook { run.stop(with: nil) }
    for _ in 0..<min(max(limit, 1), inputs.count) {
        queue.async { run.startNext() }
    }
    return result
}

/// The state of one ``when(fulfilled:concurrently:on:_:)``: which element starts next and the
/// promises pending; the values collected so far are in a `WhenCollector`, as for `when(fulfilled:)`.
// @unchecked: the mutable state lives in `state`, read and written only under its lock, and in
// `values`, which has its own; every other stored property is a constant of a `Sendable` type.
final class BoundedWhen<Element: Sendable, T: Sendable>: @unchecked Sendable {
    struct State: Sendable {
        var next = 0
        var pending: [Int: Promise<T>] = [:]
        var isOver = false
    }

    let elements: [Element]
    let queue: DispatchQueue
    let body: @Sendable (Element) throws -> Promise<T>
    let result: Promise<[T]>
    let values: WhenCollector<T>
    let state = Locked(State())

    init(
        _ elements: [Element], queue: DispatchQueue,
        body: @escaping @Sendable (Element) throws -> Promise<T>, result: Promise<[T]>
    ) {
        self.elements = elements
        self.queue = queue
        self.body = body
        self.result = result
        values = WhenCollector(count: elements.count)
    }

    /// Runs on `queue`: starts the next element, unless none is left or the whole is over.
    func startNext() {
        let index = state.withLock { state -> Int? in
            guard !state.isOver, state.next < elements.count else { return nil }
            defer { state.next += 1 }
            return state.next
        }
        guard let index else { return }
        let promise: Promise<T>
        do {
            promise = try body(elements[index])
        } catch {
            stop(with: error)
            return
        }
        let accepted = state.withLock { state -> Bool in
            guard !state.isOver else { return false }
            state.pending[index] = promise
            return true
        }
        guard accepted else {
            promise.cancel()
            return
        }
        promise._observe(.callback { [self] outcome in finish(index, outcome) })
    }

    /// Called on the settling thread when element `index`'s promise settles.
    func finish(_ index: Int, _ outcome: Result<T, any Error>) {
        switch outcome {
        case .failure(let error):
            stop(with: error)
        case .success(let value):
            state.withLock { $0.pending[index] = nil }
            if let all = values.store(value, at: index) {
                result._resolveNested(.success(all))  // every element done: nothing left to start
            } else {
                queue.async { [self] in startNext() }
            }
        }
    }

    /// Ends the whole: rejects the result with `error` (`nil`: the result was cancelled, and is
    /// already rejected) and cancels the promises still pending. Only the first call acts.
    func stop(with error: (any Error)?) {
        let pending = state.withLock { state -> [Promise<T>]? in
            guard !state.isOver else { return nil }
            state.isOver = true
            defer { state.pending = [:] }
            return Array(state.pending.values)
        }
        guard let pending else { return }
        if let error { result._resolveNested(.failure(error)) }
        for promise in pending { promise.cancel() }
    }
}
