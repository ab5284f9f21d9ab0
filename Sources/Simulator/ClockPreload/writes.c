// Blocking writes into pipes and FIFOs, owned: a program that writes more than a pipe holds (a sound into the
// speaker's FIFO, a pipe to a slow child) waits in an owned wait for room, rather than blocked where the scheduler
// cannot see it, and still writes everything it was asked to, as a blocking write does.
#include "preload.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

static ssize_t (*real_write)(int, const void *, size_t);

/// Room left in the pipe `fd`, or -1 when it cannot be told.
static long pipe_room(int fd) {
    long size = HC_RAW(SYS_fcntl, fd, F_GETPIPE_SZ);
    int used = 0;
    if (size <= 0 || HC_RAW(SYS_ioctl, fd, FIONREAD, &used) != 0) return -1;
    return size - used;
}

/// Whether `fd` is a pipe or FIFO in blocking mode: the writes this file owns.
static int owned_pipe(int fd) {
    struct stat status;
    if (HC_RAW(SYS_fstat, fd, &status) != 0 || !S_ISFIFO(status.st_mode)) return 0;
    long flags = HC_RAW(SYS_fcntl, fd, F_GETFL);
    return flags >= 0 && !(flags & O_NONBLOCK);
}

HC_EXPORT ssize_t write(int fd, const void *buffer, size_t size) {
    if (real_write == NULL) real_write = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
    if (size == 0 || !hc_owning() || !owned_pipe(fd)) return real_write(fd, buffer, size);
    size_t done = 0;
    while (done < size) {
        if (hc_wait_ready(fd, POLLOUT) != 0) return done > 0 ? (ssize_t)done : -1;
        long room = pipe_room(fd);
        // Never more than there is room for, so that the real write does not block; at least one byte, which a
        // pipe ready for writing takes.
        size_t chunk = size - done;
        if (room > 0 && (size_t)room < chunk) chunk = (size_t)room;
        ssize_t written = real_write(fd, (const char *)buffer + done, chunk);
        if (written < 0) {
            if (errno == EINTR && done == 0) continue;
            return done > 0 ? (ssize_t)done : -1;
        }
        done += (size_t)written;
    }
    return (ssize_t)done;
}
