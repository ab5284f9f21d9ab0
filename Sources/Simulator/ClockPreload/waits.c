// The program's waits, owned: each one follows hal_clock.h's protocol (hc_wait_for), so that the virtual time
// moves only when every thread waits, and a timeout ends when the scheduler reaches it.
#include "preload.h"

#include <errno.h>
#include <linux/futex.h>
#include <stdarg.h>
#include <string.h>

/// A relative timeout as a virtual deadline.
static int64_t after(const struct timespec *time) { return hc_now() + hc_ns(time); }

static int64_t remaining(int64_t deadline) {
    int64_t left = deadline - hc_now();
    return left > 0 ? left : 0;
}

// MARK: Sleeps

/// Sleeps until `deadline` (virtual monotonic ns): 0, EINTR when a signal handler ran, or HC_UNOWNED (the caller
/// forwards).
static int sleep_until(int64_t deadline) {
    hc_wait wait = {.has_deadline = 1, .deadline = deadline};
    int result = hc_wait_for(&wait);
    return result == HC_ERROR ? wait.error : result == HC_UNOWNED ? HC_UNOWNED : 0;
}

/// nanosleep's work, also for sleep and usleep: the same answers, on the virtual clock, or HC_UNOWNED.
static int sleep_for(const struct timespec *request, struct timespec *left) {
    if (!hc_valid(request)) {
        errno = request == NULL ? EFAULT : EINVAL;
        return -1;
    }
    int64_t deadline = after(request);
    int error = sleep_until(deadline);
    if (error == 0 || error == HC_UNOWNED) return error;
    if (left != NULL) *left = hc_timespec(remaining(deadline));
    errno = error;
    return -1;
}

HC_EXPORT int nanosleep(const struct timespec *request, struct timespec *left) {
    int result;
    if (!hc_owning() || (result = sleep_for(request, left)) == HC_UNOWNED) return hc_real.nanosleep(request, left);
    return result;
}

HC_EXPORT int clock_nanosleep(clockid_t clock, int flags, const struct timespec *request, struct timespec *left) {
    int kind;
    if (!hc_owning() || (kind = hc_clock_kind(clock)) == 0) return hc_real.clock_nanosleep(clock, flags, request, left);
    if (!hc_valid(request)) return request == NULL ? EFAULT : EINVAL;
    int saved = errno;
    int64_t deadline = (flags & TIMER_ABSTIME) ? hc_monotonic_from(kind, request) : after(request);
    int error = sleep_until(deadline);
    if (error == HC_UNOWNED) return hc_real.clock_nanosleep(clock, flags, request, left);
    if (error != 0 && left != NULL && !(flags & TIMER_ABSTIME)) *left = hc_timespec(remaining(deadline));
    errno = saved;
    return error;
}

HC_EXPORT unsigned int sleep(unsigned int seconds) {
    if (!hc_owning()) return hc_real.sleep(seconds);
    struct timespec request = {.tv_sec = seconds}, left = {0, 0};
    int result = sleep_for(&request, &left);
    if (result == HC_UNOWNED) return hc_real.sleep(seconds);
    if (result == 0) return 0;
    return (unsigned int)left.tv_sec + (left.tv_nsec >= HC_SECOND / 2);
}

HC_EXPORT int usleep(useconds_t microseconds) {
    if (!hc_owning()) return hc_real.usleep(microseconds);
    struct timespec request = hc_timespec((int64_t)microseconds * 1000);
    int result = sleep_for(&request, NULL);
    return result == HC_UNOWNED ? hc_real.usleep(microseconds) : result;
}

// MARK: poll, select, epoll

/// A poll or ppoll: the descriptors, and the signal mask to wait with.
typedef struct polling {
    struct pollfd *descriptors;
    nfds_t count;
    const sigset_t *mask;
    int ready;
} polling;

static int poll_for(hc_wait *wait, const struct timespec *timeout, const sigset_t *mask) {
    polling *p = wait->context;
    long ready = HC_RAW(SYS_ppoll, p->descriptors, p->count, timeout, mask, _NSIG / 8);
    if (ready < 0) {
        wait->error = errno;
        return HC_ERROR;
    }
    p->ready = (int)ready;
    return ready > 0;
}

static int look_poll(hc_wait *wait) {
    struct timespec zero = {0, 0};
    return poll_for(wait, &zero, NULL);
}

static int block_poll(hc_wait *wait, int64_t slice) {
    polling *p = wait->context;
    long ready = hc_poll_with_bell(wait, p->descriptors, p->count, slice, p->mask);
    if (ready < 0) {
        wait->error = errno;
        return HC_ERROR;
    }
    p->ready = (int)ready;
    return ready > 0;
}

