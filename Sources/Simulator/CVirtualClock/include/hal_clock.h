// The simulated world's one clock, shared by `hal exec` (the scheduler) and every process of the program it runs
// (through libhal-clock.so, the preload library that owns the program's clocks and waits).
//
// The clock lives in a file the scheduler makes and both map (MAP_SHARED): the program's processes find it through
// $HAL_CLOCK_FILE. Virtual time moves only when the scheduler moves it, and the scheduler moves it only when every
// thread of every process of the program is in an owned wait and has looked at what it waits for since the last
// change (the epoch): then nothing can happen until a deadline passes or a device delivers a record.
//
// The protocol, for one thread's owned wait (a sleep, a poll with a timeout, a blocking read, …):
//   1. it takes its slot (one per thread, found by tid) and writes its deadline (virtual CLOCK_MONOTONIC ns, or none),
//      `has_fds` (whether it waits on something it must look at again after each change: descriptors, a futex word
//      through syscall()), a fresh `seq`, `seen_epoch = 0` and `released = 0`; then `state = HAL_CLOCK_WAITING`;
//   2. it loops: e = epoch; look at what it waits for without blocking (poll with timeout 0, sem_trywait, …); if
//      ready: state = RUNNING, return; seen_epoch = e; if released (the scheduler chose it): state = RUNNING, return
//      as timed out; then block for a slice: a futex wait on `generation` (for a plain sleep, up to 100 ms), or the
//      real call with a 1 ms timeout (a condition variable's slice is 4 ms, after which the wait goes on unless the
//      condition was signalled meanwhile, so that a signal sent between slices is never lost);
//   3. an owned wait whose deadline has already passed returns at once, without waiting.
// A wait with no deadline that only another thread, a child or a signal can end (pthread_cond_wait, sem_wait,
// pthread_join, waitpid, sigwaitinfo, pause, a futex with no timeout) writes WAITING with no deadline and `has_fds =
// 0` and blocks in the real call: whatever ends it makes the thread runnable. A wait on descriptors also fires the
// process's due timerfds (emulated on eventfds) when it begins and when it is released, and counts the next expiry as
// its deadline.
// A thread that another wakes (a write to a pipe it polls, a futex, a condition signal) is runnable at once in
// /proc, so quiescence also asks that every thread be sleeping ('S') there. Only the scheduler bumps the epoch: after
// a device delivered (its data visible to a reader) and after a release.
// A wait on descriptors blocks on them and on its thread's bell: a FIFO named "bell-TID" in the folder of the region's
// file, which the thread makes and holds open (for reading and writing, non-blocking, closed on exec). After each
// change the scheduler writes a byte to the bell of every thread in such a wait, so that it looks again at once
// instead of when its slice ends; the thread empties its bell before it looks.
// Whenever a thread may just have become quiescent (its wait began, it looked again after a change, it ended), the
// preload bumps `changes` and, if the scheduler is blocked on it, wakes it (hal_clock_await_change): the scheduler
// looks at /proc when something moved, not on a timer (it still looks again after a bounded time, for the threads
// blocked in calls the preload does not see).
// The scheduler (hal) then: waits for quiescence (hal_clock_quiescent), picks the earliest of the waiters' deadlines
// (hal_clock_next_deadline, ties by seq) and its devices' next records; sets the time (hal_clock_set_now) and either
// releases that one waiter (hal_clock_release) or lets a device deliver; then bumps the epoch (hal_clock_touch) and
// waits for quiescence again. One wake-up at a time, so the same trace gives the same run.
#ifndef HAL_CLOCK_H
#define HAL_CLOCK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HAL_CLOCK_MAGIC 0x32304b4c434c4148ULL /* "HALCLK02" little-endian */
#define HAL_CLOCK_SLOTS 512
#define HAL_CLOCK_RUNNING 0
#define HAL_CLOCK_WAITING 1

/// One thread's owned wait.
typedef struct hal_clock_slot {
    int32_t tid;           /* the thread's id; 0 when the slot is free, -1 while a thread claims it */
    int32_t pid;           /* its process */
    int32_t state;         /* HAL_CLOCK_RUNNING or HAL_CLOCK_WAITING */
    int32_t has_deadline;  /* whether `deadline` holds */
    int64_t deadline;      /* virtual CLOCK_MONOTONIC ns at which the wait times out */
    int32_t has_fds;       /* whether it must look at descriptors again after each change */
    uint32_t released;     /* set by the scheduler: the wait times out now (a futex word) */
    uint64_t seen_epoch;   /* the epoch at which it last looked and found nothing */
    uint64_t seq;          /* the order the wait began in, for ties */
    int32_t bell;          /* the tid whose bell (a FIFO, "bell-TID" beside the region's file) is open; 0: none */
    int32_t pad;
} hal_clock_slot;

