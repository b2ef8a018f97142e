import Foundation

/// The mutable part of a `when`: results collected so far, under a lock.
///
/// `@unchecked Sendable`: its only stored property is a lock-box.
@usableFromInline
// @unchecked: the mutable state is inside the lock-box; the other properties are constants.
final class WhenCollector<T: Sendable>: @unchecked Sendable {
    @usableFromInline struct State: Sendable {
        @usableFromInline var values: [T?]
        @usableFromInline var remaining: Int

        @inlinable init(values: [T?], remaining: Int) {
            self.values = values
            self.remaining = remaining
        }
    }
    @usableFromInline let state: Locked<State>

    @usableFromInline let result: Promise<[T]>?
    @usableFromInline let promises: [Promise<T>]

    @inlinable
    init(count: Int) {
        result = nil
        promises = []
        state = Locked(State(values: Array(repeating: nil, count: count), remaining: count))
    }

    @inlinable
    init(result: Promise<[T]>, promises: [Promise<T>]) {
        self.result = result
        self.promises = promises
        state = Locked(State(values: Array(repeating: nil, count: promises.count), remaining: promises.count))
    }

    /// Takes input `index`'s outcome: stores a value, or rejects the result and cancels the rest.
    @inlinable
    func receive(_ outcome: Result<T, any Error>, at index: Int) {
        switch outcome {
        case .success(let value):
            if let values = store(value, at: index) { result?._resolveNested(.success(values)) }
        case .failure(let error):
            if result?._resolveNested(.failure(error)) == true {
                let failed = promises[index]
                for other in promises where other !== failed { other.cancel() }
            }
        }
    }

    /// Stores `value` at `index`; returns every value, in order, once the last one arrived.
    @inlinable
    func store(_ value: T, at index: Int) -> [T]? {
        state.withLock { state -> [T]? in
            state.values[index] = value
            state.remaining -= 1
            guard state.remaining == 0 else { return nil }
            return state.values.compactMap { $0 }
        }
    }
}

/// Waits for every promise to fulfil and gives their values in the order given.
///
/// The first rejection rejects the result at once and cancels the promises still pending.
/// Cancelling the result cancels them all. An empty array fulfils with `[]`.
///
/// ```swift
/// when(fulfilled: ids.map { client.request(Users.detail(id: $0)) }).done { users in … }
/// ```
@inlinable
public func when<T>(fulfilled promises: [Promise<T>]) -> Promise<[T]> {
    guard !promises.isEmpty else { return .value([]) }
    let result = Promise<[T]>(upstream: nil)
    let collector = WhenCollector<T>(result: result, promises: promises)
    result._addCancelHook { for promise in promises { promise.cancel() } }
    for index in promises.indices {
        promises[index]._observe(.collect(collector, index))
    }
    return result
}

/// Waits for two promises to fulfil; the first rejection rejects and cancels the other.
///
/// ```swift
/// when(fulfilled: client.request(Users.me), client.request(Settings.current)).done { user, settings in … }
/// ```
public func when<A, B>(fulfilled a: Promise<A>, _ b: Promise<B>) -> Promise<(A, B)> {
    when(fulfilled: [a._erased(), b._erased()]).map(on: .promises) { values in
        (try _element(values, 0), try _element(values, 1))
    }
}

/// Waits for three promises to fulfil; the first rejection rejects and cancels the others.
public func when<A, B, C>(fulfilled a: Promise<A>, _ b: Promise<B>, _ c: Promise<C>) -> Promise<(A, B, C)> {
    when(fulfilled: [a._erased(), b._erased(), c._erased()]).map(on: .promises) { values in
        (try _element(values, 0), try _element(values, 1), try _element(values, 2))
    }
}

/// Waits for four promises to fulfil; the first rejection rejects and cancels the others.
public func when<A, B, C, D>(
    fulfilled a: Promise<A>, _ b: Promise<B>, _ c: Promise<C>, _ d: Promise<D>
) -> Promise<(A, B, C, D)> {
    when(fulfilled: [a._erased(), b._erased(), c._erased(), d._erased()]).map(on: .promises) { values in
        (try _element(values, 0), try _element(values, 1), try _element(values, 2), try _element(values, 3))
    }
}

/// Waits for five promises to fulfil; the first rejection rejects and cancels the others.
public func when<A, B, C, D, E>(
    fulfilled a: Promise<A>, _ b: Promise<B>, _ c: Promise<C>, _ d: Promise<D>, _ e: Promise<E>
) -> Promise<(A, B, C, D, E)> {
    when(fulfilled: [a._erased(), b._erased(), c._erased(), d._erased(), e._erased()]).map(on: .promises) { values in
        (try _element(values, 0), try _element(values, 1), try _element(values, 2), try _element(values, 3),
         try _element(values, 4))
    }
}