/// poll and ppoll on the virtual clock: what poll answers, or HC_UNOWNED (the caller forwards).
static int poll_until(struct pollfd *descriptors, nfds_t count, int has_deadline, int64_t deadline, const sigset_t *mask) {
    polling p = {.descriptors = descriptors, .count = count, .mask = mask};
    hc_wait wait = {.has_deadline = has_deadline, .deadline = deadline, .has_fds = 1, .look = look_poll, .block = block_poll, .context = &p};
    int result = hc_wait_for(&wait);
    if (result == HC_UNOWNED) return HC_UNOWNED;
    if (result == HC_ERROR) {
        errno = wait.error;
        return -1;
    }
    if (result == HC_TIMEOUT)
        for (nfds_t i = 0; i < count; i++) descriptors[i].revents = 0;
    return result == HC_READY ? p.ready : 0;
}

HC_EXPORT int poll(struct pollfd *descriptors, nfds_t count, int timeout) {
    if (!hc_owning()) return hc_real.poll(descriptors, count, timeout);
    hc_fire_due_timers();
    int result;
    if (timeout == 0 || (result = poll_until(descriptors, count, timeout > 0, hc_now() + (int64_t)timeout * 1000000, NULL)) == HC_UNOWNED)
        return hc_real.poll(descriptors, count, timeout);
    return result;
}

HC_EXPORT int ppoll(struct pollfd *descriptors, nfds_t count, const struct timespec *timeout, const sigset_t *mask) {
    if (!hc_owning()) return hc_real.ppoll(descriptors, count, timeout, mask);
    if (timeout != NULL && !hc_valid(timeout)) {
        errno = EINVAL;
        return -1;
    }
    hc_fire_due_timers();
    int result;
    if ((timeout != NULL && hc_ns(timeout) == 0)
        || (result = poll_until(descriptors, count, timeout != NULL, timeout ? after(timeout) : 0, mask)) == HC_UNOWNED)
        return hc_real.ppoll(descriptors, count, timeout, mask);
    return result;
}

int __poll_chk(struct pollfd *descriptors, nfds_t count, int timeout, size_t length);
int __ppoll_chk(struct pollfd *descriptors, nfds_t count, const struct timespec *timeout, const sigset_t *mask, size_t length);

HC_EXPORT int __poll_chk(struct pollfd *descriptors, nfds_t count, int timeout, size_t length) {
    if (!hc_owning() || length / sizeof *descriptors < count) return hc_real.poll_chk(descriptors, count, timeout, length);
    return poll(descriptors, count, timeout);
}

HC_EXPORT int __ppoll_chk(struct pollfd *descriptors, nfds_t count, const struct timespec *timeout, const sigset_t *mask, size_t length) {
    if (!hc_owning() || length / sizeof *descriptors < count) return hc_real.ppoll_chk(descriptors, count, timeout, mask, length);
    return ppoll(descriptors, count, timeout, mask);
}

/// A select or pselect: the caller's sets, copies of what it asked, and the mask.
typedef struct selecting {
    int count;
    fd_set *sets[3];
    fd_set asked[3];
    const sigset_t *mask;
    int ready;
} selecting;

/// `bell`, when not -1, is the thread's bell, waited on for reading beside the caller's sets.
static int select_for(hc_wait *wait, const struct timespec *timeout, const sigset_t *mask, int bell) {
    selecting *s = wait->context;
    fd_set working[3];
    fd_set *arguments[3];
    for (int i = 0; i < 3; i++) {
        working[i] = s->asked[i];
        arguments[i] = s->sets[i] ? &working[i] : NULL;
    }
    int count = s->count;
    if (bell >= 0 && bell < FD_SETSIZE && !FD_ISSET(bell, &working[0])) {
        FD_SET(bell, &working[0]);
        arguments[0] = &working[0];
        if (bell >= count) count = bell + 1;
    } else {
        bell = -1;
    }
    struct {
        const sigset_t *mask;
        size_t size;
    } signals = {mask, _NSIG / 8};
    long ready = HC_RAW(SYS_pselect6, count, arguments[0], arguments[1], arguments[2], timeout, &signals);
    if (ready < 0) {
        wait->error = errno;
        return HC_ERROR;
    }
    if (bell >= 0 && FD_ISSET(bell, &working[0])) {
        hc_empty_bell(bell);
        FD_CLR(bell, &working[0]);
        ready--;
    }
    if (ready == 0) return 0;
    for (int i = 0; i < 3; i++)
        if (s->sets[i]) *s->sets[i] = working[i];
    s->ready = (int)ready;
    return 1;
}

static int look_select(hc_wait *wait) {
    struct timespec zero = {0, 0};
    return select_for(wait, &zero, NULL, -1);
}

static int block_select(hc_wait *wait, int64_t slice) {
    struct timespec timeout = hc_timespec(slice);
    return select_for(wait, &timeout, ((selecting *)wait->context)->mask, wait->bell);
}

