#ifndef COURIER_FUZZ_DRIVER_H
#define COURIER_FUZZ_DRIVER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (in libclang_rt.fuzzer, linked by `-sanitize=fuzzer`): parses libFuzzer's
/// command-line flags and runs `callback` on each input. Declared here so Swift can call it from
/// the executable's entry point.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
