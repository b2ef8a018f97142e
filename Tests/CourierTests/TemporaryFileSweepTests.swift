import Foundation
import XCTest
@testable import Courier

/// Temporary files left by a killed process (a download's body, a staged form) are deleted by a
/// later process once they are older than any request lives; nothing else is touched.
final class TemporaryFileSweepTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("sweep-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Creates `name` in the test directory, last modified `age` seconds ago.
    @discardableResult
    private func file(_ name: String, age: TimeInterval) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try Data("left over".utf8).write(to: url)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -age)], ofItemAtPath: url.path)
        return url
    }

    func test_givenOldLeftoversOfTheClient_thenOnlyThoseAreDeleted() throws {
        let day = PrivateFile.staleAge
        let oldDownload = try file("courier-download-\(UUID().uuidString)", age: day + 60)
        let oldUpload = try file("courier-upload-\(UUID().uuidString)", age: 3 * day)
        let recentDownload = try file("courier-download-\(UUID().uuidString)", age: 60)
        let othersFile = try file("report-\(UUID().uuidString)", age: 3 * day)
        let oldFolder = directory.appendingPathComponent("courier-download-folder")
        try FileManager.default.createDirectory(at: oldFolder, withIntermediateDirectories: false)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3 * day)], ofItemAtPath: oldFolder.path)

        let deleted = PrivateFile.sweepStaleTemporaryFiles(in: directory, olderThan: day)

        XCTAssertEqual(Set(deleted.map(\.lastPathComponent)), [oldDownload.lastPathComponent, oldUpload.lastPathComponent])
        XCTAssertFalse(FileManager.default.fileExists(atPath: oldDownload.path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: oldUpload.path))
        XCTAssertTrue(FileManager.default.fileExists(atPath: recentDownload.path), "a download may still be running")
        XCTAssertTrue(FileManager.default.fileExists(atPath: othersFile.path), "not the client's")
        XCTAssertTrue(FileManager.default.fileExists(atPath: oldFolder.path), "only regular files")
    }

    func test_givenAMissingDirectory_thenNothingHappens() {
        let missing = directory.appendingPathComponent("missing")
        XCTAssertEqual(PrivateFile.sweepStaleTemporaryFiles(in: missing, olderThan: 0), [])
    }
}
