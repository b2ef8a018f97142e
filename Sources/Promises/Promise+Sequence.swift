import Dispatch

/// Helpers for promises of collections, as PromiseKit users know them: transform, filter,
/// sort or pick the elements without unpacking the array in a `map` of your own.
///
/// ```swift
/// client.request(Users.list)                       // Promise<[User]>
///     .filterValues { $0.isActive }
///     .mapValues(\.id)
///     .thenMap { id in client.request(Users.avatar(id: id)) }
///     .done { avatars in show(avatars) }
/// ```
///
/// Every handler runs like a `map` handler: on the `on:` queue (default
/// ``Dispatch/DispatchQueue/promises``), never inside the call that attached it; a throw
/// rejects the returned promise; cancelling the returned promise cancels this one.
extension Promise where Value: Sequence, Value.Element: Sendable {
    /// Transforms each element, keeping the order.
    ///
    /// - Parameters:
    ///   - queue: Where `transform` runs. Default: ``Dispatch/DispatchQueue/promises``.
    ///   - transform: Called once per element; a throw rejects the returned promise.
    /// - Returns: A promise of the transformed elements.
    public func mapValues<U: Sendable>(
        on queue: DispatchQueue = .promises,
        _ transform: @escaping @Sendable (Value.Element) throws -> U
    ) -> Promise<[U]> {
        map(on: queue) { try $0.map(transform) }
    }

    /// Transforms each element and drops the `nil` results, keeping the order.
    ///
    /// - Parameters:
    ///   - queue: Where `transform` runs. Default: ``Dispatch/DispatchQueue/promises``.
    ///   - transform: Called once per element; `nil` leaves the element out.
    /// - Returns: A promise of the non-`nil` results.
    public func compactMapValues<U: Sendable>(
        on queue: DispatchQueue = .promises,
        _ transform: @escaping @Sendable (Value.Element) throws -> U?
    ) -> Promise<[U]> {
        map(on: queue) { try $0.compactMap(transform) }
    }

    /// Transforms each element into a sequence and joins the results, keeping the order.
    ///
    /// - Parameters:
    ///   - queue: Where `transform` runs. Default: ``Dispatch/DispatchQueue/promises``.
    ///   - transform: Called once per element.
    /// - Returns: A promise of every element of every returned sequence.
    public func flatMapValues<S: Sequence & Sendable>(
        on queue: DispatchQueue = .promises,
        _ transform: @escaping @Sendable (Value.Element) throws -> S
    ) -> Promise<[S.Element]> where S.Element: Sendable {
        map(on: queue) { try $0.flatMap(transform) }
    }

    /// Keeps the elements for which `isIncluded` returns `true`, in order.
    ///
    /// - Parameters:
    ///   - queue: Where `isIncluded` runs. Default: ``Dispatch/DispatchQueue/promises``.
    ///   - isIncluded: Called once per element.
    /// - Returns: A promise of the kept elements.
    public func filterValues(
        on queue: DispatchQueue = .promises,
        _ isIncluded: @escaping @Sendable (Value.Element) throws -> Bool
    ) -> Promise<[Value.Element]> {
        map(on: queue) { try $0.filter(isIncluded) }
    }

    /// The first element; an empty sequence rejects with ``PromiseError/emptySequence``
    /// (PromiseKit's `firstValue`). Taken on ``Dispatch/DispatchQueue/promises``.
    public var firstValue: Promise<Value.Element> {
        firstValue(where: { _ in true })
    }

    /// The first element that satisfies `predicate`; when none does (or the sequence is empty),
    /// the promise rejects with ``PromiseError/emptySequence``.
    ///
    /// - Parameters:
    ///   - queue: Where `predicate` runs. Default: ``Dispatch/DispatchQueue/promises``.
    ///   - predicate: Called on the elements in order until it returns `true`.
    public func firstValue(
        on queue: DispatchQueue = .promises,
        where predicate: @escaping @Sendable (Value.Element) throws -> Bool
    ) -> Promise<Value.Element> {
        map(on: queue) { values in try Self.first(of: values, where: predicate) }
    }