/// select and pselect on the virtual clock: the count, 0 on a timeout (the sets cleared), -1, or HC_UNOWNED; `left`
/// gets the time left.
static int select_until(int count, fd_set *sets[3], int has_deadline, int64_t deadline, const sigset_t *mask, int64_t *left) {
    selecting s = {.count = count, .sets = {sets[0], sets[1], sets[2]}, .mask = mask};
    for (int i = 0; i < 3; i++)
        if (sets[i]) s.asked[i] = *sets[i];
        else FD_ZERO(&s.asked[i]);
    hc_wait wait = {.has_deadline = has_deadline, .deadline = deadline, .has_fds = 1, .look = look_select, .block = block_select, .context = &s};
    int result = hc_wait_for(&wait);
    *left = has_deadline ? remaining(deadline) : 0;
    if (result == HC_UNOWNED) return HC_UNOWNED;
    if (result == HC_ERROR) {
        errno = wait.error;
        return -1;
    }
    if (result == HC_TIMEOUT)
        for (int i = 0; i < 3; i++)
            if (sets[i]) FD_ZERO(sets[i]);
    return result == HC_READY ? s.ready : 0;
}

HC_EXPORT int select(int count, fd_set *read_set, fd_set *write_set, fd_set *error_set, struct timeval *timeout) {
    if (!hc_owning() || count < 0 || count > FD_SETSIZE) return hc_real.select(count, read_set, write_set, error_set, timeout);
    if (timeout != NULL && (timeout->tv_sec < 0 || timeout->tv_usec < 0 || timeout->tv_usec >= 1000000)) {
        errno = EINVAL;
        return -1;
    }
    hc_fire_due_timers();
    int64_t span = timeout ? (int64_t)timeout->tv_sec * HC_SECOND + (int64_t)timeout->tv_usec * 1000 : 0;
    if (timeout != NULL && span == 0) return hc_real.select(count, read_set, write_set, error_set, timeout);
    fd_set *sets[3] = {read_set, write_set, error_set};
    int64_t left;
    int result = select_until(count, sets, timeout != NULL, hc_now() + span, NULL, &left);
    if (result == HC_UNOWNED) return hc_real.select(count, read_set, write_set, error_set, timeout);
    if (timeout != NULL) {
        // Linux's select writes the time left back.
        timeout->tv_sec = (time_t)(left / HC_SECOND);
        timeout->tv_usec = (suseconds_t)((left % HC_SECOND) / 1000);
    }
    return result;
}

HC_EXPORT int pselect(int count, fd_set *read_set, fd_set *write_set, fd_set *error_set, const struct timespec *timeout, const sigset_t *mask) {
    if (!hc_owning() || count < 0 || count > FD_SETSIZE) return hc_real.pselect(count, read_set, write_set, error_set, timeout, mask);
    if (timeout != NULL && !hc_valid(timeout)) {
        errno = EINVAL;
        return -1;
    }
    hc_fire_due_timers();
    if (timeout != NULL && hc_ns(timeout) == 0) return hc_real.pselect(count, read_set, write_set, error_set, timeout, mask);
    fd_set *sets[3] = {read_set, write_set, error_set};
    int64_t left;
    int result = select_until(count, sets, timeout != NULL, timeout ? after(timeout) : 0, mask, &left);
    return result == HC_UNOWNED ? hc_real.pselect(count, read_set, write_set, error_set, timeout, mask) : result;
}

/// An epoll wait: the instance, where events go, and the mask.
typedef struct epolling {
    int instance;
    struct epoll_event *events;
    int capacity;
    const sigset_t *mask;
    int ready;
} epolling;

static int epoll_for(hc_wait *wait, int milliseconds, const sigset_t *mask) {
    epolling *e = wait->context;
    long ready = HC_RAW(SYS_epoll_pwait, e->instance, e->events, e->capacity, milliseconds, mask, _NSIG / 8);
    if (ready < 0) {
        wait->error = errno;
        return HC_ERROR;
    }
    e->ready = (int)ready;
    return ready > 0;
}

static int look_epoll(hc_wait *wait) { return epoll_for(wait, 0, NULL); }

static int block_epoll(hc_wait *wait, int64_t slice) {
    epolling *e = wait->context;
    if (wait->bell < 0) return epoll_for(wait, (int)((slice + 999999) / 1000000), e->mask);
    // The instance is readable while it has events: block on it and the bell, then take the events.
    struct pollfd instance = {.fd = e->instance, .events = POLLIN};
    long ready = hc_poll_with_bell(wait, &instance, 1, slice, e->mask);
    if (ready < 0) {
        wait->error = errno;
        return HC_ERROR;
    }
    return ready > 0 ? epoll_for(wait, 0, NULL) : 0;
}

