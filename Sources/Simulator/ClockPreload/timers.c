// timerfd on the virtual clock: timerfd_create gives an eventfd with the same flags, and the process keeps each
// timer's next expiry. An owned wait on descriptors writes the expirations of the timers that are due into their
// eventfds (a read gives the count, as a timerfd's does) when it begins and when the scheduler releases it, and counts
// the next expiry as its own deadline, so that time stops there.
#include "preload.h"

#include <errno.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>

#define TIMERS 256

typedef struct timer {
    int fd;          /* -1: a free entry */
    int kind;        /* hc_clock_kind of its clock */
    int armed;
    int64_t expiry;  /* virtual monotonic ns */
    int64_t interval;
} timer;

static timer timers[TIMERS];
static int used;        /* entries in use, for the fast path */
static int lock;        /* a spin lock: no wrapper of ours is reached from inside it */
static uint32_t generation;

static void take(void) {
    while (__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE)) sched_yield();
}

static void give(void) { __atomic_store_n(&lock, 0, __ATOMIC_RELEASE); }

static timer *find(int fd) {
    for (int i = 0; i < TIMERS; i++)
        if (timers[i].fd == fd && timers[i].kind != 0) return &timers[i];
    return NULL;
}

HC_HIDDEN int hc_timers_armed(void) { return __atomic_load_n(&used, __ATOMIC_ACQUIRE) > 0; }

HC_HIDDEN uint32_t hc_timers_generation(void) { return __atomic_load_n(&generation, __ATOMIC_ACQUIRE); }

HC_HIDDEN int hc_next_timer(int64_t *at) {
    if (!hc_timers_armed()) return 0;
    int found = 0;
    take();
    for (int i = 0; i < TIMERS; i++)
        if (timers[i].kind != 0 && timers[i].armed && (!found || timers[i].expiry < *at)) {
            *at = timers[i].expiry;
            found = 1;
        }
    give();
    return found;
}

HC_HIDDEN void hc_fire_due_timers(void) {
    if (!hc_timers_armed()) return;
    int saved = errno;
    int64_t now = hc_now();
    take();
    for (int i = 0; i < TIMERS; i++) {
        timer *t = &timers[i];
        if (t->kind == 0 || !t->armed || t->expiry > now) continue;
        uint64_t count = 1;
        if (t->interval > 0) {
            count += (uint64_t)((now - t->expiry) / t->interval);
            t->expiry += (int64_t)count * t->interval;
        } else {
            t->armed = 0;
        }
        HC_RAW(SYS_write, t->fd, &count, sizeof count);
    }
    give();
    errno = saved;
}

HC_HIDDEN void hc_timers_after_fork(void) {
    // The child shares the eventfds but not the timers, which stay the parent's (a timerfd fires once, not per
    // process).
    for (int i = 0; i < TIMERS; i++) timers[i].kind = 0;
    __atomic_store_n(&used, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
}

/// Makes every wait of this process on descriptors look again: its deadline may have changed.
static void changed(void) {
    __atomic_add_fetch(&generation, 1, __ATOMIC_SEQ_CST);
    int32_t pid = (int32_t)getpid();
    for (int i = 0; i < HAL_CLOCK_SLOTS; i++) {
        hal_clock_slot *slot = &hc_region->slots[i];
        if (HC_LOAD(&slot->tid) != 0 && HC_LOAD(&slot->pid) == pid && HC_LOAD(&slot->has_fds)) HC_STORE(&slot->seen_epoch, (uint64_t)0);
    }
}

HC_EXPORT int timerfd_create(int clock, int flags) {
    int kind;
    if (!hc_clock_mapped() || (kind = hc_clock_kind(clock)) == 0) return hc_real.timerfd_create(clock, flags);
    if (flags & ~(TFD_NONBLOCK | TFD_CLOEXEC)) {
        errno = EINVAL;
        return -1;
    }
    int fd = (int)HC_RAW(SYS_eventfd2, 0, ((flags & TFD_NONBLOCK) ? EFD_NONBLOCK : 0) | ((flags & TFD_CLOEXEC) ? EFD_CLOEXEC : 0));
    if (fd < 0) return -1;
    take();
    timer *entry = NULL;
    for (int i = 0; i < TIMERS && entry == NULL; i++)
        if (timers[i].kind == 0) entry = &timers[i];
    if (entry != NULL) {
        *entry = (timer){.fd = fd, .kind = kind};
        __atomic_add_fetch(&used, 1, __ATOMIC_RELEASE);
    }
    give();
    if (entry == NULL) {
        HC_RAW(SYS_close, fd);
        errno = EMFILE;
        return -1;
    }
    return fd;
}

static void current(const timer *t, struct itimerspec *value) {
    int64_t left = t->armed ? t->expiry - hc_now() : 0;
    if (t->armed && left < 1) left = 1;
    value->it_value = hc_timespec(left);
    value->it_interval = hc_timespec(t->interval);
}

HC_EXPORT int timerfd_settime(int fd, int flags, const struct itimerspec *value, struct itimerspec *old) {
    if (!hc_clock_mapped() || find(fd) == NULL) return hc_real.timerfd_settime(fd, flags, value, old);
    if (value == NULL || !hc_valid(&value->it_value) || !hc_valid(&value->it_interval)) {
        errno = value == NULL ? EFAULT : EINVAL;
        return -1;
    }
    take();
    timer *t = find(fd);
    if (t == NULL) {
        give();
        errno = EBADF;
        return -1;
    }
    if (old != NULL) current(t, old);
    int64_t start = hc_ns(&value->it_value);
    t->interval = hc_ns(&value->it_interval);
    t->armed = start != 0;
    if (t->armed) t->expiry = (flags & TFD_TIMER_ABSTIME) ? hc_monotonic_from(t->kind, &value->it_value) : hc_now() + start;
    // Arming or disarming forgets the expirations not yet read, as a timerfd does.
    uint64_t count;
    struct pollfd readable = {.fd = fd, .events = POLLIN};
    struct timespec zero = {0, 0};
    int saved = errno;
    if (HC_RAW(SYS_ppoll, &readable, 1, &zero, NULL, _NSIG / 8) > 0) HC_RAW(SYS_read, fd, &count, sizeof count);
    errno = saved;
    give();
    changed();
    hc_fire_due_timers();
    return 0;
}

HC_EXPORT int timerfd_gettime(int fd, struct itimerspec *value) {
    if (!hc_clock_mapped() || find(fd) == NULL) return hc_real.timerfd_gettime(fd, value);
    if (value == NULL) {
        errno = EFAULT;
        return -1;
    }
    take();
    timer *t = find(fd);
    if (t != NULL) current(t, value);
    give();
    return 0;
}

HC_EXPORT int close(int fd) {
    if (hc_timers_armed()) {
        take();
        timer *t = find(fd);
        if (t != NULL) {
            t->kind = 0;
            __atomic_sub_fetch(&used, 1, __ATOMIC_RELEASE);
        }
        give();
    }
    if (hc_real.close == NULL) hc_ensure_loaded();
    return hc_real.close(fd);
}
