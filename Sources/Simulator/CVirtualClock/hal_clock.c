// The scheduler's side of the shared clock (hal_clock.h): the region, the time, the epoch, releases, and whether the
// program is quiescent, read from /proc.
#define _GNU_SOURCE
#include "hal_clock.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define LOAD(p) __atomic_load_n((p), __ATOMIC_SEQ_CST)
#define STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_SEQ_CST)

/// One live thread as a scan saw it: how it waits, and what shows that it has not moved since.
typedef struct seen_thread {
    pid_t tid;
    int how;        /* 1: in an owned wait (mark: its seq); 2: blocked in a system call (mark: its run count) */
    uint64_t mark;
} seen_thread;

/// A process as a reading of /proc found it.
typedef struct process {
    pid_t pid;
    pid_t ppid;  /* -1: not in the program at the last reading (its stat file was not read again) */
    char state;  /* its main thread's state letter */
} process;

/// A growable array of pids, processes or seen threads.
typedef struct list {
    void *items;
    size_t count, capacity, size;
} list;

struct hal_clock {
    hal_clock_region *region;
    int fd;
    list processes;  /* process: the last reading of /proc, in its order */
    list previous;   /* process: the reading before */
    list members;    /* pid_t: the program's processes */
    list earlier;    /* pid_t: the members the first scan looked at */
    list first;      /* seen_thread: the first scan */
    list second;     /* seen_thread: the second scan */
};

static void *list_push(list *l) {
    if (l->count == l->capacity) {
        size_t capacity = l->capacity ? l->capacity * 2 : 64;
        void *items = realloc(l->items, capacity * l->size);
        if (items == NULL) return NULL;
        l->items = items;
        l->capacity = capacity;
    }
    return (char *)l->items + l->size * l->count++;
}

static int contains_pid(const list *l, pid_t pid) {
    const pid_t *pids = l->items;
    for (size_t i = 0; i < l->count; i++)
        if (pids[i] == pid) return 1;
    return 0;
}

static int add_member(list *members, pid_t pid) {
    if (pid <= 0 || contains_pid(members, pid)) return 0;
    pid_t *slot = list_push(members);
    if (slot == NULL) return 0;
    *slot = pid;
    return 1;
}

hal_clock *hal_clock_create(const char *path, int64_t now, int64_t realtime_offset) {
    hal_clock *clock = calloc(1, sizeof *clock);
    if (clock == NULL) return NULL;
    clock->processes.size = clock->previous.size = sizeof(process);
    clock->members.size = clock->earlier.size = sizeof(pid_t);
    clock->first.size = clock->second.size = sizeof(seen_thread);
    // The region lives in memory (a memfd), and `path` links to it through /proc: a shared mapping of a file on a disk
    // is write-protected again each time writeback cleans it, and a waiter's next store to its slot then blocks in a
    // page fault, asleep in /proc, after the wait it reports has ended.
    clock->fd = memfd_create("hal-clock", MFD_CLOEXEC);
    if (clock->fd >= 0) {
        char target[64];
        snprintf(target, sizeof target, "/proc/%d/fd/%d", (int)getpid(), clock->fd);
        if ((unlink(path) != 0 && errno != ENOENT) || symlink(target, path) != 0) goto fail;
    } else {
        clock->fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (clock->fd < 0) goto fail;
    }
    if (ftruncate(clock->fd, sizeof(hal_clock_region)) != 0) goto fail;
    void *mapped = mmap(NULL, sizeof(hal_clock_region), PROT_READ | PROT_WRITE, MAP_SHARED, clock->fd, 0);
    if (mapped == MAP_FAILED) goto fail;
    clock->region = mapped;
    STORE(&clock->region->now, now);
    STORE(&clock->region->realtime_offset, realtime_offset);
    STORE(&clock->region->epoch, (uint64_t)1);
    STORE(&clock->region->next_seq, (uint64_t)1);
    STORE(&clock->region->magic, (uint64_t)HAL_CLOCK_MAGIC);
    return clock;
fail: {
        int saved = errno;
        if (clock->fd >= 0) close(clock->fd);
        free(clock);
        errno = saved;
        return NULL;
    }
}

