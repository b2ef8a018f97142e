import Foundation

extension DownloadResumption {
    /// Hands the kept part over as data the app can store (in a file, in its defaults), so that
    /// a download paused in one run of the app can be resumed in the next (Alamofire's resume
    /// data). `nil` while a download uses the resumption, or when nothing is kept.
    ///
    /// The part's file stays where it is, in the temporary folder; this resumption no longer
    /// holds it (``keptBytes`` becomes 0) and no longer deletes it. ``init(resumeData:)`` takes
    /// it back. A part that nobody takes back is deleted by the client's sweep a day after its
    /// last use: resume within a day.
    ///
    /// ```swift
    /// try await resumption.pause().value
    /// if let data = resumption.takeResumeData() {
    ///     UserDefaults.standard.set(data, forKey: "episode-7")
    /// }
    /// // … after a relaunch:
    /// let data = UserDefaults.standard.data(forKey: "episode-7")
    /// let resumption = data.map(DownloadResumption.init(resumeData:)) ?? DownloadResumption()
    /// ```
    ///
    /// - Returns: The part's description (its file, length, validator and origin; no contents).
    public func takeResumeData() -> Data? {
        guard let (part, origin) = handOverPart() else { return nil }
        PrivateFile.touch(part.fileURL)   // a day from now, not from when it was saved
        let stored = StoredPart(
            version: StoredPart.currentVersion, file: part.fileURL.path, length: part.length,
            validator: part.validator, totalLength: part.totalLength, origin: origin)
        return try? JSONEncoder().encode(stored)
    }

    /// A resumption holding the part that `resumeData` (from ``takeResumeData()``) describes.
    ///
    /// It is empty (the next download starts over) when the data is not Courier's, or when the
    /// file it names is gone, has changed size, is not one of the client's own download files in
    /// the temporary folder, or is not this user's, or when its validator could not be sent as a
    /// header: data read back from storage is not trusted to point anywhere else.
    ///
    /// - Parameter resumeData: What ``takeResumeData()`` returned.
    public convenience init(resumeData: Data) {
        guard let stored = try? JSONDecoder().decode(StoredPart.self, from: resumeData),
              stored.version == StoredPart.currentVersion, stored.length > 0, stored.isValidHeaderValue,
              let file = StoredPart.ownDownloadFile(at: stored.file, length: stored.length) else {
            self.init()
            return
        }
        PrivateFile.touch(file)
        self.init(
            part: PartialDownload(fileURL: file, length: stored.length, validator: stored.validator, totalLength: stored.totalLength),
            origin: stored.origin)
    }
}

/// What ``DownloadResumption/takeResumeData()`` stores.
private struct StoredPart: Codable {
    static let currentVersion = 1

    let version: Int
    let file: String
    let length: Int64
    let validator: String
    let totalLength: Int64?
    let origin: String

    /// Whether the validator can be sent as `If-Range` as it is (no line breaks or other
    /// characters a header value may not hold).
    var isValidHeaderValue: Bool {
        (try? HeaderValidation.check(["If-Range": validator])) != nil
    }

    /// `path` as a file URL when it names a regular file (not a link) directly in the temporary
    /// folder, named like the transport's download files, owned by this user and `length` bytes long.
    static func ownDownloadFile(at path: String, length: Int64) -> URL? {
        let file = URL(fileURLWithPath: path)
        let folder = FileManager.default.temporaryDirectory.standardizedFileURL.path
        guard file.deletingLastPathComponent().standardizedFileURL.path == folder,
              file.lastPathComponent.hasPrefix("courier-download-") else { return nil }
        guard PrivateFile.sizeOfOwnRegularFile(file) == length else { return nil }
        return file
    }
}
