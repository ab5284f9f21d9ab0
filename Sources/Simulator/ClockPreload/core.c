// libhal-clock.so's core: loading (the region, the next definitions), each thread's slot, and the owned wait of
// hal_clock.h's protocol that every wrapper runs.
#include "preload.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

HC_HIDDEN hc_next hc_real;
HC_HIDDEN hal_clock_region *hc_region;
HC_HIDDEN int hc_loaded;
HC_HIDDEN HC_TLS int hc_in_wait;

static HC_TLS int thread_slot = -1;
static HC_TLS pid_t thread_tid;
/// The thread's bell (hal_clock.h): its descriptor, its thread, and what it is (a program may close or reuse the
/// number), and the folder the bells are made in.
static HC_TLS int bell_fd = -1;
static HC_TLS pid_t bell_tid;
static HC_TLS dev_t bell_device;
static HC_TLS ino_t bell_inode;
static char bell_folder[4096];
static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static pthread_key_t slot_key;

/// A symbol's next definition; for the condition variables, glibc's current version (dlsym alone may give the one of
/// 2002, which takes another layout).
static void *next(const char *name, const char *version) {
    void *found = version ? dlvsym(RTLD_NEXT, name, version) : NULL;
    return found ? found : dlsym(RTLD_NEXT, name);
}

static void complain(const char *path, const char *problem) {
    char line[512];
    int n = snprintf(line, sizeof line, "hal-clock: cannot use HAL_CLOCK_FILE=%s: %s; the program runs on the wall clock\n", path, problem);
    if (n > 0) HC_RAW(SYS_write, 2, line, (size_t)(n < (int)sizeof line ? n : (int)sizeof line - 1));
}

/// Tells the scheduler that this thread may have become quiescent (hal_clock.h): a wake only while it blocks.
static void changed(void) {
    __atomic_add_fetch(&hc_region->changes, 1u, __ATOMIC_SEQ_CST);
    if (HC_LOAD(&hc_region->scheduler_waiting)) HC_RAW(SYS_futex, &hc_region->changes, FUTEX_WAKE, 1, NULL, NULL, 0);
}