void hal_clock_destroy(hal_clock *clock) {
    if (clock == NULL) return;
    munmap(clock->region, sizeof(hal_clock_region));
    close(clock->fd);
    free(clock->processes.items);
    free(clock->previous.items);
    free(clock->members.items);
    free(clock->earlier.items);
    free(clock->first.items);
    free(clock->second.items);
    free(clock);
}

int64_t hal_clock_now(const hal_clock *clock) { return LOAD(&clock->region->now); }

uint64_t hal_clock_waits_begun(const hal_clock *clock) { return LOAD(&clock->region->next_seq); }

void hal_clock_set_now(hal_clock *clock, int64_t now) {
    int64_t current = LOAD(&clock->region->now);
    while (now > current && !__atomic_compare_exchange_n(&clock->region->now, &current, now, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
    }
}

static void futex_wake_all(uint32_t *word) { syscall(SYS_futex, word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0); }

uint64_t hal_clock_touch(hal_clock *clock) {
    uint64_t epoch = __atomic_add_fetch(&clock->region->epoch, 1, __ATOMIC_SEQ_CST);
    __atomic_add_fetch(&clock->region->generation, 1, __ATOMIC_SEQ_CST);
    futex_wake_all(&clock->region->generation);
    return epoch;
}

int hal_clock_next_deadline(hal_clock *clock, int64_t *deadline, int *slot) {
    int found = -1;
    int64_t best = 0;
    uint64_t best_seq = 0;
    for (int i = 0; i < HAL_CLOCK_SLOTS; i++) {
        hal_clock_slot *s = &clock->region->slots[i];
        if (LOAD(&s->tid) <= 0 || LOAD(&s->state) != HAL_CLOCK_WAITING || !LOAD(&s->has_deadline) || LOAD(&s->released)) continue;
        int64_t d = LOAD(&s->deadline);
        uint64_t seq = LOAD(&s->seq);
        if (found < 0 || d < best || (d == best && seq < best_seq)) {
            found = i;
            best = d;
            best_seq = seq;
        }
    }
    if (found < 0) return 0;
    if (deadline) *deadline = best;
    if (slot) *slot = found;
    return 1;
}

void hal_clock_release(hal_clock *clock, int slot) {
    if (slot < 0 || slot >= HAL_CLOCK_SLOTS) return;
    hal_clock_slot *s = &clock->region->slots[slot];
    STORE(&s->released, 1u);
    futex_wake_all(&s->released);
    hal_clock_touch(clock);
}

// MARK: /proc

/// Reads a small /proc file into `buffer` (NUL-terminated); its length, or -1.
static ssize_t read_small(const char *path, char *buffer, size_t size) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = read(fd, buffer, size - 1);
    close(fd);
    if (n < 0) return -1;
    buffer[n] = 0;
    return n;
}

/// A task's state letter and its parent (from a stat file: "pid (comm) S ppid …"); 0 when it cannot be read.
static char read_stat(const char *path, pid_t *ppid) {
    char buffer[512];
    if (read_small(path, buffer, sizeof buffer) <= 0) return 0;
    char *close = strrchr(buffer, ')');
    if (close == NULL || close[1] != ' ' || close[2] == 0) return 0;
    if (ppid) *ppid = (pid_t)strtol(close + 4, NULL, 10);
    return close[2];
}

static int is_number(const char *name) {
    if (!*name) return 0;
    for (; *name; name++)
        if (!isdigit((unsigned char)*name)) return 0;
    return 1;
}

/// Whether the last reading of /proc found `pid` outside the program: a process that is not a descendant stays one
/// (an orphan goes to init or a subreaper outside it), so its stat file is not read again. /proc lists pids in
/// ascending order, and so does `previous`.
static int known_outsider(const list *previous, size_t *cursor, pid_t pid) {
    const process *processes = previous->items;
    while (*cursor < previous->count && processes[*cursor].pid < pid) ++*cursor;
    return *cursor < previous->count && processes[*cursor].pid == pid && processes[*cursor].ppid == -1;
}