static int epoll_until(int instance, struct epoll_event *events, int capacity, int has_deadline, int64_t deadline, const sigset_t *mask) {
    if (capacity <= 0) {
        errno = EINVAL;
        return -1;
    }
    epolling e = {.instance = instance, .events = events, .capacity = capacity, .mask = mask};
    hc_wait wait = {.has_deadline = has_deadline, .deadline = deadline, .has_fds = 1, .look = look_epoll, .block = block_epoll, .context = &e};
    int result = hc_wait_for(&wait);
    if (result == HC_UNOWNED) return HC_UNOWNED;
    if (result == HC_ERROR) {
        errno = wait.error;
        return -1;
    }
    return result == HC_READY ? e.ready : 0;
}

HC_EXPORT int epoll_pwait(int instance, struct epoll_event *events, int capacity, int timeout, const sigset_t *mask) {
    if (!hc_owning()) return hc_real.epoll_pwait(instance, events, capacity, timeout, mask);
    hc_fire_due_timers();
    int result;
    if (timeout == 0 || (result = epoll_until(instance, events, capacity, timeout > 0, hc_now() + (int64_t)timeout * 1000000, mask)) == HC_UNOWNED)
        return hc_real.epoll_pwait(instance, events, capacity, timeout, mask);
    return result;
}

HC_EXPORT int epoll_wait(int instance, struct epoll_event *events, int capacity, int timeout) {
    if (!hc_owning()) return hc_real.epoll_wait(instance, events, capacity, timeout);
    return epoll_pwait(instance, events, capacity, timeout, NULL);
}

HC_EXPORT int epoll_pwait2(int instance, struct epoll_event *events, int capacity, const struct timespec *timeout, const sigset_t *mask) {
    if (!hc_owning()) return hc_real.epoll_pwait2(instance, events, capacity, timeout, mask);
    if (timeout != NULL && !hc_valid(timeout)) {
        errno = EINVAL;
        return -1;
    }
    hc_fire_due_timers();
    int result;
    if ((timeout != NULL && hc_ns(timeout) == 0)
        || (result = epoll_until(instance, events, capacity, timeout != NULL, timeout ? after(timeout) : 0, mask)) == HC_UNOWNED)
        return hc_real.epoll_pwait2(instance, events, capacity, timeout, mask);
    return result;
}

// MARK: Condition variables, mutexes, semaphores

/// A timed wait on a condition variable, a mutex or a semaphore.
typedef struct syncing {
    void *object;
    pthread_mutex_t *mutex;
    /// A condition's signal count when the wait began.
    uint32_t signals;
    /// How a mutex or a semaphore is taken (a `taking`).
    const void *how;
} syncing;

/// Signals and broadcasts sent on this process's condition variables, counted by the variable's address (hashed; a
/// shared count only costs a spurious wake-up): a timed waiter between two slices of its real wait is not a waiter
/// glibc would wake, so it looks here.
static uint32_t condition_signals[256];

static uint32_t *signals_of(const void *condition) { return &condition_signals[((uintptr_t)condition >> 4) & 255]; }

HC_EXPORT int pthread_cond_signal(pthread_cond_t *condition) {
    __atomic_fetch_add(signals_of(condition), 1, __ATOMIC_SEQ_CST);
    return hc_real.pthread_cond_signal(condition);
}

HC_EXPORT int pthread_cond_broadcast(pthread_cond_t *condition) {
    __atomic_fetch_add(signals_of(condition), 1, __ATOMIC_SEQ_CST);
    return hc_real.pthread_cond_broadcast(condition);
}

static int block_condition(hc_wait *wait, int64_t slice) {
    syncing *s = wait->context;
    struct timespec until = hc_real_after(slice);
    // Signalled: the caller gets 0. The slice ended: the wait goes on unless the condition was signalled since the
    // wait began (then 0, which the caller re-checks, as after any wake-up). A wake-up at the end of every slice would
    // depend on how long the machine took, and a program that waits on a condition as a timer would tick early.
    if (hc_real.pthread_cond_clockwait(s->object, s->mutex, CLOCK_MONOTONIC, &until) != ETIMEDOUT) return 1;
    return __atomic_load_n(signals_of(s->object), __ATOMIC_SEQ_CST) != s->signals;
}

/// A condition wait until a time on a clock of `kind`: 0, or ETIMEDOUT.
static int condition_until(pthread_cond_t *condition, pthread_mutex_t *mutex, int kind, const struct timespec *time) {
    if (!hc_valid(time)) return EINVAL;
    syncing s = {condition, mutex, __atomic_load_n(signals_of(condition), __ATOMIC_SEQ_CST)};
    hc_wait wait = {.has_deadline = 1, .deadline = hc_monotonic_from(kind, time), .block = block_condition, .slice = HC_COND_SLICE, .context = &s};
    int result = hc_wait_for(&wait);
    if (result == HC_UNOWNED) return hc_real.pthread_cond_clockwait(condition, mutex, kind == 2 ? CLOCK_REALTIME : CLOCK_MONOTONIC, time);
    return result == HC_TIMEOUT ? ETIMEDOUT : 0;
}

