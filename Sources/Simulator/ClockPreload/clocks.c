// The program's clocks: CLOCK_MONOTONIC and its variants and CLOCK_BOOTTIME read the virtual time; CLOCK_REALTIME,
// its coarse variant and CLOCK_TAI read it plus the realtime offset; CPU-time clocks are the real ones.
#include "preload.h"

#include <errno.h>

/// Whether a pointer the headers declare nonnull is NULL after all (a call through a pointer, or syscall()): out of
/// line, so that the compiler keeps the test.
__attribute__((noinline)) static int absent(const volatile void *pointer) { return pointer == NULL; }

/// The virtual time on a clock of `kind` (hc_clock_kind).
static int64_t virtual_time(int kind) {
    int64_t now = hc_now();
    return kind == 2 ? now + HC_LOAD(&hc_region->realtime_offset) : now;
}

HC_EXPORT int clock_gettime(clockid_t clock, struct timespec *time) {
    int kind;
    if (!hc_clock_mapped() || (kind = hc_clock_kind(clock)) == 0) return hc_real.clock_gettime(clock, time);
    if (absent(time)) {
        errno = EFAULT;
        return -1;
    }
    *time = hc_timespec(virtual_time(kind));
    return 0;
}

HC_EXPORT int gettimeofday(struct timeval *time, void *zone) {
    if (!hc_clock_mapped()) return hc_real.gettimeofday(time, zone);
    if (zone != NULL) hc_real.gettimeofday(NULL, zone);
    if (!absent(time)) {
        struct timespec now = hc_timespec(virtual_time(2));
        time->tv_sec = now.tv_sec;
        time->tv_usec = now.tv_nsec / 1000;
    }
    return 0;
}

HC_EXPORT time_t time(time_t *result) {
    if (!hc_clock_mapped()) return hc_real.time(result);
    time_t seconds = hc_timespec(virtual_time(2)).tv_sec;
    if (result != NULL) *result = seconds;
    return seconds;
}

HC_EXPORT int timespec_get(struct timespec *time, int base) {
    if (!hc_clock_mapped() || base != TIME_UTC) return hc_real.timespec_get(time, base);
    *time = hc_timespec(virtual_time(2));
    return base;
}