/// The program's processes: the roots, every process that holds a slot, and all their descendants (by each
/// /proc/PID/stat's parent), from one reading of /proc.
static void find_members(hal_clock *clock, const pid_t *roots, int count) {
    clock->members.count = 0;
    list swap = clock->previous;
    clock->previous = clock->processes;
    clock->processes = swap;
    clock->processes.count = 0;
    size_t cursor = 0;
    for (int i = 0; i < count; i++) add_member(&clock->members, roots[i]);
    for (int i = 0; i < HAL_CLOCK_SLOTS; i++) {
        hal_clock_slot *s = &clock->region->slots[i];
        if (LOAD(&s->tid) != 0) add_member(&clock->members, LOAD(&s->pid));
    }
    DIR *proc = opendir("/proc");
    if (proc == NULL) return;
    struct dirent *entry;
    char path[64];
    while ((entry = readdir(proc)) != NULL) {
        if (!is_number(entry->d_name)) continue;
        pid_t pid = (pid_t)atoi(entry->d_name), ppid = -1;
        char state = '?';
        if (contains_pid(&clock->members, pid) || !known_outsider(&clock->previous, &cursor, pid)) {
            snprintf(path, sizeof path, "/proc/%d/stat", pid);
            if ((state = read_stat(path, &ppid)) == 0) continue;
        }
        process *found = list_push(&clock->processes);
        if (found == NULL) break;
        *found = (process){.pid = pid, .ppid = ppid, .state = state};
    }
    closedir(proc);
    process *processes = clock->processes.items;
    for (int grew = 1; grew;) {
        grew = 0;
        for (size_t i = 0; i < clock->processes.count; i++)
            if (processes[i].ppid != -1 && contains_pid(&clock->members, processes[i].ppid)) grew |= add_member(&clock->members, processes[i].pid);
    }
    for (size_t i = 0; i < clock->processes.count; i++)
        if (!contains_pid(&clock->members, processes[i].pid)) processes[i].ppid = -1;
}

/// Whether a process whose main thread is a zombie still has live threads (it called pthread_exit).
static int has_live_threads(pid_t pid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", pid);
    DIR *tasks = opendir(path);
    if (tasks == NULL) return 0;
    int count = 0;
    struct dirent *entry;
    while ((entry = readdir(tasks)) != NULL) count += is_number(entry->d_name);
    closedir(tasks);
    return count > 1;
}

/// Whether `parent`, blocked in wait4 or waitid, has a child it can be waiting for: `target` itself (a pid), or
/// (any child, -1) a live child and no dead one. A wait whose child is gone or dead returns at once, but /proc can show
/// the parent still asleep after the child has left the listing, for as long as both scans take.
static int has_child_to_wait_for(const hal_clock *clock, pid_t parent, pid_t target) {
    const process *processes = clock->processes.items;
    int live = 0, dead = 0;
    for (size_t i = 0; i < clock->processes.count; i++) {
        if (processes[i].ppid != parent || (target > 0 && processes[i].pid != target)) continue;
        char state = processes[i].state;
        if ((state == 'Z' || state == 'X') && !has_live_threads(processes[i].pid)) dead++;
        else live++;
    }
    return live > 0 && (target > 0 || dead == 0);
}

/// A task's system call from /proc/PID/task/TID/syscall: its number and arguments; -1 when it is running ("running")
/// or blocked outside a system call ("-1 sp pc"), or when the file cannot be read.
static long system_call(const char *task, unsigned long long arguments[6]) {
    char path[96], buffer[256];
    snprintf(path, sizeof path, "%s/syscall", task);
    if (read_small(path, buffer, sizeof buffer) <= 0) return -1;
    char *cursor = buffer;
    long number = strtol(buffer, &cursor, 10);
    if (cursor == buffer || number < 0) return -1;
    for (int i = 0; i < 6; i++) arguments[i] = strtoull(cursor, &cursor, 16);
    return number;
}

/// For a wait on children (wait4, waitid) in `number`: whether a child it waits for is there. Other calls: 1.
static int child_wait_can_block(const hal_clock *clock, pid_t pid, long number, const unsigned long long arguments[6]) {
    if (number == SYS_wait4) return has_child_to_wait_for(clock, pid, (pid_t)(int)arguments[0] > 0 ? (pid_t)(int)arguments[0] : -1);
    if (number == SYS_waitid) return has_child_to_wait_for(clock, pid, (int)arguments[0] == P_PID ? (pid_t)arguments[1] : -1);
    return 1;
}

