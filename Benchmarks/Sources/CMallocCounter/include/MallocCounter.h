#ifndef COURIER_MALLOC_COUNTER_H
#define COURIER_MALLOC_COUNTER_H

#include <stdint.h>

/// 1 when this build really counts allocations (Linux with glibc), 0 elsewhere.
int mc_is_supported(void);

/// Starts counting on every thread; counters keep their values until mc_reset().
void mc_start(void);
/// Stops counting.
void mc_stop(void);
/// Sets every counter to zero.
void mc_reset(void);

/// Calls to malloc, calloc, realloc, posix_memalign, aligned_alloc and memalign while counting.
int64_t mc_allocations(void);
/// Calls to free (with a non-null pointer) while counting.
int64_t mc_frees(void);
/// Net change of malloc_usable_size over everything allocated minus everything freed while counting.
int64_t mc_net_usable_bytes(void);

/// Usable bytes of the heap block at `pointer` (malloc_usable_size), or -1 where unavailable.
int64_t mc_usable_size(const void *pointer);

/// Bytes in chunks the allocator has handed out (mallinfo2().uordblks), or -1 where unavailable.
int64_t mc_heap_in_use(void);

#endif