HC_EXPORT int pthread_cond_timedwait(pthread_cond_t *condition, pthread_mutex_t *mutex, const struct timespec *time) {
    if (!hc_owning()) return hc_real.pthread_cond_timedwait(condition, mutex, time);
    // glibc keeps the clock of pthread_condattr_setclock in bit 1 of __wrefs (0: CLOCK_REALTIME, 1: CLOCK_MONOTONIC).
    int monotonic = (__atomic_load_n(&condition->__data.__wrefs, __ATOMIC_RELAXED) & 2) != 0;
    return condition_until(condition, mutex, monotonic ? 1 : 2, time);
}

HC_EXPORT int pthread_cond_clockwait(pthread_cond_t *condition, pthread_mutex_t *mutex, clockid_t clock, const struct timespec *time) {
    if (!hc_owning() || (clock != CLOCK_MONOTONIC && clock != CLOCK_REALTIME)) return hc_real.pthread_cond_clockwait(condition, mutex, clock, time);
    return condition_until(condition, mutex, hc_clock_kind(clock), time);
}

HC_EXPORT int pthread_cond_wait(pthread_cond_t *condition, pthread_mutex_t *mutex) {
    int began = hc_thin_begin();
    int result = hc_real.pthread_cond_wait(condition, mutex);
    hc_thin_end(began);
    return result;
}

/* A mutex or a semaphore taken within a deadline: one wait, with each object's own try and clocked take. */
typedef struct taking {
    /* 1 when the object was taken at once. */
    int (*try_take)(void *object);
    /* Takes the object before `until` on `clock`: 0, or an error number (ETIMEDOUT when the time passed). */
    int (*take_before)(void *object, clockid_t clock, const struct timespec *until);
} taking;

static int try_mutex(void *object) { return pthread_mutex_trylock(object) == 0; }

static int take_mutex_before(void *object, clockid_t clock, const struct timespec *until) {
    return hc_real.pthread_mutex_clocklock(object, clock, until);
}

static int try_semaphore(void *object) {
    int saved = errno;
    int taken = sem_trywait(object) == 0;
    errno = saved;
    return taken;
}

static int take_semaphore_before(void *object, clockid_t clock, const struct timespec *until) {
    int saved = errno;
    int error = hc_real.sem_clockwait(object, clock, until) == 0 ? 0 : errno;
    errno = saved;
    return error;
}

static const taking mutex_taking = {try_mutex, take_mutex_before};
static const taking semaphore_taking = {try_semaphore, take_semaphore_before};

static int look_taking(hc_wait *wait) {
    const syncing *s = wait->context;
    return ((const taking *)s->how)->try_take(s->object);
}

static int block_taking(hc_wait *wait, int64_t slice) {
    const syncing *s = wait->context;
    struct timespec until = hc_real_after(slice);
    int error = ((const taking *)s->how)->take_before(s->object, CLOCK_MONOTONIC, &until);
    if (error == ETIMEDOUT) return 0;
    if (error == 0) return 1;
    wait->error = error;
    return HC_ERROR;
}

/* Takes `object` by `time` on the clock of `kind`: 0, or an error number. */
static int take_until(void *object, const taking *how, int kind, const struct timespec *time) {
    if (!hc_valid(time)) return EINVAL;
    syncing s = {.object = object, .how = how};
    hc_wait wait = {.has_deadline = 1, .deadline = hc_monotonic_from(kind, time), .look = look_taking, .block = block_taking, .context = &s};
    int result = hc_wait_for(&wait);
    if (result == HC_UNOWNED) return how->take_before(object, kind == 2 ? CLOCK_REALTIME : CLOCK_MONOTONIC, time);
    if (result == HC_ERROR) return wait.error;
    return result == HC_TIMEOUT ? ETIMEDOUT : 0;
}

HC_EXPORT int pthread_mutex_timedlock(pthread_mutex_t *mutex, const struct timespec *time) {
    if (!hc_owning()) return hc_real.pthread_mutex_timedlock(mutex, time);
    return take_until(mutex, &mutex_taking, 2, time);
}

HC_EXPORT int pthread_mutex_clocklock(pthread_mutex_t *mutex, clockid_t clock, const struct timespec *time) {
    if (!hc_owning() || (clock != CLOCK_MONOTONIC && clock != CLOCK_REALTIME)) return hc_real.pthread_mutex_clocklock(mutex, clock, time);
    return take_until(mutex, &mutex_taking, hc_clock_kind(clock), time);
}

