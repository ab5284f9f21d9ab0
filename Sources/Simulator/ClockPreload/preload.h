// libhal-clock.so's insides: what its files share. Nothing here is exported; the wrappers in clocks.c, waits.c and
// timers.c are the library's only symbols.
#ifndef HAL_CLOCK_PRELOAD_H
#define HAL_CLOCK_PRELOAD_H

#undef _FORTIFY_SOURCE
#define _GNU_SOURCE
#include "hal_clock.h"

#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define HC_HIDDEN __attribute__((visibility("hidden")))
#define HC_EXPORT __attribute__((visibility("default")))
#define HC_TLS __thread __attribute__((tls_model("initial-exec")))

#define HC_LOAD(p) __atomic_load_n((p), __ATOMIC_SEQ_CST)
#define HC_STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_SEQ_CST)

#define HC_SECOND 1000000000LL
/// How long a wait that must look again after each change (descriptors, a signal, a semaphore) blocks in the real
/// call before it looks at its slot again.
#define HC_SLICE (1000000LL)
/// A condition variable's slice: after it the wait goes on, unless the condition was signalled meanwhile (a signal sent
/// while the waiter was between slices must not be lost); longer, so that the waiter churns less.
#define HC_COND_SLICE (4000000LL)
/// A plain sleep blocks on the region's generation, which the scheduler wakes; this only bounds each block.
#define HC_SLEEP_SLICE (100000000LL)

/// The next definitions (umockdev's preload, then glibc), found with dlsym(RTLD_NEXT, …).
typedef struct hc_next {
    long (*syscall)(long, ...);
    int (*clock_gettime)(clockid_t, struct timespec *);
    int (*gettimeofday)(struct timeval *, void *);
    time_t (*time)(time_t *);
    int (*timespec_get)(struct timespec *, int);
    int (*nanosleep)(const struct timespec *, struct timespec *);
    int (*clock_nanosleep)(clockid_t, int, const struct timespec *, struct timespec *);
    unsigned int (*sleep)(unsigned int);
    int (*usleep)(useconds_t);
    int (*poll)(struct pollfd *, nfds_t, int);
    int (*ppoll)(struct pollfd *, nfds_t, const struct timespec *, const sigset_t *);
    int (*select)(int, fd_set *, fd_set *, fd_set *, struct timeval *);
    int (*pselect)(int, fd_set *, fd_set *, fd_set *, const struct timespec *, const sigset_t *);
    int (*epoll_wait)(int, struct epoll_event *, int, int);
    int (*epoll_pwait)(int, struct epoll_event *, int, int, const sigset_t *);
    int (*epoll_pwait2)(int, struct epoll_event *, int, const struct timespec *, const sigset_t *);
    int (*pthread_cond_wait)(pthread_cond_t *, pthread_mutex_t *);
    int (*pthread_cond_timedwait)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
    int (*pthread_cond_clockwait)(pthread_cond_t *, pthread_mutex_t *, clockid_t, const struct timespec *);
    int (*pthread_cond_signal)(pthread_cond_t *);
    int (*pthread_cond_broadcast)(pthread_cond_t *);
    int (*pthread_mutex_timedlock)(pthread_mutex_t *, const struct timespec *);
    int (*pthread_mutex_clocklock)(pthread_mutex_t *, clockid_t, const struct timespec *);
    int (*pthread_join)(pthread_t, void **);
    int (*sem_wait)(sem_t *);
    int (*sem_timedwait)(sem_t *, const struct timespec *);
    int (*sem_clockwait)(sem_t *, clockid_t, const struct timespec *);
    int (*sigtimedwait)(const sigset_t *, siginfo_t *, const struct timespec *);
    int (*sigwaitinfo)(const sigset_t *, siginfo_t *);
    int (*sigwait)(const sigset_t *, int *);
    int (*sigsuspend)(const sigset_t *);
    int (*pause)(void);
    pid_t (*wait)(int *);
    pid_t (*waitpid)(pid_t, int *, int);
    pid_t (*wait3)(int *, int, struct rusage *);
    pid_t (*wait4)(pid_t, int *, int, struct rusage *);
    int (*waitid)(idtype_t, id_t, siginfo_t *, int);
    ssize_t (*read)(int, void *, size_t);
    ssize_t (*readv)(int, const struct iovec *, int);
    ssize_t (*recv)(int, void *, size_t, int);
    ssize_t (*recvfrom)(int, void *, size_t, int, struct sockaddr *, socklen_t *);
    ssize_t (*recvmsg)(int, struct msghdr *, int);
    int (*accept)(int, struct sockaddr *, socklen_t *);
    int (*accept4)(int, struct sockaddr *, socklen_t *, int);
    ssize_t (*read_chk)(int, void *, size_t, size_t);
    ssize_t (*recv_chk)(int, void *, size_t, size_t, int);
    ssize_t (*recvfrom_chk)(int, void *, size_t, size_t, int, struct sockaddr *, socklen_t *);
    int (*poll_chk)(struct pollfd *, nfds_t, int, size_t);
    int (*ppoll_chk)(struct pollfd *, nfds_t, const struct timespec *, const sigset_t *, size_t);
    int (*timerfd_create)(int, int);
    int (*timerfd_settime)(int, int, const struct itimerspec *, struct itimerspec *);
    int (*timerfd_gettime)(int, struct itimerspec *);
    int (*close)(int);
} hc_next;

