// The scheduler's side of the shared clock (hal_clock.h): the region, the time, the epoch, releases, and whether the
// program is quiescent, read from /proc.
#define _GNU_SOURCE
#include "hal_clock.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
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
    pid_t pid, tid;
    int how;        /* 1: in an owned wait (mark: its seq); 2: blocked in a system call (mark: its run count) */
    uint64_t mark;
} seen_thread;

/// A process as a reading of /proc found it.
typedef struct process {
    pid_t pid;
    pid_t ppid;  /* -1: not in the program at the last reading (its stat file was not read again) */
    char state;  /* its main thread's state letter; '?' until read */
} process;

/// A growable array of pids, processes or seen threads.
typedef struct list {
    void *items;
    size_t count, capacity, size;
} list;

/// A task's /proc files, kept open between looks and read again from their start (pread regenerates them): one
/// system call per file and look instead of an open, a read and a close.
typedef struct task_files {
    pid_t pid, tid;
    int stat, schedstat, syscall, children;  /* -1: not open */
    char state;                              /* its state at the last look (0: none yet) */
    uint32_t look;                           /* the last look that used them: the others are closed after each */
} task_files;

/// A process's open /proc/PID/task folder, listed again from its start at each look.
typedef struct process_files {
    pid_t pid;
    int tasks;
    uint32_t look;
} process_files;