static int semaphore_until(sem_t *semaphore, int kind, const struct timespec *time) {
    int error = take_until(semaphore, &semaphore_taking, kind, time);
    if (error == 0) return 0;
    errno = error;
    return -1;
}

HC_EXPORT int sem_timedwait(sem_t *semaphore, const struct timespec *time) {
    if (!hc_owning()) return hc_real.sem_timedwait(semaphore, time);
    return semaphore_until(semaphore, 2, time);
}

HC_EXPORT int sem_clockwait(sem_t *semaphore, clockid_t clock, const struct timespec *time) {
    if (!hc_owning() || (clock != CLOCK_MONOTONIC && clock != CLOCK_REALTIME)) return hc_real.sem_clockwait(semaphore, clock, time);
    return semaphore_until(semaphore, hc_clock_kind(clock), time);
}

HC_EXPORT int sem_wait(sem_t *semaphore) {
    int began = hc_thin_begin();
    int result = hc_real.sem_wait(semaphore);
    hc_thin_end(began);
    return result;
}

HC_EXPORT int pthread_join(pthread_t thread, void **value) {
    int began = hc_thin_begin();
    int result = hc_real.pthread_join(thread, value);
    hc_thin_end(began);
    return result;
}

// MARK: Signals and children

/// A sigtimedwait: the set and where the signal's details go.
typedef struct signalling {
    const sigset_t *set;
    siginfo_t *info;
    int number;
} signalling;

static int signal_for(hc_wait *wait, const struct timespec *timeout) {
    signalling *s = wait->context;
    long number = HC_RAW(SYS_rt_sigtimedwait, s->set, s->info, timeout, _NSIG / 8);
    if (number > 0) {
        s->number = (int)number;
        return 1;
    }
    if (errno == EAGAIN) return 0;
    wait->error = errno;
    return HC_ERROR;
}

static int look_signal(hc_wait *wait) {
    struct timespec zero = {0, 0};
    return signal_for(wait, &zero);
}

static int block_signal(hc_wait *wait, int64_t slice) {
    struct timespec timeout = hc_timespec(slice);
    return signal_for(wait, &timeout);
}

HC_EXPORT int sigtimedwait(const sigset_t *set, siginfo_t *info, const struct timespec *timeout) {
    if (!hc_owning()) return hc_real.sigtimedwait(set, info, timeout);
    if (timeout == NULL) {
        int began = hc_thin_begin();
        int result = hc_real.sigtimedwait(set, info, NULL);
        hc_thin_end(began);
        return result;
    }
    if (!hc_valid(timeout)) {
        errno = EINVAL;
        return -1;
    }
    if (hc_ns(timeout) == 0) return hc_real.sigtimedwait(set, info, timeout);
    signalling s = {.set = set, .info = info};
    hc_wait wait = {.has_deadline = 1, .deadline = after(timeout), .look = look_signal, .block = block_signal, .context = &s};
    int result = hc_wait_for(&wait);
    if (result == HC_UNOWNED) return hc_real.sigtimedwait(set, info, timeout);
    if (result == HC_READY) return s.number;
    errno = result == HC_TIMEOUT ? EAGAIN : wait.error;
    return -1;
}

HC_EXPORT int sigwaitinfo(const sigset_t *set, siginfo_t *info) {
    int began = hc_thin_begin();
    int result = hc_real.sigwaitinfo(set, info);
    hc_thin_end(began);
    return result;
}

HC_EXPORT int sigwait(const sigset_t *set, int *number) {
    int began = hc_thin_begin();
    int result = hc_real.sigwait(set, number);
    hc_thin_end(began);
    return result;
}

HC_EXPORT int sigsuspend(const sigset_t *mask) {
    int began = hc_thin_begin();
    int result = hc_real.sigsuspend(mask);
    hc_thin_end(began);
    return result;
}

HC_EXPORT int pause(void) {
    int began = hc_thin_begin();
    int result = hc_real.pause();
    hc_thin_end(began);
    return result;
}

HC_EXPORT pid_t wait(int *status) {
    int began = hc_thin_begin();
    pid_t result = hc_real.wait(status);
    hc_thin_end(began);
    return result;
}

HC_EXPORT pid_t waitpid(pid_t pid, int *status, int options) {
    int began = (options & WNOHANG) ? 0 : hc_thin_begin();
    pid_t result = hc_real.waitpid(pid, status, options);
    hc_thin_end(began);
    return result;
}

HC_EXPORT pid_t wait3(int *status, int options, struct rusage *usage) {
    int began = (options & WNOHANG) ? 0 : hc_thin_begin();
    pid_t result = hc_real.wait3(status, options, usage);
    hc_thin_end(began);
    return result;
}

