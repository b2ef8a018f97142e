import CFuzzerDriver

/// Checks one fuzzer input. libFuzzer calls this once per generated input.
///
/// Returning `0` means "input processed"; a broken invariant aborts the process, which libFuzzer
/// reports as a crash and saves the input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else {
        RequestExercise.run(FuzzFields(UnsafeBufferPointer(start: nil, count: 0)))
        return 0
    }
    RequestExercise.run(FuzzFields(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

/// The process entry point.
///
/// On Linux SwiftPM links an executable target with `main` aliased to `<target>_main`, which
/// would leave libFuzzer's own `main` unused; so this symbol hands the command line to libFuzzer's
/// driver (build with `-parse-as-library` so the compiler emits no `main` of its own).
@_cdecl("FuzzRequest_main")
public func fuzzRequestMain(
    _ argc: CInt,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in
        fuzzOneInput(data, size)
    }
}