static void thread_exits(void *value) {
    int index = (int)(intptr_t)value - 1;
    if (hc_region == NULL || index < 0 || index >= HAL_CLOCK_SLOTS) return;
    hal_clock_slot *slot = &hc_region->slots[index];
    int32_t tid = thread_tid;
    HC_STORE(&slot->state, HAL_CLOCK_RUNNING);
    __atomic_compare_exchange_n(&slot->tid, &tid, 0, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    thread_slot = -1;
    if (bell_fd >= 0 && bell_tid == thread_tid) HC_RAW(SYS_close, bell_fd);
    bell_fd = -1;
    changed();
}

static void child_after_fork(void) {
    thread_slot = -1;
    // The parent thread's bell, inherited: this thread has another tid, and another bell.
    if (bell_fd >= 0) HC_RAW(SYS_close, bell_fd);
    bell_fd = -1;
    hc_timers_after_fork();
}

static void load(void) {
#define NEXT(field, name, version) hc_real.field = next(name, version)
    NEXT(syscall, "syscall", NULL);
    NEXT(clock_gettime, "clock_gettime", NULL);
    NEXT(gettimeofday, "gettimeofday", NULL);
    NEXT(time, "time", NULL);
    NEXT(timespec_get, "timespec_get", NULL);
    NEXT(nanosleep, "nanosleep", NULL);
    NEXT(clock_nanosleep, "clock_nanosleep", NULL);
    NEXT(sleep, "sleep", NULL);
    NEXT(usleep, "usleep", NULL);
    NEXT(poll, "poll", NULL);
    NEXT(ppoll, "ppoll", NULL);
    NEXT(select, "select", NULL);
    NEXT(pselect, "pselect", NULL);
    NEXT(epoll_wait, "epoll_wait", NULL);
    NEXT(epoll_pwait, "epoll_pwait", NULL);
    NEXT(epoll_pwait2, "epoll_pwait2", NULL);
    NEXT(pthread_cond_wait, "pthread_cond_wait", "GLIBC_2.3.2");
    NEXT(pthread_cond_timedwait, "pthread_cond_timedwait", "GLIBC_2.3.2");
    NEXT(pthread_cond_clockwait, "pthread_cond_clockwait", NULL);
    NEXT(pthread_cond_signal, "pthread_cond_signal", "GLIBC_2.3.2");
    NEXT(pthread_cond_broadcast, "pthread_cond_broadcast", "GLIBC_2.3.2");
    NEXT(pthread_mutex_timedlock, "pthread_mutex_timedlock", NULL);
    NEXT(pthread_mutex_clocklock, "pthread_mutex_clocklock", NULL);
    NEXT(pthread_join, "pthread_join", NULL);
    NEXT(sem_wait, "sem_wait", NULL);
    NEXT(sem_timedwait, "sem_timedwait", NULL);
    NEXT(sem_clockwait, "sem_clockwait", NULL);
    NEXT(sigtimedwait, "sigtimedwait", NULL);
    NEXT(sigwaitinfo, "sigwaitinfo", NULL);
    NEXT(sigwait, "sigwait", NULL);
    NEXT(sigsuspend, "sigsuspend", NULL);
    NEXT(pause, "pause", NULL);
    NEXT(wait, "wait", NULL);
    NEXT(waitpid, "waitpid", NULL);
    NEXT(wait3, "wait3", NULL);
    NEXT(wait4, "wait4", NULL);
    NEXT(waitid, "waitid", NULL);
    NEXT(read, "read", NULL);
    NEXT(readv, "readv", NULL);
    NEXT(recv, "recv", NULL);
    NEXT(recvfrom, "recvfrom", NULL);
    NEXT(recvmsg, "recvmsg", NULL);
    NEXT(accept, "accept", NULL);
    NEXT(accept4, "accept4", NULL);
    NEXT(read_chk, "__read_chk", NULL);
    NEXT(recv_chk, "__recv_chk", NULL);
    NEXT(recvfrom_chk, "__recvfrom_chk", NULL);
    NEXT(poll_chk, "__poll_chk", NULL);
    NEXT(ppoll_chk, "__ppoll_chk", NULL);
    NEXT(timerfd_create, "timerfd_create", NULL);
    NEXT(timerfd_settime, "timerfd_settime", NULL);
    NEXT(timerfd_gettime, "timerfd_gettime", NULL);
    NEXT(close, "close", NULL);
#undef NEXT
    const char *path = getenv("HAL_CLOCK_FILE");
    if (path != NULL && *path != 0 && hc_real.syscall != NULL) {
        int fd = (int)HC_RAW(SYS_openat, AT_FDCWD, path, O_RDWR | O_CLOEXEC);
        if (fd < 0) {
            complain(path, strerror(errno));
        } else {
            void *mapped = mmap(NULL, sizeof(hal_clock_region), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
            int saved = errno;
            HC_RAW(SYS_close, fd);
            if (mapped == MAP_FAILED) {
                complain(path, strerror(saved));
            } else if (HC_LOAD(&((hal_clock_region *)mapped)->magic) != HAL_CLOCK_MAGIC) {
                complain(path, "not a clock region made by hal_clock_create");
                munmap(mapped, sizeof(hal_clock_region));
            } else {
                const char *slash = strrchr(path, '/');
                if (slash == NULL) snprintf(bell_folder, sizeof bell_folder, ".");
                else snprintf(bell_folder, sizeof bell_folder, "%.*s", (int)(slash - path), path);
                pthread_key_create(&slot_key, thread_exits);
                pthread_atfork(NULL, NULL, child_after_fork);
                hc_region = mapped;
            }
        }
    }
    __atomic_store_n(&hc_loaded, 1, __ATOMIC_RELEASE);
}

HC_HIDDEN void hc_ensure_loaded(void) { pthread_once(&load_once, load); }

__attribute__((constructor)) static void loaded(void) { hc_ensure_loaded(); }

// MARK: Time

HC_HIDDEN int hc_clock_kind(clockid_t clock) {
    switch (clock) {
    case CLOCK_MONOTONIC:
    case CLOCK_MONOTONIC_RAW:
    case CLOCK_MONOTONIC_COARSE:
    case CLOCK_BOOTTIME:
    case CLOCK_BOOTTIME_ALARM:
        return 1;
    case CLOCK_REALTIME:
    case CLOCK_REALTIME_COARSE:
    case CLOCK_REALTIME_ALARM:
    case CLOCK_TAI:
        return 2;
    default:
        return 0;
    }
}

HC_HIDDEN int64_t hc_ns(const struct timespec *time) { return (int64_t)time->tv_sec * HC_SECOND + time->tv_nsec; }

HC_HIDDEN struct timespec hc_timespec(int64_t ns) {
    int64_t seconds = ns / HC_SECOND, rest = ns % HC_SECOND;
    if (rest < 0) rest += HC_SECOND, seconds -= 1;
    return (struct timespec){.tv_sec = (time_t)seconds, .tv_nsec = (long)rest};
}

HC_HIDDEN int hc_valid(const struct timespec *time) { return time != NULL && time->tv_nsec >= 0 && time->tv_nsec < HC_SECOND; }

HC_HIDDEN int64_t hc_monotonic_from(int kind, const struct timespec *time) {
    int64_t ns = hc_ns(time);
    return kind == 2 ? ns - HC_LOAD(&hc_region->realtime_offset) : ns;
}

HC_HIDDEN struct timespec hc_real_after(int64_t ns) {
    struct timespec now;
    hc_real.clock_gettime(CLOCK_MONOTONIC, &now);
    return hc_timespec(hc_ns(&now) + ns);
}

// MARK: Slots

/// The calling thread's slot, taken the first time (and again in a forked child, whose thread has another tid, or if
/// the slot no longer names this thread).
static hal_clock_slot *my_slot(void) {
    pid_t tid = gettid();
    if (thread_slot >= 0 && thread_tid == tid && HC_LOAD(&hc_region->slots[thread_slot].tid) == tid) return &hc_region->slots[thread_slot];
    // A slot still holding this tid is a dead thread's: tids are unique among live threads.
    for (int i = 0; i < HAL_CLOCK_SLOTS; i++) {
        int32_t stale = tid;
        if (HC_LOAD(&hc_region->slots[i].tid) == tid) {
            HC_STORE(&hc_region->slots[i].state, HAL_CLOCK_RUNNING);
            __atomic_compare_exchange_n(&hc_region->slots[i].tid, &stale, 0, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        }
    }
    for (int i = 0; i < HAL_CLOCK_SLOTS; i++) {
        int32_t free_tid = 0;
        hal_clock_slot *slot = &hc_region->slots[i];
        if (HC_LOAD(&slot->tid) != 0) continue;
        // Claimed as -1 until the pid is written: the scheduler frees a slot whose thread is gone by its pid and tid,
        // and the previous holder's pid beside this tid would make it free this live thread's slot.
        if (!__atomic_compare_exchange_n(&slot->tid, &free_tid, -1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) continue;
        HC_STORE(&slot->pid, (int32_t)getpid());
        HC_STORE(&slot->state, HAL_CLOCK_RUNNING);
        HC_STORE(&slot->tid, (int32_t)tid);
        thread_slot = i;
        thread_tid = tid;
        pthread_setspecific(slot_key, (void *)(intptr_t)(i + 1));
        return slot;
    }
    static int warned;
    if (!__atomic_exchange_n(&warned, 1, __ATOMIC_SEQ_CST)) {
        static const char line[] = "hal-clock: every slot of the clock is taken; this thread's waits run on the wall clock\n";
        HC_RAW(SYS_write, 2, line, sizeof line - 1);
    }
    return NULL;
}

/// The calling thread's bell, made and opened the first time (hal_clock.h), and named in its slot; -1 when it cannot
/// be made.
static int my_bell(hal_clock_slot *slot, pid_t tid) {
    if (bell_fd >= 0) {
        struct stat status;
        if (bell_tid == tid && HC_RAW(SYS_fstat, bell_fd, &status) == 0 && status.st_dev == bell_device && status.st_ino == bell_inode) {
            if (HC_LOAD(&slot->bell) != tid) HC_STORE(&slot->bell, (int32_t)tid);
            return bell_fd;
        }
        bell_fd = -1;  // closed by the program, or its number reused: no longer the bell
    }
    char path[sizeof bell_folder + 32];
    snprintf(path, sizeof path, "%s/bell-%d", bell_folder, (int)tid);
    if (HC_RAW(SYS_mknodat, AT_FDCWD, path, S_IFIFO | 0600, 0) != 0 && errno != EEXIST) return -1;
    int fd = (int)HC_RAW(SYS_openat, AT_FDCWD, path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    struct stat status;
    if (fd < 0) return -1;
    if (HC_RAW(SYS_fstat, fd, &status) != 0) {
        HC_RAW(SYS_close, fd);
        return -1;
    }
    bell_fd = fd;
    bell_tid = tid;
    bell_device = status.st_dev;
    bell_inode = status.st_ino;
    hc_empty_bell(fd);
    HC_STORE(&slot->bell, (int32_t)tid);
    return fd;
}

HC_HIDDEN void hc_empty_bell(int bell) {
    char bytes[64];
    while (HC_RAW(SYS_read, bell, bytes, sizeof bytes) == (long)sizeof bytes) {
    }
}

HC_HIDDEN long hc_poll_with_bell(hc_wait *wait, struct pollfd *descriptors, nfds_t count, int64_t slice, const sigset_t *mask) {
    struct timespec timeout = hc_timespec(slice);
    if (wait->bell < 0 || count > HC_BELL_POLL_MAX) return HC_RAW(SYS_ppoll, descriptors, count, &timeout, mask, _NSIG / 8);
    struct pollfd all[HC_BELL_POLL_MAX + 1];
    memcpy(all, descriptors, count * sizeof *all);
    all[count] = (struct pollfd){.fd = wait->bell, .events = POLLIN};
    long ready = HC_RAW(SYS_ppoll, all, count + 1, &timeout, mask, _NSIG / 8);
    if (ready <= 0) return ready;
    if (all[count].revents) {
        hc_empty_bell(wait->bell);
        ready--;
    }
    for (nfds_t i = 0; i < count; i++) descriptors[i].revents = all[i].revents;
    return ready;
}

/// Writes a new wait into the slot (the deadline the scheduler sees is the earlier of the wait's and, for a wait on
/// descriptors, the process's next timer) and marks it WAITING.
static void begin(hal_clock_slot *slot, const hc_wait *wait, int64_t *deadline, int *has_deadline) {
    *has_deadline = wait->has_deadline;
    *deadline = wait->deadline;
    int64_t timer;
    if (wait->has_fds && hc_next_timer(&timer) && (!*has_deadline || timer < *deadline)) {
        *deadline = timer;
        *has_deadline = 1;
    }
    HC_STORE(&slot->has_deadline, 0);
    HC_STORE(&slot->deadline, *deadline);
    HC_STORE(&slot->has_fds, wait->has_fds);
    HC_STORE(&slot->released, 0u);
    HC_STORE(&slot->seen_epoch, (uint64_t)0);
    HC_STORE(&slot->seq, __atomic_fetch_add(&hc_region->next_seq, 1, __ATOMIC_SEQ_CST));
    HC_STORE(&slot->has_deadline, *has_deadline);
    HC_STORE(&slot->state, HAL_CLOCK_WAITING);
    // A wait on descriptors tells the scheduler once it has looked (seen_epoch), a plain one now.
    if (!wait->has_fds) changed();
}

HC_HIDDEN int hc_wait_for(hc_wait *wait) {
    if (!hc_owning()) return HC_UNOWNED;
    hal_clock_slot *slot = my_slot();
    if (slot == NULL) return HC_UNOWNED;
    hc_in_wait = 1;
    int saved = errno, result;
    if (wait->has_fds) hc_fire_due_timers();
    if (wait->has_deadline && wait->deadline <= hc_now()) {
        // Already past: one look, no waiting.
        result = wait->look ? wait->look(wait) : HC_TIMEOUT;
        hc_in_wait = 0;
        if (result != HC_ERROR) errno = saved;
        return result > 0 ? HC_READY : result;
    }
    int64_t deadline;
    int has_deadline;
    uint32_t timers = wait->has_fds ? hc_timers_generation() : 0;
    wait->bell = wait->has_fds && wait->block ? my_bell(slot, thread_tid) : -1;
    begin(slot, wait, &deadline, &has_deadline);
    for (;;) {
        uint32_t generation = HC_LOAD(&hc_region->generation);
        uint64_t epoch = HC_LOAD(&hc_region->epoch);
        if (wait->has_fds && hc_timers_generation() != timers) {
            // A timer of this process changed: the deadline may have.
            timers = hc_timers_generation();
            begin(slot, wait, &deadline, &has_deadline);
            continue;
        }
        if (wait->look && (result = wait->look(wait)) != 0) break;
        if (HC_LOAD(&slot->seen_epoch) != epoch) {
            HC_STORE(&slot->seen_epoch, epoch);
            if (wait->has_fds) changed();
        }
        if (wait->has_fds && hc_timers_generation() != timers) continue;
        int64_t now = hc_now();
        if (HC_LOAD(&slot->released) || (has_deadline && now > deadline)) {
            // The scheduler chose this wait (or moved past it): its time, or its process's next timer's, has come.
            if (wait->has_fds) hc_fire_due_timers();
            if (wait->look && (result = wait->look(wait)) != 0) break;
            if (wait->has_deadline && wait->deadline <= now) {
                result = HC_TIMEOUT;
                break;
            }
            timers = wait->has_fds ? hc_timers_generation() : 0;
            begin(slot, wait, &deadline, &has_deadline);
            continue;
        }
        if (wait->block) {
            if ((result = wait->block(wait, wait->slice ? wait->slice : HC_SLICE)) != 0) break;
        } else {
            struct timespec slice = hc_timespec(HC_SLEEP_SLICE);
            if (HC_RAW(SYS_futex, &hc_region->generation, FUTEX_WAIT, generation, &slice, NULL, 0) != 0 && errno == EINTR) {
                wait->error = EINTR;
                result = HC_ERROR;
                break;
            }
        }
    }
    HC_STORE(&slot->state, HAL_CLOCK_RUNNING);
    hc_in_wait = 0;
    if (result != HC_ERROR) errno = saved;
    return result > 0 ? HC_READY : result;
}

HC_HIDDEN int hc_thin_begin(void) {
    if (!hc_owning()) return 0;
    hal_clock_slot *slot = my_slot();
    if (slot == NULL) return 0;
    hc_in_wait = 1;
    hc_wait none = {0};
    int64_t deadline;
    int has_deadline;
    begin(slot, &none, &deadline, &has_deadline);
    return 1;
}

HC_HIDDEN void hc_thin_end(int began) {
    if (!began) return;
    HC_STORE(&hc_region->slots[thread_slot].state, HAL_CLOCK_RUNNING);
    hc_in_wait = 0;
}

HC_HIDDEN int hc_restartable(void) {
    for (int signal = 1; signal < NSIG; signal++) {
        struct sigaction action;
        if (signal == SIGKILL || signal == SIGSTOP || sigaction(signal, NULL, &action) != 0) continue;
        if (action.sa_handler != SIG_DFL && action.sa_handler != SIG_IGN && !(action.sa_flags & SA_RESTART)) return 0;
    }
    return 1;
}

// MARK: Descriptors

static int look_one(hc_wait *wait) {
    struct pollfd *descriptor = wait->context;
    struct timespec zero = {0, 0};
    long ready = HC_RAW(SYS_ppoll, descriptor, 1, &zero, NULL, _NSIG / 8);
    if (ready < 0 && errno != EINTR) return 1;  // the real call reports it
    return ready > 0;
}

static int block_one(hc_wait *wait, int64_t slice) {
    long ready = hc_poll_with_bell(wait, wait->context, 1, slice, NULL);
    if (ready < 0 && errno == EINTR) {
        wait->error = EINTR;
        return HC_ERROR;
    }
    return ready != 0;
}

HC_HIDDEN int hc_wait_ready(int fd, short events) {
    if (!hc_owning()) return 0;
    if (hc_timers_armed()) hc_fire_due_timers();
    int saved = errno;
    struct stat status;
    if (HC_RAW(SYS_fstat, fd, &status) != 0 || S_ISREG(status.st_mode) || S_ISDIR(status.st_mode) || S_ISBLK(status.st_mode)) {
        errno = saved;
        return 0;
    }
    long flags = HC_RAW(SYS_fcntl, fd, F_GETFL);
    struct pollfd descriptor = {.fd = fd, .events = events};
    hc_wait wait = {.has_fds = 1, .look = look_one, .block = block_one, .context = &descriptor};
    if (flags < 0 || (flags & O_NONBLOCK) || look_one(&wait)) {
        errno = saved;
        return 0;
    }
    for (;;) {
        int result = hc_wait_for(&wait);
        if (result == HC_ERROR) {
            if (wait.error == EINTR && hc_restartable()) continue;
            errno = wait.error;
            return -1;
        }
        if (result != HC_TIMEOUT) break;
    }
    errno = saved;
    return 0;
}
