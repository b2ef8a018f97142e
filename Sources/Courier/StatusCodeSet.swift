/// A set of HTTP status codes: the statuses an ``Endpoint`` accepts as success
/// (``Endpoint/acceptedStatusCodes``).
///
/// Write one as a range, a list, or a combination:
///
/// ```swift
/// let conditional: StatusCodeSet = .successful.union([304])   // 200–299 and 304
/// let exact: StatusCodeSet = [200, 201]
/// let anyAnswer = StatusCodeSet(200...499)
/// ```
///
/// The codes are kept as sorted, merged ranges, so two sets with the same codes are equal
/// however they were written.
public struct StatusCodeSet: Sendable, Hashable, ExpressibleByArrayLiteral, CustomStringConvertible {
    /// Sorted, non-overlapping, non-adjacent ranges.
    private let ranges: [ClosedRange<Int>]

    /// 200–299: every successful status. The default of ``Endpoint/acceptedStatusCodes``.
    public static let successful = StatusCodeSet(200...299)

    /// 200–399: successful and redirection statuses (Moya's `successAndRedirectCodes`). A
    /// redirect that the transport follows never reaches the endpoint; this accepts the ones it
    /// does not follow, such as `304 Not Modified`.
    public static let successfulAndRedirection = StatusCodeSet(200...399)

    /// An empty set: no status is accepted.
    public init() {
        ranges = []
    }

    /// The codes in `codes`.
    ///
    /// - Parameter codes: A range such as `200...299`.
    public init(_ codes: ClosedRange<Int>) {
        ranges = [codes]
    }

    /// The codes in `codes`.
    ///
    /// - Parameter codes: A half-open range such as `200..<300`; an empty range gives an empty set.
    public init(_ codes: Range<Int>) {
        ranges = codes.isEmpty ? [] : [codes.lowerBound...(codes.upperBound - 1)]
    }

    /// The codes in `codes`, in any order, repeats allowed.
    ///
    /// - Parameter codes: The status codes, such as `[200, 204, 304]`.
    public init<Codes: Sequence>(_ codes: Codes) where Codes.Element == Int {
        ranges = StatusCodeSet.merged(codes.map { $0...$0 })
    }

    /// The listed codes: `let accepted: StatusCodeSet = [200, 304]`.
    ///
    /// - Parameter codes: The status codes.
    public init(arrayLiteral codes: Int...) {
        self.init(codes)
    }

    private init(ranges: [ClosedRange<Int>]) {
        self.ranges = StatusCodeSet.merged(ranges)
    }

    /// Whether `statusCode` is in the set.
    ///
    /// - Parameter statusCode: A response's status code.
    /// - Returns: `true` when the set contains it.
    public func contains(_ statusCode: Int) -> Bool {
        for range in ranges where range.contains(statusCode) { return true }
        return false
    }

    /// The codes of this set and of `other` together.
    ///
    /// - Parameter other: Further codes, for example `[304]`.
    /// - Returns: A set with every code of both.
    public func union(_ other: StatusCodeSet) -> StatusCodeSet {
        StatusCodeSet(ranges: ranges + other.ranges)
    }

    /// This set without the codes of `other`.
    ///
    /// - Parameter other: The codes to leave out, for example `[204]`.
    /// - Returns: A set with every code of this one that `other` does not contain.
    public func subtracting(_ other: StatusCodeSet) -> StatusCodeSet {
        var remaining = ranges
        for removed in other.ranges {
            remaining = remaining.flatMap { range -> [ClosedRange<Int>] in
                guard range.overlaps(removed) else { return [range] }
                var pieces: [ClosedRange<Int>] = []
                if range.lowerBound < removed.lowerBound { pieces.append(range.lowerBound...(removed.lowerBound - 1)) }
                if removed.upperBound < range.upperBound { pieces.append((removed.upperBound + 1)...range.upperBound) }
                return pieces
            }
        }
        return StatusCodeSet(ranges: remaining)
    }

    /// Whether the set has no codes.
    public var isEmpty: Bool {
        ranges.isEmpty
    }

    /// The codes as ranges and single codes, for example `200...299, 304`.
    public var description: String {
        if ranges.isEmpty { return "none" }
        return ranges.map { $0.lowerBound == $0.upperBound ? "\($0.lowerBound)" : "\($0.lowerBound)...\($0.upperBound)" }
            .joined(separator: ", ")
    }

    /// Sorts `ranges` and joins those that overlap or touch.
    private static func merged(_ ranges: [ClosedRange<Int>]) -> [ClosedRange<Int>] {
        var result: [ClosedRange<Int>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            // `+ 1` is reached only when `last.upperBound` is below `range.lowerBound`: no overflow.
            if let last = result.last, range.lowerBound <= last.upperBound || range.lowerBound == last.upperBound + 1 {
                result[result.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                result.append(range)
            }
        }
        return result
    }
}
