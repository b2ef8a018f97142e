import Dispatch

/// One pending `map`/`done`/`then` step: the handler, its queue, the promise it reads and the
/// promise it settles.
///
/// A job is its own observer and its own queue hop: the closures that capture it capture one
/// reference and nothing else, so they need no context allocation of their own. A step then
/// costs two allocations over its life (the child promise and this job), plus libdispatch's
/// copy of the hop block when it does not join a `StepBatch`. The job keeps no copy of the upstream result: `run` reads it from `parent`,
/// which has settled by then, so the job's stored properties all have a fixed layout and
/// releasing it needs no generic metadata.
///
/// `@unchecked Sendable`: every stored property is a constant of a `Sendable` type; the class
/// is not declared `Sendable` only because its generic parameters are not known to be.
@usableFromInline
// @unchecked: all stored properties are `let` constants of Sendable types (see above).
final class ChainJob<Input: Sendable, Output: Sendable>: @unchecked Sendable {
    @usableFromInline enum Handler: Sendable {
        case map(@Sendable (Input) throws -> Output)
        case then(@Sendable (Input) throws -> Promise<Output>)
    }

    @usableFromInline let parent: Promise<Input>
    @usableFromInline let child: Promise<Output>
    @usableFromInline let queue: DispatchQueue
    @usableFromInline let handler: Handler

    @inlinable
    init(parent: Promise<Input>, child: Promise<Output>, queue: DispatchQueue, handler: Handler) {
        self.parent = parent
        self.child = child
        self.queue = queue
        self.handler = handler
    }

    /// Called once, on the settling thread, when `parent` has settled: joins the settling
    /// thread's `StepBatch` when that batch runs on `queue`, otherwise hops to `queue`.
    @inlinable
    func receive(_: Result<Input, any Error>) {
        if !StepBatch.append(run, on: queue) {
            queue.async(execute: runInNewBatch)
        }
    }

    @inlinable
    func runInNewBatch() {
        StepBatch.run(on: queue, run)
    }

    /// Runs the handler on `queue` (skipped when the child was cancelled meanwhile), then
    /// settles the child; when the child's only observer is the next step on the same queue,
    /// that step joins `batch` (see `StepBatch`).
    @inlinable
    func run(in batch: UnsafeMutablePointer<StepBatch>) {
        guard child.isPending, let input = parent.result else { return }
        switch input {
        case .failure(let error):
            child._resolve(.failure(error), fromStepIn: batch)
        case .success(let value):
            switch handler {
            case .map(let body):
                child._resolve(Result { try body(value) }, fromStepIn: batch)
            case .then(let body):
                // The adopted promise settles the child later, maybe on another thread: no batch.
                do { child._adopt(try body(value)) } catch { child._resolve(.failure(error)) }
            }
        }
    }
}

extension Promise {
    /// Attaches a `map`-like or `then`-like step and returns the promise it settles.
    @inlinable
    func _step<U>(on queue: DispatchQueue, _ handler: ChainJob<Value, U>.Handler) -> Promise<U> {
        let child = Promise<U>(upstream: self)
        let job = ChainJob(parent: self, child: child, queue: queue, handler: handler)
        _observe(.callback(job.receive), isStep: true)
        return child
    }
}
