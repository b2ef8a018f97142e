import Dispatch

extension Promise where Value: Sequence, Value.Element: Sendable {
    /// Folds the elements into one value, one asynchronous step at a time: each step starts
    /// when the previous one has fulfilled, and receives its value.
    ///
    /// For work that must happen in order, such as uploading the parts of a file one after
    /// another and keeping a running total, or applying a list of migrations:
    ///
    /// ```swift
    /// Promise.value(parts)                             // Promise<[Part]>
    ///     .reduce(0) { uploaded, part in
    ///         client.request(Upload(part)).map { _ in uploaded + part.size }
    ///     }
    ///     .done { total in print("uploaded \(total) bytes") }
    /// ```
    ///
    /// The sequence is read whole when this promise fulfils (an endless sequence never
    /// starts a step). An empty sequence fulfils with `initialResult`. The steps are started one by one, not
    /// chained up front, so a sequence of any length runs in constant stack and memory beyond
    /// the elements themselves. (To start them all at once, use ``thenMap(on:_:)-(DispatchQueue,_)``;
    /// a few at a time, ``when(fulfilled:concurrently:on:_:)-(_,_,DispatchQueue,_)``.)
    ///
    /// - Parameters:
    ///   - queue: Where `nextPartialResult` runs, each time never inside the call that attached
    ///     it nor inside the previous step's `fulfill`. Default: ``Dispatch/DispatchQueue/promises``.
    ///   - initialResult: The value the first step receives.
    ///   - nextPartialResult: Starts the step for one element, given the value of the step
    ///     before (or `initialResult`). A throw, or a rejected step, rejects the result and no
    ///     further step starts.
    /// - Returns: A promise of the last step's value. Cancelling it cancels this promise while
    ///   it is pending, then the step that is running, and no further step starts.
    public func reduce<U: Sendable>(
        on queue: DispatchQueue = .promises,
        _ initialResult: U,
        _ nextPartialResult: @escaping @Sendable (U, Value.Element) throws -> Promise<U>
    ) -> Promise<U> {
        then(on: queue) { values in
            let result = Promise<U>(upstream: nil)
            ReduceLoop(result: result, elements: Array(values), queue: queue, next: nextPartialResult)
                .step(at: 0, partial: initialResult)
            return result
        }
    }
}

/// One `reduce` in progress: each step becomes `result`'s upstream while it runs, so that
/// cancelling `result` cancels it; the next step is started from `queue`, never from inside the
/// previous step's settlement (no recursion, whatever the length).
private struct ReduceLoop<Element: Sendable, U: Sendable>: Sendable {
    let result: Promise<U>
    let elements: [Element]
    let queue: DispatchQueue
    let next: @Sendable (U, Element) throws -> Promise<U>

    func step(at index: Int, partial: U) {
        guard result.isPending else { return }  // cancelled between two steps
        guard index < elements.count else {
            result._resolve(.success(partial))
            return
        }
        let current: Promise<U>
        do {
            current = try next(partial, elements[index])
        } catch {
            result._resolve(.failure(error))
            return
        }
        guard result._setUpstream(current) else {
            current.cancel()  // the result was cancelled while this step was starting
            return
        }
        current._observe(.callback { outcome in
            switch outcome {
            case .success(let value):
                queue.async { step(at: index + 1, partial: value) }
            case .failure:
                result._resolveNested(outcome)
            }
        })
    }
}