HC_EXPORT pid_t wait4(pid_t pid, int *status, int options, struct rusage *usage) {
    int began = (options & WNOHANG) ? 0 : hc_thin_begin();
    pid_t result = hc_real.wait4(pid, status, options, usage);
    hc_thin_end(began);
    return result;
}

HC_EXPORT int waitid(idtype_t type, id_t id, siginfo_t *info, int options) {
    int began = (options & WNOHANG) ? 0 : hc_thin_begin();
    int result = hc_real.waitid(type, id, info, options);
    hc_thin_end(began);
    return result;
}

// MARK: Blocking reads

HC_EXPORT ssize_t read(int fd, void *buffer, size_t size) {
    if (hc_wait_ready(fd, POLLIN) != 0) return -1;
    return hc_real.read(fd, buffer, size);
}

HC_EXPORT ssize_t readv(int fd, const struct iovec *vectors, int count) {
    if (hc_wait_ready(fd, POLLIN) != 0) return -1;
    return hc_real.readv(fd, vectors, count);
}

HC_EXPORT ssize_t recv(int fd, void *buffer, size_t size, int flags) {
    if (!(flags & MSG_DONTWAIT) && hc_wait_ready(fd, POLLIN) != 0) return -1;
    return hc_real.recv(fd, buffer, size, flags);
}

HC_EXPORT ssize_t recvfrom(int fd, void *buffer, size_t size, int flags, struct sockaddr *address, socklen_t *length) {
    if (!(flags & MSG_DONTWAIT) && hc_wait_ready(fd, POLLIN) != 0) return -1;
    return hc_real.recvfrom(fd, buffer, size, flags, address, length);
}

HC_EXPORT ssize_t recvmsg(int fd, struct msghdr *message, int flags) {
    if (!(flags & MSG_DONTWAIT) && hc_wait_ready(fd, POLLIN) != 0) return -1;
    return hc_real.recvmsg(fd, message, flags);
}

HC_EXPORT int accept(int fd, struct sockaddr *address, socklen_t *length) {
    if (hc_wait_ready(fd, POLLIN) != 0) return -1;
    return hc_real.accept(fd, address, length);
}

HC_EXPORT int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags) {
    if (hc_wait_ready(fd, POLLIN) != 0) return -1;
    return hc_real.accept4(fd, address, length, flags);
}

ssize_t __read_chk(int fd, void *buffer, size_t size, size_t length);
ssize_t __recv_chk(int fd, void *buffer, size_t size, size_t length, int flags);
ssize_t __recvfrom_chk(int fd, void *buffer, size_t size, size_t length, int flags, struct sockaddr *address, socklen_t *address_length);

HC_EXPORT ssize_t __read_chk(int fd, void *buffer, size_t size, size_t length) {
    if (size <= length && hc_wait_ready(fd, POLLIN) != 0) return -1;
    return hc_real.read_chk(fd, buffer, size, length);
}

HC_EXPORT ssize_t __recv_chk(int fd, void *buffer, size_t size, size_t length, int flags) {
    if (size <= length && !(flags & MSG_DONTWAIT) && hc_wait_ready(fd, POLLIN) != 0) return -1;
    return hc_real.recv_chk(fd, buffer, size, length, flags);
}

HC_EXPORT ssize_t __recvfrom_chk(int fd, void *buffer, size_t size, size_t length, int flags, struct sockaddr *address, socklen_t *address_length) {
    if (size <= length && !(flags & MSG_DONTWAIT) && hc_wait_ready(fd, POLLIN) != 0) return -1;
    return hc_real.recvfrom_chk(fd, buffer, size, length, flags, address, address_length);
}

// MARK: syscall()

/// A futex wait with a timeout: the word and the value it must still hold.
typedef struct futexing {
    uint32_t *word;
    uint32_t value, bitset;
    int shared_flag;
} futexing;

static int look_futex(hc_wait *wait) {
    futexing *f = wait->context;
    return __atomic_load_n(f->word, __ATOMIC_SEQ_CST) != f->value;
}

static int block_futex(hc_wait *wait, int64_t slice) {
    futexing *f = wait->context;
    struct timespec until = hc_real_after(slice);
    if (HC_RAW(SYS_futex, f->word, FUTEX_WAIT_BITSET | f->shared_flag, f->value, &until, NULL, f->bitset) == 0) return 1;
    if (errno == ETIMEDOUT) return 0;
    if (errno == EAGAIN) return 1;
    wait->error = errno;
    return HC_ERROR;
}