    /// `firstValue(where:)`'s work: the first match, or ``PromiseError/emptySequence``.
    static func first(of values: Value, where predicate: (Value.Element) throws -> Bool) throws -> Value.Element {
        guard let first = try values.first(where: predicate) else { throw PromiseError.emptySequence }
        return first
    }

    /// Starts one promise per element, all at once, and waits for all of them, as
    /// `when(fulfilled:)` does: the values come back in the order of the elements, and the
    /// first rejection rejects the result and cancels the others.
    ///
    /// To start at most a few at a time, use ``when(fulfilled:concurrently:on:_:)-(_,_,DispatchQueue,_)``.
    ///
    /// - Parameters:
    ///   - queue: Where `transform` runs. Default: ``Dispatch/DispatchQueue/promises``.
    ///   - transform: Starts the work for one element. A throw rejects the result and cancels
    ///     the promises already started.
    /// - Returns: A promise of every value, in order.
    public func thenMap<U: Sendable>(
        on queue: DispatchQueue = .promises,
        _ transform: @escaping @Sendable (Value.Element) throws -> Promise<U>
    ) -> Promise<[U]> {
        then(on: queue) { values in try Self.startEach(of: values, transform) }
    }

    /// Starts one promise of a sequence per element, as ``thenMap(on:_:)-(DispatchQueue,_)``
    /// does, and joins their values in the order of the elements (PromiseKit's `thenFlatMap`).
    ///
    /// ```swift
    /// client.request(Authors.all)                      // Promise<[Author]>
    ///     .thenFlatMap { author in client.request(Books.by(author.id)) }   // each a Promise<[Book]>
    ///     .done { books in show(books) }               // every book, author by author
    /// ```
    ///
    /// - Parameters:
    ///   - queue: Where `transform` runs. Default: ``Dispatch/DispatchQueue/promises``.
    ///   - transform: Starts the work for one element. A throw, or the first rejection, rejects
    ///     the result and cancels the promises already started.
    /// - Returns: A promise of every element of every sequence, in order.
    public func thenFlatMap<S: Sequence & Sendable>(
        on queue: DispatchQueue = .promises,
        _ transform: @escaping @Sendable (Value.Element) throws -> Promise<S>
    ) -> Promise<[S.Element]> where S.Element: Sendable {
        thenMap(on: queue, transform).map(on: queue) { $0.flatMap { $0 } }
    }

    /// `thenMap`'s work: one promise per element, all of them awaited; a throw cancels the ones
    /// already started.
    static func startEach<U: Sendable>(
        of values: Value, _ transform: (Value.Element) throws -> Promise<U>
    ) throws -> Promise<[U]> {
        var started: [Promise<U>] = []
        do {
            for value in values { started.append(try transform(value)) }
        } catch {
            for promise in started { promise.cancel() }
            throw error
        }
        return when(fulfilled: started)
    }
}

extension Promise where Value: BidirectionalCollection, Value.Element: Sendable {
    /// The last element; an empty collection rejects with ``PromiseError/emptySequence``
    /// (PromiseKit's `lastValue`). Taken on ``Dispatch/DispatchQueue/promises``.
    public var lastValue: Promise<Value.Element> {
        map(on: .promises) { values in
            guard let last = values.last else { throw PromiseError.emptySequence }
            return last
        }
    }
}

extension Promise where Value: Sequence, Value.Element: Comparable & Sendable {
    /// The elements in ascending order.
    ///
    /// - Parameter queue: Where the sort runs. Default: ``Dispatch/DispatchQueue/promises``.
    public func sortedValues(on queue: DispatchQueue = .promises) -> Promise<[Value.Element]> {
        map(on: queue) { $0.sorted() }
    }
}
