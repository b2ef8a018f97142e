import Dispatch

/// One pending `map`/`done`/`then` step: the handler, its queue, the promise it settles, and
/// (once the upstream settles) the upstream result.
///
/// A job is its own observer and its own queue hop: the closures that capture it capture one
/// reference and nothing else, so they need no context allocation of their own. A step then
/// costs three allocations over its life (the child promise, this job, libdispatch's copy of
/// the hop block) instead of four.
///
/// `@unchecked Sendable`: `input` is written once, by `receive`, before the hop is queued, and
/// read only by `run` on `queue` after it; libdispatch orders the two. Everything else is `let`.
@usableFromInline
// @unchecked: `input` is written once before the hop and read after it (see above).
final class ChainJob<Input: Sendable, Output: Sendable>: @unchecked Sendable {
    @usableFromInline enum Handler: Sendable {
        case map(@Sendable (Input) throws -> Output)
        case then(@Sendable (Input) throws -> Promise<Output>)
    }

    @usableFromInline let child: Promise<Output>
    @usableFromInline let queue: DispatchQueue
    @usableFromInline let handler: Handler
    @usableFromInline var input: Result<Input, any Error>?

    @inlinable
    init(child: Promise<Output>, queue: DispatchQueue, handler: Handler) {
        self.child = child
        self.queue = queue
        self.handler = handler
    }

    /// Called once, on the settling thread, with the upstream result: hops to `queue`.
    @inlinable
    func receive(_ result: Result<Input, any Error>) {
        input = result
        queue.async(execute: run)
    }

    /// Runs the handler on `queue` (skipped when the child was cancelled meanwhile).
    @inlinable
    func run() {
        guard let input, child.isPending else { return }
        switch input {
        case .failure(let error):
            child._resolve(.failure(error))
        case .success(let value):
            do {
                switch handler {
                case .map(let body): child._resolve(.success(try body(value)))
                case .then(let body): child._adopt(try body(value))
                }
            } catch {
                child._resolve(.failure(error))
            }
        }
    }
}

extension Promise {
    /// Attaches a `map`-like or `then`-like step and returns the promise it settles.
    @inlinable
    func _step<U>(on queue: DispatchQueue, _ handler: ChainJob<Value, U>.Handler) -> Promise<U> {
        let child = Promise<U>(upstream: self)
        let job = ChainJob(child: child, queue: queue, handler: handler)
        _observe(.callback(job.receive))
        return child
    }
}