/// The shared region. Fields are read and written with __atomic builtins (sequentially consistent).
typedef struct hal_clock_region {
    uint64_t magic;
    int64_t now;              /* virtual CLOCK_MONOTONIC ns */
    int64_t realtime_offset;  /* CLOCK_REALTIME = now + realtime_offset */
    uint64_t epoch;           /* bumped on every change a waiter must look at */
    uint32_t generation;      /* a futex word, bumped with the epoch */
    uint32_t changes;         /* a futex word the program bumps when a thread may have become quiescent */
    uint64_t next_seq;
    uint32_t scheduler_waiting; /* set while the scheduler blocks on `changes`: only then is it woken */
    uint32_t pad;
    hal_clock_slot slots[HAL_CLOCK_SLOTS];
} hal_clock_region;

/// The scheduler's handle on the region.
typedef struct hal_clock hal_clock;

/// Makes the region with the time `now` and `realtime_offset`, and `path` for the program's processes to open it by
/// ($HAL_CLOCK_FILE): a symbolic link to the region, which lives in memory (a memfd, /proc/PID/fd/N of the caller, so
/// that no writeback ever stalls a store to a slot), or, where memfd_create is missing, a file. NULL with errno set on
/// failure.
hal_clock *hal_clock_create(const char *path, int64_t now, int64_t realtime_offset);
/// Unmaps and closes the region (the link at `path` stays, dangling; the caller removes its folder).
void hal_clock_destroy(hal_clock *clock);
/// The virtual time.
int64_t hal_clock_now(const hal_clock *clock);
/// Moves the virtual time to `now` (never back).
void hal_clock_set_now(hal_clock *clock, int64_t now);
/// Bumps the epoch and the generation, wakes every futex waiter and rings the bell of every thread waiting on
/// descriptors; returns the new epoch.
uint64_t hal_clock_touch(hal_clock *clock);
/// How many owned waits have begun so far (the region's `next_seq`): when it moves after a device delivered, a thread
/// woke and waited again, as a reader that took the delivery does.
uint64_t hal_clock_waits_begun(const hal_clock *clock);
/// The count of changes in the program (the region's `changes`), to pass to hal_clock_await_change after a look that
/// found it not quiescent.
uint32_t hal_clock_changes(const hal_clock *clock);
/// Blocks until the program changed since `seen` (a value of hal_clock_changes read before the look), or for at most
/// `timeout_ns` nanoseconds of wall time. Returns 1 when it changed, 0 on timeout.
int hal_clock_await_change(hal_clock *clock, uint32_t seen, int64_t timeout_ns);
/// Whether the program is quiescent: every live thread (/proc/PID/task/TID, not a zombie) of the processes in
/// `roots`, all their descendants and every process that holds a slot is sleeping ('S' in /proc/PID/task/TID/stat) and
/// either has a slot in state WAITING, not released, whose `seen_epoch` is the current epoch when `has_fds` is set, or
/// (no slot waiting) is blocked in a system call that only another thread, a child or a device can end: a futex wait
/// with no timeout (a mutex, pthread_join, …), wait4/waitid, pause, sigsuspend, sigtimedwait with no timeout, a read,
/// recv or accept, or poll/select/epoll with no timeout (from /proc/PID/task/TID/syscall: glibc's own internal calls,
/// fgets on a device, that the preload does not see). A thread waiting for a child (wait4, waitid, owned or not)
/// counts only while a child it waits for is alive: /proc can list a reaped child's parent as still asleep for a while
/// after the child has gone.
/// The descendants come from each thread's /proc/PID/task/TID/children, read after its run count
/// (/proc/PID/task/TID/schedstat), or, on a kernel without those files, from a listing of /proc. The answer is 1 only
/// when a second look at every thread found it unmoved: still asleep, a thread blocked in a system call not run since
/// (its run count), one in an owned wait in the same wait (its seq); no wait began (`next_seq`) and the epoch did not
/// move. Only a running thread forks, so a thread woken (or a process forked) during the first look is never missed.
/// A process first seen a zombie, or a thread listed whose stat no longer answers, counts as busy for that look: the
/// kernel marks a child a zombie a moment before it wakes the parent that waits for it.
/// The /proc files stay open between calls and are read again from their start.
/// Writes how many live threads there are to `threads` (when not NULL; the count stops at the first thread that is not
/// waiting), and the tid of one that is not waiting to `busy` (0 when quiescent; -1 when a process began, a wait began
/// or the epoch moved during the looks). Frees the slots of threads that no longer exist.
int hal_clock_quiescent(hal_clock *clock, const pid_t *roots, int count, int *threads, pid_t *busy);
/// The earliest deadline among waiting slots (ties: the lowest seq); returns 1 and writes it and the slot's index,
/// or 0 when no waiter has a deadline.
int hal_clock_next_deadline(hal_clock *clock, int64_t *deadline, int *slot);
/// Releases the waiter in `slot`: its wait times out now. Set the time to its deadline first (hal_clock_set_now): a
/// wait called again times out at once only if the time has reached its deadline.
void hal_clock_release(hal_clock *clock, int slot);

#ifdef __cplusplus
}
#endif

#endif
