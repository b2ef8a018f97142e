// A tiny allocation counter for the benchmarks. On Linux with glibc the executable defines
// malloc & co.; the dynamic linker binds every library's calls to these definitions, which
// count (only between mc_start and mc_stop) and forward to glibc's own __libc_* entry points.
// Elsewhere every function is a stub and mc_is_supported() returns 0.

#include "MallocCounter.h"

#if defined(__linux__) && defined(__GLIBC__)

#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stddef.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void __libc_free(void *pointer);
extern void *__libc_memalign(size_t alignment, size_t size);

static atomic_int counting = 0;
static atomic_llong allocations = 0;
static atomic_llong frees = 0;
static atomic_llong net_bytes = 0;

static inline int is_counting(void) {
    return atomic_load_explicit(&counting, memory_order_relaxed);
}

static inline void record_allocation(void *pointer) {
    if (pointer != NULL && is_counting()) {
        atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&net_bytes, (long long)malloc_usable_size(pointer), memory_order_relaxed);
    }
}

static inline void record_free(void *pointer) {
    if (pointer != NULL && is_counting()) {
        atomic_fetch_add_explicit(&frees, 1, memory_order_relaxed);
        atomic_fetch_sub_explicit(&net_bytes, (long long)malloc_usable_size(pointer), memory_order_relaxed);
    }
}

void *malloc(size_t size) {
    void *pointer = __libc_malloc(size);
    record_allocation(pointer);
    return pointer;
}

void *calloc(size_t count, size_t size) {
    void *pointer = __libc_calloc(count, size);
    record_allocation(pointer);
    return pointer;
}

void *realloc(void *pointer, size_t size) {
    record_free(pointer);
    void *moved = __libc_realloc(pointer, size);
    if (moved == NULL && size != 0 && pointer != NULL) {
        // The old block is still live: undo the free we recorded.
        record_allocation(pointer);
        return NULL;
    }
    record_allocation(moved);
    return moved;
}

void free(void *pointer) {
    record_free(pointer);
    __libc_free(pointer);
}

void *memalign(size_t alignment, size_t size) {
    void *pointer = __libc_memalign(alignment, size);
    record_allocation(pointer);
    return pointer;
}

void *aligned_alloc(size_t alignment, size_t size) {
    return memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) {
        return EINVAL;
    }
    void *pointer = memalign(alignment, size);
    if (pointer == NULL && size != 0) {
        return ENOMEM;
    }
    *result = pointer;
    return 0;
}

int mc_is_supported(void) { return 1; }
void mc_start(void) { atomic_store(&counting, 1); }
void mc_stop(void) { atomic_store(&counting, 0); }
void mc_reset(void) {
    atomic_store(&allocations, 0);
    atomic_store(&frees, 0);
    atomic_store(&net_bytes, 0);
}
int64_t mc_allocations(void) { return atomic_load(&allocations); }
int64_t mc_frees(void) { return atomic_load(&frees); }
int64_t mc_net_usable_bytes(void) { return atomic_load(&net_bytes); }
int64_t mc_heap_in_use(void) { return (int64_t)mallinfo2().uordblks; }
int64_t mc_usable_size(const void *pointer) { return (int64_t)malloc_usable_size((void *)pointer); }

#else

int mc_is_supported(void) { return 0; }
void mc_start(void) {}
void mc_stop(void) {}
void mc_reset(void) {}
int64_t mc_allocations(void) { return 0; }
int64_t mc_frees(void) { return 0; }
int64_t mc_net_usable_bytes(void) { return 0; }
int64_t mc_heap_in_use(void) { return -1; }
int64_t mc_usable_size(const void *pointer) { (void)pointer; return -1; }

#endif