HC_HIDDEN extern hc_next hc_real;
/// The mapped region, or NULL: no $HAL_CLOCK_FILE (or it could not be mapped), and every wrapper forwards.
HC_HIDDEN extern hal_clock_region *hc_region;
/// Set while this thread is inside one of the library's waits: a wrapper reached from there forwards.
HC_HIDDEN extern HC_TLS int hc_in_wait;
HC_HIDDEN void hc_ensure_loaded(void);
HC_HIDDEN extern int hc_loaded;

/// A system call that no wrapper sees (glibc's syscall(), found past ours).
#define HC_RAW(...) hc_real.syscall(__VA_ARGS__)

/// Whether the region is mapped (loading the library first, if a wrapper runs before its constructor).
static inline int hc_clock_mapped(void) {
    if (!__atomic_load_n(&hc_loaded, __ATOMIC_ACQUIRE)) hc_ensure_loaded();
    return hc_region != NULL;
}

/// Whether the calling thread's waits are owned: the region is mapped and the thread is not inside one already.
static inline int hc_owning(void) { return hc_clock_mapped() && !hc_in_wait; }

/// The virtual CLOCK_MONOTONIC, in ns.
static inline int64_t hc_now(void) { return HC_LOAD(&hc_region->now); }

/// How a clock is owned: 0 not (CPU clocks), 1 as the virtual monotonic time, 2 as it plus the realtime offset.
HC_HIDDEN int hc_clock_kind(clockid_t clock);
/// A time on a clock of that kind, as virtual monotonic ns.
HC_HIDDEN int64_t hc_monotonic_from(int kind, const struct timespec *time);
HC_HIDDEN int64_t hc_ns(const struct timespec *time);
HC_HIDDEN struct timespec hc_timespec(int64_t ns);
/// Whether a timespec is valid (0 ≤ tv_nsec < 1e9).
HC_HIDDEN int hc_valid(const struct timespec *time);
/// The real CLOCK_MONOTONIC plus `ns`, for a slice of a real timed wait.
HC_HIDDEN struct timespec hc_real_after(int64_t ns);

/// One owned wait (hal_clock.h's protocol). `look` checks without blocking: >0 ready, 0 nothing, <0 an error in
/// `error`. `block` blocks for at most a slice: the same answers, 0 when the slice ended; a wait without one blocks on
/// the region's generation (a plain sleep).
typedef struct hc_wait {
    int has_deadline;
    int64_t deadline;
    int has_fds;
    int (*look)(struct hc_wait *wait);
    int (*block)(struct hc_wait *wait, int64_t slice);
    int64_t slice;
    void *context;
    int error;
    /// The thread's bell while it waits on descriptors (hal_clock.h), set by hc_wait_for; -1: none.
    int bell;
} hc_wait;

#define HC_READY 1
#define HC_TIMEOUT 0
#define HC_ERROR (-1)
#define HC_UNOWNED (-2)
/// Runs an owned wait: HC_READY, HC_TIMEOUT, HC_ERROR (errno in wait->error) or HC_UNOWNED (no slot: the caller
/// forwards to the real call).
HC_HIDDEN int hc_wait_for(hc_wait *wait);
/// The most descriptors a wait blocks on beside its bell; a wait on more blocks in slices, with no bell.
#define HC_BELL_POLL_MAX 64
/// Blocks in ppoll on `descriptors` and the wait's bell for at most `slice` ns with `mask`: how many of the
/// descriptors are ready (their revents written), 0 when the slice ended or the bell rang (it is emptied), or -1 with
/// errno.
HC_HIDDEN long hc_poll_with_bell(hc_wait *wait, struct pollfd *descriptors, nfds_t count, int64_t slice, const sigset_t *mask);
/// Empties a bell that rang.
HC_HIDDEN void hc_empty_bell(int bell);
/// A wait only another thread, a child or a signal ends (a condition variable, a child, pthread_join): the slot says
/// WAITING with no deadline while the real call blocks. Returns whether it took the slot, for hc_thin_end.
HC_HIDDEN int hc_thin_begin(void);
HC_HIDDEN void hc_thin_end(int began);
/// Whether a system call interrupted by a signal would have been restarted: no installed handler lacks SA_RESTART.
HC_HIDDEN int hc_restartable(void);
/// Waits, owned, until a blocking descriptor that is not a regular file is ready for `events`; 0 to go on with the
/// real call (also when nothing is owned), -1 with errno.
HC_HIDDEN int hc_wait_ready(int fd, short events);

// timers.c: timerfd, emulated on eventfds.
/// Whether the process has a timerfd (armed or not): the fast path of every wait on descriptors.
HC_HIDDEN int hc_timers_armed(void);
HC_HIDDEN uint32_t hc_timers_generation(void);
/// The earliest armed timer's expiry; 0 when none is armed.
HC_HIDDEN int hc_next_timer(int64_t *at);
/// Writes the expirations of every due timer into its eventfd.
HC_HIDDEN void hc_fire_due_timers(void);
HC_HIDDEN void hc_timers_after_fork(void);

#endif
