import Courier
import Foundation
import Promises
import XCTest

/// Cancelling file uploads while they are being sent. FoundationNetworking's upload task traps
/// when its asynchronous file read completes after a cancel ("'try!' expression unexpectedly
/// raised an error: libcurl.Easy Code=43"); 2 runs of 2 of this test crashed before files of up to
/// 64 MiB were sent from memory on Linux.
final class UploadCancelIntegrationTests: IntegrationTestCase {
    func test_givenFileUploadsAndStagedFormsCancelledWhileSent_whenHundredsRun_thenEachSettlesOnceAndNothingTraps() throws {
        let folder = try makeScratchFolder("UploadCancel")
        defer { removeScratchFolder(folder) }
        let file = try writeFile(Data(repeating: 7, count: 300_000), in: folder)
        let large = try writeFile(Data(repeating: 9, count: 1_100_000), in: folder)   // a form over 1 MiB is staged
        let form = MultipartFormData(parts: [MultipartFormData.Part(name: "blob", fileURL: large)])
        let client = try makeClient()
        let settled = SharedValue(0)
        let group = DispatchGroup()
        DispatchQueue.concurrentPerform(iterations: 8) { lane in
            for index in 0..<40 {
                let body: RequestBody = index.isMultiple(of: 4) ? .multipart(form) : .file(file, contentType: "application/octet-stream")
                group.enter()
                let promise = client.request(LiveJSONEndpoint(path: "anything", method: .put, body: body, timeout: 20))
                _ = promise.tap { _ in
                    settled.withLock { $0 += 1 }
                    group.leave()
                }
                if index % 3 != 2 {
                    DispatchQueue.global().asyncAfter(deadline: .now() + .microseconds(Int.random(in: 0...20_000))) { promise.cancel() }
                }
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 60), .success, "some uploads never settled")
        XCTAssertEqual(settled.withLock { $0 }, 320)
    }
}