/// Element `index` of a tuple-form `when`'s erased values, as the type its promise had. The
/// types always match (each value came from the promise at that position); a mismatch would be
/// a bug here, reported as a rejection rather than a trap.
func _element<T>(_ values: [any Sendable], _ index: Int) throws -> T {
    guard let value = values[index] as? T else { throw PromiseError.resolverReleased }
    return value
}

/// Waits for every promise to settle and gives each result, in order. Never rejects
/// (unless it is cancelled itself, which cancels the inputs).
///
/// ```swift
/// when(resolved: uploads).done { results in
///     let failed = results.filter { if case .failure = $0 { true } else { false } }
/// }
/// ```
@inlinable
public func when<T>(resolved promises: [Promise<T>]) -> Promise<[Result<T, any Error>]> {
    guard !promises.isEmpty else { return .value([]) }
    let result = Promise<[Result<T, any Error>]>(upstream: nil)
    let collector = WhenCollector<Result<T, any Error>>(count: promises.count)
    result._addCancelHook { for promise in promises { promise.cancel() } }
    for (index, promise) in promises.enumerated() {
        promise._observe(.callback { outcome in
            if let all = collector.store(outcome, at: index) { result._resolveNested(.success(all)) }
        })
    }
    return result
}

/// ``when(resolved:)-([Promise<T>])`` over promises written out one by one, as PromiseKit's
/// variadic form takes them.
///
/// ```swift
/// when(resolved: upload, thumbnail).done { results in print(results.count) }   // 2
/// ```
///
/// - Parameter promises: The promises to wait for.
/// - Returns: Each promise's result, in the order given; it never rejects unless cancelled.
public func when<T>(resolved promises: Promise<T>...) -> Promise<[Result<T, any Error>]> {
    when(resolved: promises)
}

/// The first of `promises` to settle decides the result; the others are then cancelled.
/// An empty array rejects with ``PromiseError/emptyRace``.
///
/// ```swift
/// race([client.request(Mirror.a), client.request(Mirror.b)]).done { fastest in … }
/// ```
@inlinable
public func race<T>(_ promises: [Promise<T>]) -> Promise<T> {
    guard !promises.isEmpty else { return Promise(error: PromiseError.emptyRace) }
    let result = Promise<T>(upstream: nil)
    result._addCancelHook { for promise in promises { promise.cancel() } }
    for promise in promises {
        promise._observe(.callback { outcome in
            if result._resolveNested(outcome) {
                for other in promises where other !== promise { other.cancel() }
            }
        })
    }
    return result
}

/// The first of the promises to settle decides the result; the others are then cancelled.
public func race<T>(_ first: Promise<T>, _ others: Promise<T>...) -> Promise<T> {
    race([first] + others)
}

/// The first of `promises` to *fulfil* wins, and the others are then cancelled; rejections
/// only count once every promise has rejected, and then the result rejects with the error of
/// the last one to reject. An empty array rejects with ``PromiseError/emptyRace``.
///
/// Use it for redundant sources where any answer will do:
///
/// ```swift
/// race(fulfilled: [client.request(Mirror.a), client.request(Mirror.b)]).done { config in … }
/// ```
///
/// Cancelling the result cancels every promise. If the last input to reject was cancelled (by
/// someone else), the result rejects with that cancellation error.
public func race<T>(fulfilled promises: [Promise<T>]) -> Promise<T> {
    guard !promises.isEmpty else { return Promise(error: PromiseError.emptyRace) }
    let result = Promise<T>(upstream: nil)
    let failures = WhenCollector<Void>(count: promises.count)
    result._addCancelHook { for promise in promises { promise.cancel() } }
    for (index, promise) in promises.enumerated() {
        promise._observe(.callback { outcome in
            switch outcome {
            case .success:
                if result._resolveNested(outcome) {
                    for other in promises where other !== promise { other.cancel() }
                }
            case .failure(let error):
                if failures.store((), at: index) != nil { result._resolveNested(.failure(error)) }
            }
        })
    }
    return result
}

extension Promise {
    /// The same outcome with the value type erased, settled inline (internal plumbing for `when`).
    func _erased() -> Promise<any Sendable> {
        let child = Promise<any Sendable>(upstream: self)
        _observe(.callback { result in child._resolveNested(result.map { $0 as any Sendable }) })
        return child
    }
}
