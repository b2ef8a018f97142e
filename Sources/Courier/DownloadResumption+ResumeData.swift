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
            version: StoredPart.currentVersion, file: part.fileURL.lastPathComponent, length: part.length,
            validator: part.validator, totalLength: part.totalLength, origin: origin)
        return try? JSONEncoder().encode(stored)
    }

    /// A resumption holding the part that `resumeData` (from ``takeResumeData()``) describes.
    ///
    /// The resumption takes the part's file over (it is renamed), so the same data restores
    /// once: delete the stored copy after restoring it. It is empty (the next download starts
    /// over) when the data is not Courier's or its values do not fit together, or when the file
    /// it names is gone, has changed size, or is not one of the client's own download files in
    /// the temporary folder (a regular file of this user, private to it, with no other name).
    /// These checks decide which file may be touched; whether its bytes belong to the resource is
    /// the server's answer to `If-Range`, as for any resume.
    ///
    /// - Parameter resumeData: What ``takeResumeData()`` returned.
    public convenience init(resumeData: Data) {
        guard let stored = try? JSONDecoder().decode(StoredPart.self, from: resumeData), stored.isWellFormed,
              let file = StoredPart.takeOver(named: stored.file, length: stored.length) else {
            self.init()
            return
        }
        self.init(
            part: PartialDownload(fileURL: file, length: stored.length, validator: stored.validator, totalLength: stored.totalLength),
            origin: stored.origin)
    }
}

/// What ``DownloadResumption/takeResumeData()`` stores.
private struct StoredPart: Codable {
    static let currentVersion = 2

    let version: Int
    /// The file's name in the temporary folder (not its path: an app's folders may move
    /// between launches, and a name cannot point anywhere else).
    let file: String
    let length: Int64
    let validator: String
    let totalLength: Int64?
    let origin: String

    /// The current version, a positive length below the declared total, and a validator of the
    /// kind a download keeps: a strong `ETag` or an HTTP date, either one a valid header value.
    var isWellFormed: Bool {
        guard version == Self.currentVersion, length > 0, totalLength.map({ $0 > length }) ?? true,
              (try? HeaderValidation.check(["If-Range": validator])) != nil else { return false }
        let strongTag = validator.count >= 2 && validator.hasPrefix("\"") && validator.hasSuffix("\"")
        return strongTag || HTTPDate.parse(validator, now: Date()) != nil
    }

    /// Takes over the client's own download file `name` (`courier-download-<UUID>`, directly
    /// in the temporary folder) when it is a private regular file of this user with no other
    /// name and `length` bytes long: renamed to a fresh name, so that nothing else holds it.
    static func takeOver(named name: String, length: Int64) -> URL? {
        let prefix = "courier-download-"
        guard name.hasPrefix(prefix), UUID(uuidString: String(name.dropFirst(prefix.count))) != nil else { return nil }
        let folder = FileManager.default.temporaryDirectory
        let file = folder.appendingPathComponent(name)
        guard PrivateFile.sizeOfOwnRegularFile(file) == length else { return nil }
        let taken = PrivateFile.temporaryURL(prefix: prefix)
        guard rename(file.path, taken.path) == 0 else { return nil }
        // Checked again under the new name, which only this process knows: a swap between the
        // check and the rename is caught here.
        guard PrivateFile.sizeOfOwnRegularFile(taken) == length else {
            _ = rename(taken.path, file.path)
            return nil
        }
        PrivateFile.touch(taken)
        return taken
    }
}