struct hal_clock {
    hal_clock_region *region;
    int fd;
    list processes;  /* process: the program's processes and their children at the last reading */
    list previous;   /* process: the reading before (listing /proc) */
    list members;    /* pid_t: the program's processes */
    list earlier;    /* pid_t: the members the first scan looked at */
    list seen;       /* seen_thread: the first look at each thread */
    list task_files;     /* task_files */
    list process_files;  /* process_files */
    list tids;           /* pid_t: one listing of a process's tasks */
    uint32_t look;       /* counts the looks */
    int by_children;     /* 1: members are found by /proc/PID/task/TID/children; 0: by listing /proc */
    char folder[PATH_MAX];              /* where the bells are */
    int bells[HAL_CLOCK_SLOTS];         /* each slot's bell, opened for writing (-1: not open) */
    int32_t bell_tids[HAL_CLOCK_SLOTS]; /* the thread whose bell it is */
    pthread_mutex_t bells_lock;         /* bells and bell_tids: hal_clock_touch may run on two threads at once */
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

static void close_unused_files(hal_clock *clock);

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
    clock->seen.size = sizeof(seen_thread);
    clock->task_files.size = sizeof(task_files);
    clock->process_files.size = sizeof(process_files);
    clock->tids.size = sizeof(pid_t);
    char children[64];
    snprintf(children, sizeof children, "/proc/%d/task/%d/children", (int)getpid(), (int)gettid());
    clock->by_children = access(children, R_OK) == 0;
    for (int i = 0; i < HAL_CLOCK_SLOTS; i++) clock->bells[i] = -1;
    pthread_mutex_init(&clock->bells_lock, NULL);
    const char *slash = strrchr(path, '/');
    if (slash == NULL) snprintf(clock->folder, sizeof clock->folder, ".");
    else snprintf(clock->folder, sizeof clock->folder, "%.*s", (int)(slash - path), path);
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
    for (int i = 0; i < HAL_CLOCK_SLOTS; i++)
        if (clock->bells[i] >= 0) close(clock->bells[i]);
    pthread_mutex_destroy(&clock->bells_lock);
    free(clock->processes.items);
    free(clock->previous.items);
    free(clock->members.items);
    free(clock->earlier.items);
    free(clock->seen.items);
    clock->look++;
    close_unused_files(clock);
    free(clock->task_files.items);
    free(clock->process_files.items);
    free(clock->tids.items);
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

uint32_t hal_clock_changes(const hal_clock *clock) { return LOAD(&clock->region->changes); }

int hal_clock_await_change(hal_clock *clock, uint32_t seen, int64_t timeout_ns) {
    hal_clock_region *region = clock->region;
    STORE(&region->scheduler_waiting, 1u);
    // A change after `seen` and before the wait makes the futex return at once (the word differs).
    struct timespec timeout = {.tv_sec = (time_t)(timeout_ns / 1000000000), .tv_nsec = (long)(timeout_ns % 1000000000)};
    if (LOAD(&region->changes) == seen) syscall(SYS_futex, &region->changes, FUTEX_WAIT, seen, &timeout, NULL, 0);
    STORE(&region->scheduler_waiting, 0u);
    return LOAD(&region->changes) != seen;
}

/// Rings the bell of every thread waiting on descriptors: one byte in its FIFO, which the scheduler opens once per
/// thread (for reading too, so that a write never meets a FIFO with no reader; a full one is rung already).
static void ring_bells(hal_clock *clock) {
    pthread_mutex_lock(&clock->bells_lock);
    for (int i = 0; i < HAL_CLOCK_SLOTS; i++) {
        hal_clock_slot *s = &clock->region->slots[i];
        int32_t tid = LOAD(&s->tid);
        if (tid <= 0 || LOAD(&s->bell) != tid || LOAD(&s->state) != HAL_CLOCK_WAITING || !LOAD(&s->has_fds)) continue;
        if (clock->bell_tids[i] != tid || clock->bells[i] < 0) {
            if (clock->bells[i] >= 0) close(clock->bells[i]);
            char path[PATH_MAX + 32];
            snprintf(path, sizeof path, "%s/bell-%d", clock->folder, (int)tid);
            clock->bells[i] = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
            clock->bell_tids[i] = tid;
            if (clock->bells[i] < 0) continue;
        }
        static const char byte = 1;
        ssize_t ignored = write(clock->bells[i], &byte, 1);
        (void)ignored;
    }
    pthread_mutex_unlock(&clock->bells_lock);
}

uint64_t hal_clock_touch(hal_clock *clock) {
    uint64_t epoch = __atomic_add_fetch(&clock->region->epoch, 1, __ATOMIC_SEQ_CST);
    __atomic_add_fetch(&clock->region->generation, 1, __ATOMIC_SEQ_CST);
    futex_wake_all(&clock->region->generation);
    ring_bells(clock);
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

/// Reads a /proc file kept open in `*fd` (opened from `path` the first time) again from its start into `buffer`
/// (NUL-terminated); its length, or -1 (the task is gone: the file is closed). A file whose task has gone answers
/// ESRCH; it is opened again once, for a task that took the same id.
static ssize_t reread(int *fd, const char *path, char *buffer, size_t size) {
    for (int attempt = 0; attempt < 2; attempt++) {
        if (*fd < 0 && (*fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) return -1;
        ssize_t n = pread(*fd, buffer, size - 1, 0);
        if (n >= 0) {
            buffer[n] = 0;
            return n;
        }
        close(*fd);
        *fd = -1;
    }
    return -1;
}

/// The open files of a task, found or added; marked as used by this look.
static task_files *files_of(hal_clock *clock, pid_t pid, pid_t tid) {
    task_files *all = clock->task_files.items;
    for (size_t i = 0; i < clock->task_files.count; i++)
        if (all[i].tid == tid && all[i].pid == pid) {
            all[i].look = clock->look;
            return &all[i];
        }
    task_files *added = list_push(&clock->task_files);
    if (added == NULL) return NULL;
    *added = (task_files){.pid = pid, .tid = tid, .stat = -1, .schedstat = -1, .syscall = -1, .children = -1, .look = clock->look};
    return added;
}

/// Reads one of a task's files (`name`: stat, schedstat, syscall, children), kept open in `*fd`.
static ssize_t read_task_file(const task_files *task, int *fd, const char *name, char *buffer, size_t size) {
    char path[96];
    snprintf(path, sizeof path, "/proc/%d/task/%d/%s", (int)task->pid, (int)task->tid, name);
    return reread(fd, path, buffer, size);
}

static void close_fd(int *fd) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
}

/// Closes the files of the tasks and processes the last look did not use.
static void close_unused_files(hal_clock *clock) {
    task_files *tasks = clock->task_files.items;
    size_t kept = 0;
    for (size_t i = 0; i < clock->task_files.count; i++) {
        if (tasks[i].look == clock->look) {
            tasks[kept++] = tasks[i];
            continue;
        }
        close_fd(&tasks[i].stat);
        close_fd(&tasks[i].schedstat);
        close_fd(&tasks[i].syscall);
        close_fd(&tasks[i].children);
    }
    clock->task_files.count = kept;
    process_files *processes = clock->process_files.items;
    kept = 0;
    for (size_t i = 0; i < clock->process_files.count; i++) {
        if (processes[i].look == clock->look) processes[kept++] = processes[i];
        else close_fd(&processes[i].tasks);
    }
    clock->process_files.count = kept;
}

static int is_number(const char *name) {
    if (!*name) return 0;
    for (; *name; name++)
        if (!isdigit((unsigned char)*name)) return 0;
    return 1;
}

/// Lists a process's tasks into clock->tids from its /proc/PID/task folder, kept open and read again from its start.
/// 0 when the folder cannot be read (errno: ENOENT or ESRCH when the process is gone).
static int list_tasks(hal_clock *clock, pid_t pid) {
    clock->tids.count = 0;
    process_files *found = NULL, *all = clock->process_files.items;
    for (size_t i = 0; i < clock->process_files.count && found == NULL; i++)
        if (all[i].pid == pid) found = &all[i];
    if (found == NULL) {
        if ((found = list_push(&clock->process_files)) == NULL) return 0;
        *found = (process_files){.pid = pid, .tasks = -1};
    }
    found->look = clock->look;
    char path[64], buffer[4096];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    for (int attempt = 0; attempt < 2; attempt++) {
        if (found->tasks < 0 && (found->tasks = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) return 0;
        if (lseek(found->tasks, 0, SEEK_SET) == 0) {
            long n;
            int failed = 0;
            clock->tids.count = 0;
            while ((n = syscall(SYS_getdents64, found->tasks, buffer, sizeof buffer)) > 0) {
                for (long offset = 0; offset < n;) {
                    struct dirent64 *entry = (struct dirent64 *)(buffer + offset);
                    offset += entry->d_reclen;
                    if (!is_number(entry->d_name)) continue;
                    pid_t *tid = list_push(&clock->tids);
                    if (tid) *tid = (pid_t)atoi(entry->d_name);
                }
            }
            if (n < 0) failed = 1;
            if (!failed && clock->tids.count > 0) return 1;
        }
        close_fd(&found->tasks);
    }
    errno = ESRCH;
    return 0;
}

/// A task's state letter and its parent (from a stat file: "pid (comm) S ppid …"); 0 when it cannot be read.
static char parse_stat(const char *buffer, pid_t *ppid) {
    const char *close = strrchr(buffer, ')');
    if (close == NULL || close[1] != ' ' || close[2] == 0) return 0;
    if (ppid) *ppid = (pid_t)strtol(close + 4, NULL, 10);
    return close[2];
}

static char read_stat(const char *path, pid_t *ppid) {
    char buffer[512];
    if (read_small(path, buffer, sizeof buffer) <= 0) return 0;
    return parse_stat(buffer, ppid);
}

/// A task's state letter and parent, from its open stat file.
static char task_state(task_files *task, pid_t *ppid) {
    char buffer[512];
    if (task == NULL || read_task_file(task, &task->stat, "stat", buffer, sizeof buffer) <= 0) return 0;
    return parse_stat(buffer, ppid);
}

/// Whether the last reading of /proc found `pid` outside the program: a process that is not a descendant stays one
/// (an orphan goes to init or a subreaper outside it), so its stat file is not read again. /proc lists pids in
/// ascending order, and so does `previous`.
static int known_outsider(const list *previous, size_t *cursor, pid_t pid) {
    const process *processes = previous->items;
    while (*cursor < previous->count && processes[*cursor].pid < pid) ++*cursor;
    return *cursor < previous->count && processes[*cursor].pid == pid && processes[*cursor].ppid == -1;
}

/// The members' descendants from one reading of all of /proc (each process's parent in its stat file): for a kernel
/// without /proc/PID/task/TID/children.
static void find_descendants_by_listing(hal_clock *clock) {
    list swap = clock->previous;
    clock->previous = clock->processes;
    clock->processes = swap;
    clock->processes.count = 0;
    size_t cursor = 0;
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

/// Adds the children of a member's thread (its children file) to the members, each recorded with its parent (its state
/// is read when a wait on it asks, '?' until then).
static void add_children(hal_clock *clock, pid_t pid, task_files *task) {
    char buffer[4096];
    if (read_task_file(task, &task->children, "children", buffer, sizeof buffer) <= 0) return;
    for (char *cursor = buffer; *cursor;) {
        char *after;
        long child = strtol(cursor, &after, 10);
        if (after == cursor) break;
        add_member(&clock->members, (pid_t)child);
        process *found = list_push(&clock->processes);
        if (found) *found = (process){.pid = (pid_t)child, .ppid = pid, .state = '?'};
        cursor = after;
    }
}

/// The program's processes: the roots, every process that holds a slot, and all their descendants.
static void find_members(hal_clock *clock, const pid_t *roots, int count) {
    clock->members.count = 0;
    for (int i = 0; i < count; i++) add_member(&clock->members, roots[i]);
    for (int i = 0; i < HAL_CLOCK_SLOTS; i++) {
        hal_clock_slot *s = &clock->region->slots[i];
        if (LOAD(&s->tid) != 0) add_member(&clock->members, LOAD(&s->pid));
    }
    // With children files, the descendants are found while the threads are looked at (scan).
    if (clock->by_children) clock->processes.count = 0;
    else find_descendants_by_listing(clock);
}

/// Whether a process whose main thread is a zombie still has live threads (it called pthread_exit).
static int has_live_threads(hal_clock *clock, pid_t pid) {
    list saved = clock->tids;
    clock->tids = (list){.size = sizeof(pid_t)};
    int live = list_tasks(clock, pid) && clock->tids.count > 1;
    free(clock->tids.items);
    clock->tids = saved;
    return live;
}

/// Whether `parent`, blocked in wait4 or waitid, has a child it can be waiting for: `target` itself (a pid), or
/// (any child, -1) a live child and no dead one. A wait whose child is gone or dead returns at once, but /proc can show
/// the parent still asleep after the child has left the listing, for as long as both scans take.
static int has_child_to_wait_for(hal_clock *clock, pid_t parent, pid_t target) {
    process *processes = clock->processes.items;
    int live = 0, dead = 0;
    for (size_t i = 0; i < clock->processes.count; i++) {
        if (processes[i].ppid != parent || (target > 0 && processes[i].pid != target)) continue;
        if (processes[i].state == '?') {
            char state = task_state(files_of(clock, processes[i].pid, processes[i].pid), NULL);
            processes[i].state = state ? state : 'X';
        }
        char state = processes[i].state;
        if ((state == 'Z' || state == 'X') && !has_live_threads(clock, processes[i].pid)) dead++;
        else live++;
    }
    return live > 0 && (target > 0 || dead == 0);
}

/// A task's system call from /proc/PID/task/TID/syscall: its number and arguments; -1 when it is running ("running")
/// or blocked outside a system call ("-1 sp pc"), or when the file cannot be read.
static long system_call(task_files *task, unsigned long long arguments[6]) {
    char buffer[256];
    if (read_task_file(task, &task->syscall, "syscall", buffer, sizeof buffer) <= 0) return -1;
    char *cursor = buffer;
    long number = strtol(buffer, &cursor, 10);
    if (cursor == buffer || number < 0) return -1;
    for (int i = 0; i < 6; i++) arguments[i] = strtoull(cursor, &cursor, 16);
    return number;
}

/// For a wait on children (wait4, waitid) in `number`: whether a child it waits for is there. Other calls: 1.
static int child_wait_can_block(hal_clock *clock, pid_t pid, long number, const unsigned long long arguments[6]) {
    if (number == SYS_wait4) return has_child_to_wait_for(clock, pid, (pid_t)(int)arguments[0] > 0 ? (pid_t)(int)arguments[0] : -1);
    if (number == SYS_waitid) return has_child_to_wait_for(clock, pid, (int)arguments[0] == P_PID ? (pid_t)arguments[1] : -1);
    return 1;
}

/// Whether a thread blocked outside an owned wait (from /proc/PID/task/TID/syscall) waits on something only another
/// thread, a child or a device can end.
static int blocked_in_system_call(hal_clock *clock, pid_t pid, task_files *task) {
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
static uint64_t run_count(task_files *task, int *ok) {
    char buffer[128];
    unsigned long long runtime, waiting, count;
    if (read_task_file(task, &task->schedstat, "schedstat", buffer, sizeof buffer) <= 0 || sscanf(buffer, "%llu %llu %llu", &runtime, &waiting, &count) != 3) {
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

/// The first look at the members' threads, into clock->seen (and, with children files, at their children, which join
/// the members and are looked at in turn): 1 when every live thread waits, else 0 with `busy` set at the first that
/// does not (the look stops there).
static int scan(hal_clock *clock, uint64_t epoch, int *threads, pid_t *busy) {
    hal_clock_region *region = clock->region;
    clock->seen.count = 0;
    *threads = 0;
    *busy = 0;
    for (size_t m = 0; m < clock->members.count && *busy == 0; m++) {
        pid_t pid = ((const pid_t *)clock->members.items)[m];  // read each time: the list grows
        if (!list_tasks(clock, pid)) {
            // Gone, or a zombie, or there but its tasks not listed: a process that is exiting lists none for a moment
            // while its main thread still runs.
            int error = errno;
            char state = task_state(files_of(clock, pid, pid), NULL);
            if ((error != ENOENT && error != ESRCH) || (state != 0 && state != 'Z' && state != 'X')) *busy = pid;
            continue;
        }
        for (size_t t = 0; t < clock->tids.count && *busy == 0; t++) {
            pid_t tid = ((const pid_t *)clock->tids.items)[t];
            task_files *task = files_of(clock, pid, tid);
            if (task == NULL) {
                *busy = tid;
                continue;
            }
            // The run count first: a thread woken after it was read has a larger one by the second look, even if it
            // is blocked again when its state is read; and one that has not run since cannot have forked since its
            // children were read.
            int counted_runs = 1;
            uint64_t runs = run_count(task, &counted_runs);
            if (clock->by_children) add_children(clock, pid, task);
            char state = task_state(task, NULL), before = task->state;
            task->state = state;
            if (state == 'Z' || state == 'X' || state == 'x') {
                // A zombie is done, but one just made: the kernel marks a task a zombie a moment before it wakes the
                // parent that waits for it (wait4, a signal), so its parent gets one more look.
                if (before != 'Z' && before != 'X' && before != 'x') *busy = tid;
                continue;
            }
            if (state == 0) {
                // Listed, but its stat no longer answers: a thread on its way out, still running.
                *busy = tid;
                continue;
            }
            ++*threads;
            if (state != 'S') {
                *busy = tid;
                continue;
            }
            seen_thread *record = list_push(&clock->seen);
            if (record == NULL) {
                *busy = tid;
                continue;
            }
            record->pid = pid;
            record->tid = tid;
            int index = slot_of(region, tid);
            hal_clock_slot *s = index >= 0 ? &region->slots[index] : NULL;
            if (s != NULL && LOAD(&s->state) == HAL_CLOCK_WAITING) {
                if (LOAD(&s->released) || (LOAD(&s->has_fds) && LOAD(&s->seen_epoch) != epoch)) *busy = tid;
                record->how = 1;
                record->mark = LOAD(&s->seq);
                if (*busy == 0 && !LOAD(&s->has_deadline) && !LOAD(&s->has_fds)) {
                    // A wait in the real call (waitpid, pthread_join, sem_wait, …): blocked in it (not woken since its
                    // state was read: "running"), and in a child wait, with a child to wait for.
                    unsigned long long arguments[6] = {0};
                    long number = system_call(task, arguments);  // `task` is not used after: the next call may move it
                    if (number < 0 || !child_wait_can_block(clock, pid, number, arguments)) *busy = tid;
                }
                continue;
            }
            record->how = 2;
            record->mark = runs;
            if (!counted_runs || !blocked_in_system_call(clock, pid, task)) *busy = tid;
        }
    }
    return *busy == 0;
}

/// The second look: each thread the first saw, again. A thread blocked in a system call must not have run since (its
/// run count), one in an owned wait must be in the same wait (its seq); each must still be asleep. The tid of the
/// first that moved, or 0. Nothing else can have started a thread or a process: only a thread that runs does.
static pid_t look_again(hal_clock *clock) {
    hal_clock_region *region = clock->region;
    const seen_thread *seen = clock->seen.items;
    for (size_t i = 0; i < clock->seen.count; i++) {
        task_files *task = files_of(clock, seen[i].pid, seen[i].tid);
        if (task == NULL) return seen[i].tid;
        int counted_runs = 1;
        uint64_t runs = run_count(task, &counted_runs);
        if (!counted_runs || task_state(task, NULL) != 'S') return seen[i].tid;
        if (seen[i].how == 2) {
            if (runs != seen[i].mark) return seen[i].tid;
            continue;
        }
        int index = slot_of(region, seen[i].tid);
        if (index < 0 || LOAD(&region->slots[index].state) != HAL_CLOCK_WAITING || LOAD(&region->slots[index].seq) != seen[i].mark) return seen[i].tid;
    }
    return 0;
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
    clock->look++;
    free_stale_slots(clock);
    uint64_t seq = LOAD(&region->next_seq), epoch = LOAD(&region->epoch);
    find_members(clock, roots, count);
    int quiet = scan(clock, epoch, &counted, &waiting);
    if (quiet && !clock->by_children) {
        // The processes again: one forked after the listing of /proc and before its parent was looked at would
        // otherwise go unseen, its parent looking the same in both looks. (With children files, each thread's children
        // are read after its run count, and a thread that forks runs.)
        list swap = clock->earlier;
        clock->earlier = clock->members;
        clock->members = swap;
        find_members(clock, roots, count);
        if (!same_members(&clock->earlier, &clock->members)) waiting = -1;
    }
    if (quiet && waiting == 0) {
        waiting = look_again(clock);
        if (waiting == 0 && (LOAD(&region->next_seq) != seq || LOAD(&region->epoch) != epoch)) waiting = -1;
    }
    close_unused_files(clock);
    quiet = quiet && waiting == 0;
    if (threads) *threads = counted;
    if (busy) *busy = quiet ? 0 : waiting;
    return quiet;
}