/// Whether a thread blocked outside an owned wait (from /proc/PID/task/TID/syscall) waits on something only another
/// thread, a child or a device can end.
static int blocked_in_system_call(const hal_clock *clock, pid_t pid, const char *task) {
    unsigned long long arguments[6] = {0};
    long number = system_call(task, arguments);
    if (number < 0) return 0;
    unsigned int low[6];
    for (int i = 0; i < 6; i++) low[i] = (unsigned int)arguments[i];
    switch (number) {
    case SYS_futex: {
        int command = (int)(low[1] & FUTEX_CMD_MASK);
        int waits = command == FUTEX_WAIT || command == FUTEX_WAIT_BITSET || command == FUTEX_LOCK_PI || command == FUTEX_WAIT_REQUEUE_PI || command == 13 /* FUTEX_LOCK_PI2 */;
        return waits && arguments[3] == 0;
    }
    case SYS_wait4:
    case SYS_waitid:
        return child_wait_can_block(clock, pid, number, arguments);
#ifdef SYS_pause
    case SYS_pause:
#endif
    case SYS_rt_sigsuspend:
    case SYS_read:
    case SYS_readv:
    case SYS_recvfrom:
    case SYS_recvmsg:
    case SYS_accept:
    case SYS_accept4:
        return 1;
    case SYS_rt_sigtimedwait:
        return arguments[2] == 0;
#ifdef SYS_poll
    case SYS_poll:
        return low[2] == 0xffffffffu;
#endif
    case SYS_ppoll:
        return arguments[2] == 0;
#ifdef SYS_select
    case SYS_select:
        return arguments[4] == 0;
#endif
    case SYS_pselect6:
        return arguments[4] == 0;
#ifdef SYS_epoll_wait
    case SYS_epoll_wait:
#endif
    case SYS_epoll_pwait:
        return low[3] == 0xffffffffu;
#ifdef SYS_epoll_pwait2
    case SYS_epoll_pwait2:
        return arguments[3] == 0;
#endif
    default:
        return 0;
    }
}

/// How many times a task has run (the third field of /proc/PID/task/TID/schedstat); 0 with `ok` cleared when unknown.
static uint64_t run_count(const char *task, int *ok) {
    char path[96], buffer[128];
    snprintf(path, sizeof path, "%s/schedstat", task);
    unsigned long long runtime, waiting, count;
    if (read_small(path, buffer, sizeof buffer) <= 0 || sscanf(buffer, "%llu %llu %llu", &runtime, &waiting, &count) != 3) {
        *ok = 0;
        return 0;
    }
    return count;
}

/// The slot of `tid`, or -1.
static int slot_of(hal_clock_region *region, pid_t tid) {
    for (int i = 0; i < HAL_CLOCK_SLOTS; i++)
        if (LOAD(&region->slots[i].tid) == tid) return i;
    return -1;
}