/// syscall(SYS_futex, …): a FUTEX_WAIT or FUTEX_WAIT_BITSET with a timeout is an owned wait until the word changes (a
/// wake-up, or a spurious one, as futex callers allow); one without is a thin wait; any other operation is forwarded.
static long futex_call(long arguments[6]) {
    int operation = (int)arguments[1], command = operation & FUTEX_CMD_MASK;
    const struct timespec *timeout = (const struct timespec *)arguments[3];
    if (command != FUTEX_WAIT && command != FUTEX_WAIT_BITSET)
        return hc_real.syscall(SYS_futex, arguments[0], arguments[1], arguments[2], arguments[3], arguments[4], arguments[5]);
    if (timeout == NULL) {
        int began = hc_thin_begin();
        long result = hc_real.syscall(SYS_futex, arguments[0], arguments[1], arguments[2], arguments[3], arguments[4], arguments[5]);
        hc_thin_end(began);
        return result;
    }
    if (!hc_valid(timeout)) {
        errno = EINVAL;
        return -1;
    }
    futexing f = {
        .word = (uint32_t *)arguments[0], .value = (uint32_t)arguments[2],
        .bitset = command == FUTEX_WAIT_BITSET ? (uint32_t)arguments[5] : FUTEX_BITSET_MATCH_ANY,
        .shared_flag = operation & FUTEX_PRIVATE_FLAG,
    };
    int64_t deadline = command == FUTEX_WAIT ? after(timeout) : hc_monotonic_from((operation & FUTEX_CLOCK_REALTIME) ? 2 : 1, timeout);
    if (__atomic_load_n(f.word, __ATOMIC_SEQ_CST) != f.value) {
        errno = EAGAIN;
        return -1;
    }
    hc_wait wait = {.has_deadline = 1, .deadline = deadline, .has_fds = 1, .look = look_futex, .block = block_futex, .context = &f};
    int result = hc_wait_for(&wait);
    if (result == HC_UNOWNED)
        return hc_real.syscall(SYS_futex, arguments[0], arguments[1], arguments[2], arguments[3], arguments[4], arguments[5]);
    if (result == HC_READY) return 0;
    errno = result == HC_TIMEOUT ? ETIMEDOUT : wait.error;
    return -1;
}

HC_EXPORT long syscall(long number, ...) {
    long a[6];
    va_list list;
    va_start(list, number);
    for (int i = 0; i < 6; i++) a[i] = va_arg(list, long);
    va_end(list);
    if (!hc_clock_mapped()) return hc_real.syscall(number, a[0], a[1], a[2], a[3], a[4], a[5]);
    switch (number) {
    case SYS_clock_gettime:
        return clock_gettime((clockid_t)a[0], (struct timespec *)a[1]);
#ifdef SYS_gettimeofday
    case SYS_gettimeofday:
        return gettimeofday((struct timeval *)a[0], (void *)a[1]);
#endif
#ifdef SYS_time
    case SYS_time:
        return time((time_t *)a[0]);
#endif
    }
    if (hc_in_wait) return hc_real.syscall(number, a[0], a[1], a[2], a[3], a[4], a[5]);
    switch (number) {
    case SYS_nanosleep:
        return nanosleep((const struct timespec *)a[0], (struct timespec *)a[1]);
    case SYS_clock_nanosleep: {
        int error = clock_nanosleep((clockid_t)a[0], (int)a[1], (const struct timespec *)a[2], (struct timespec *)a[3]);
        if (error == 0) return 0;
        errno = error;
        return -1;
    }
#ifdef SYS_poll
    case SYS_poll:
        return poll((struct pollfd *)a[0], (nfds_t)a[1], (int)a[2]);
#endif
    case SYS_ppoll:
        return ppoll((struct pollfd *)a[0], (nfds_t)a[1], (const struct timespec *)a[2], (const sigset_t *)a[3]);
#ifdef SYS_select
    case SYS_select:
        return select((int)a[0], (fd_set *)a[1], (fd_set *)a[2], (fd_set *)a[3], (struct timeval *)a[4]);
#endif
    case SYS_pselect6: {
        const struct {
            const sigset_t *mask;
            size_t size;
        } *signals = (const void *)a[5];
        return pselect((int)a[0], (fd_set *)a[1], (fd_set *)a[2], (fd_set *)a[3], (const struct timespec *)a[4], signals ? signals->mask : NULL);
    }
#ifdef SYS_epoll_wait
    case SYS_epoll_wait:
        return epoll_wait((int)a[0], (struct epoll_event *)a[1], (int)a[2], (int)a[3]);
#endif
    case SYS_epoll_pwait:
        return epoll_pwait((int)a[0], (struct epoll_event *)a[1], (int)a[2], (int)a[3], (const sigset_t *)a[4]);
#ifdef SYS_epoll_pwait2
    case SYS_epoll_pwait2:
        return epoll_pwait2((int)a[0], (struct epoll_event *)a[1], (int)a[2], (const struct timespec *)a[3], (const sigset_t *)a[4]);
#endif
    case SYS_futex:
        return futex_call(a);
    default:
        return hc_real.syscall(number, a[0], a[1], a[2], a[3], a[4], a[5]);
    }
}