/// One scan of the members' threads into `seen`: 1 when every live thread waits, else 0 with `busy` set (the rest
/// are still counted in `threads`).
static int scan(hal_clock *clock, list *seen, uint64_t epoch, int *threads, pid_t *busy) {
    hal_clock_region *region = clock->region;
    seen->count = 0;
    *threads = 0;
    *busy = 0;
    const pid_t *members = clock->members.items;
    char task[64], path[96];
    for (size_t m = 0; m < clock->members.count; m++) {
        snprintf(path, sizeof path, "/proc/%d/task", members[m]);
        DIR *tasks = opendir(path);
        if (tasks == NULL) {
            if (errno != ENOENT && errno != ESRCH && *busy == 0) *busy = members[m];  // there, but not readable
            continue;
        }
        struct dirent *entry;
        while ((entry = readdir(tasks)) != NULL) {
            if (!is_number(entry->d_name)) continue;
            pid_t tid = (pid_t)atoi(entry->d_name);
            snprintf(task, sizeof task, "/proc/%d/task/%d", members[m], tid);
            // The run count first: a thread woken after it was read has a larger one by the second scan, even if it is
            // blocked again when its state is read.
            int counted_runs = 1;
            uint64_t runs = run_count(task, &counted_runs);
            snprintf(path, sizeof path, "%s/stat", task);
            char state = read_stat(path, NULL);
            if (state == 0 || state == 'Z' || state == 'X' || state == 'x') continue;
            ++*threads;
            if (*busy) continue;
            if (state != 'S') {
                *busy = tid;
                continue;
            }
            seen_thread *record = list_push(seen);
            if (record == NULL) {
                *busy = tid;
                continue;
            }
            record->tid = tid;
            int index = slot_of(region, tid);
            hal_clock_slot *s = index >= 0 ? &region->slots[index] : NULL;
            if (s != NULL && LOAD(&s->state) == HAL_CLOCK_WAITING) {
                if (LOAD(&s->released) || (LOAD(&s->has_fds) && LOAD(&s->seen_epoch) != epoch)) *busy = tid;
                record->how = 1;
                record->mark = LOAD(&s->seq);
                if (*busy == 0 && !LOAD(&s->has_deadline) && !LOAD(&s->has_fds)) {
                    // A wait in the real call (waitpid, pthread_join, sem_wait, …): in a child wait, a child to wait for.
                    unsigned long long arguments[6] = {0};
                    long number = system_call(task, arguments);
                    if (number >= 0 && !child_wait_can_block(clock, members[m], number, arguments)) *busy = tid;
                }
                continue;
            }
            record->how = 2;
            record->mark = runs;
            if (!counted_runs || !blocked_in_system_call(clock, members[m], task)) *busy = tid;
        }
        closedir(tasks);
    }
    return *busy == 0;
}

/// Frees the slots whose thread no longer exists.
static void free_stale_slots(hal_clock *clock) {
    for (int i = 0; i < HAL_CLOCK_SLOTS; i++) {
        hal_clock_slot *s = &clock->region->slots[i];
        int32_t tid = LOAD(&s->tid);
        // Free, or being claimed (its pid not yet written: a stale pid would make a live thread's slot look dead).
        if (tid <= 0) continue;
        if (syscall(SYS_tgkill, LOAD(&s->pid), tid, 0) == 0 || errno != ESRCH) continue;
        STORE(&s->state, HAL_CLOCK_RUNNING);
        __atomic_compare_exchange_n(&s->tid, &tid, 0, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    }
}

/// Whether two lists of members hold the same processes.
static int same_members(const list *a, const list *b) {
    if (a->count != b->count) return 0;
    for (size_t i = 0; i < a->count; i++)
        if (!contains_pid(b, ((const pid_t *)a->items)[i])) return 0;
    return 1;
}

int hal_clock_quiescent(hal_clock *clock, const pid_t *roots, int count, int *threads, pid_t *busy) {
    hal_clock_region *region = clock->region;
    int counted = 0;
    pid_t waiting = 0;
    free_stale_slots(clock);
    uint64_t seq = LOAD(&region->next_seq), epoch = LOAD(&region->epoch);
    find_members(clock, roots, count);
    int quiet = scan(clock, &clock->first, epoch, &counted, &waiting);
    if (quiet) {
        // The processes again: one forked after the first listing and before its parent was looked at would otherwise
        // go unseen, its parent looking the same in both scans.
        list swap = clock->earlier;
        clock->earlier = clock->members;
        clock->members = swap;
        find_members(clock, roots, count);
        if (!same_members(&clock->earlier, &clock->members)) waiting = -1;
    }
    if (quiet && waiting == 0) {
        int again = 0;
        quiet = scan(clock, &clock->second, epoch, &again, &waiting);
        if (quiet) {
            // The first thread that moved between the scans, if one did.
            const seen_thread *a = clock->first.items, *b = clock->second.items;
            size_t n = clock->first.count < clock->second.count ? clock->first.count : clock->second.count;
            for (size_t i = 0; i < n && waiting == 0; i++)
                if (memcmp(&a[i], &b[i], sizeof a[i]) != 0) waiting = b[i].tid;
            if (waiting == 0 && clock->first.count != clock->second.count)
                waiting = clock->first.count > n ? a[n].tid : b[n].tid;
            if (waiting == 0 && (LOAD(&region->next_seq) != seq || LOAD(&region->epoch) != epoch)) waiting = -1;
        }
    }
    quiet = quiet && waiting == 0;
    if (threads) *threads = counted;
    if (busy) *busy = quiet ? 0 : waiting;
    return quiet;
}
