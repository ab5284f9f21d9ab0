// The testbed's device nodes as a program's udev stack expects them, answered here; umockdev's preload is loaded after
// this library. Active with or without the trace's clock.
//
// - Nodes that exist nowhere: umockdev's preload keeps a slot for every open of a /dev path it passes on, a failed one
//   included, and aborts the program when its 50 slots are used up: alsa-lib alone probes 32 sound cards (`aplay -l`,
//   SDL, PortAudio). An open of a /dev path that is neither in the testbed ($UMOCKDEV_DIR/dev/…) nor on the machine
//   fails here with ENOENT, as it would anyway, and umockdev never sees it.
// - udev's database: libudev takes a device as initialized (libinput skips one that is not) when /run/udev/data/
//   c<MAJOR>:<MINOR> exists, and reads its udev properties there. umockdev (0.17) does not redirect /run/udev, so opens
//   under /run/udev/data/ go to $UMOCKDEV_DIR/run/udev/data/, which hal exec writes.
// - fstat() of an open node: umockdev's nodes are pseudo-terminals, and fstat() showed the pty's device number
//   (136:N) where libinput checks that the descriptor is the udev device's (13:64). A pty that the testbed maps to a
//   node ($UMOCKDEV_DIR/dev/.ptymap/_dev_pts_N, a link to "MAJOR:MINOR") reports the node's number.
// - mmap() of a simulated camera (a pty standing for 81:N) at a buffer's offset maps the file hal-testbed made for that
//   MMAP buffer ($UMOCKDEV_DIR/hal-v4l2/81:N/OFFSET): a pty itself cannot be mapped.
//
// Everything else goes on to umockdev's wrappers.
#include "preload.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

/// Whether `path` is a /dev path that exists neither in umockdev's testbed nor on the machine.
static int missing_node(const char *path, int flags) {
    if (path == NULL || strncmp(path, "/dev/", 5) != 0 || (flags & (O_CREAT | O_TMPFILE))) return 0;
    const char *root = getenv("UMOCKDEV_DIR");
    if (root == NULL || *root == 0) return 0;
    if (!hc_loaded) hc_ensure_loaded();
    char inside[PATH_MAX];
    if (snprintf(inside, sizeof inside, "%s%s", root, path) >= (int)sizeof inside) return 0;
    struct stat status;
    int saved = errno;
    int missing = HC_RAW(SYS_newfstatat, AT_FDCWD, inside, &status, 0) != 0 && errno == ENOENT
        && HC_RAW(SYS_newfstatat, AT_FDCWD, path, &status, 0) != 0 && errno == ENOENT;
    errno = missing ? ENOENT : saved;
    return missing;
}

/// `path` itself, or its copy in the testbed when it is under /run/udev/data/ (written into `inside`).
static const char *testbed_path(const char *path, char inside[PATH_MAX]) {
    static const char udev_data[] = "/run/udev/data/";
    if (path == NULL || strncmp(path, udev_data, sizeof udev_data - 1) != 0) return path;
    const char *root = getenv("UMOCKDEV_DIR");
    if (root == NULL || *root == 0 || snprintf(inside, PATH_MAX, "%s%s", root, path) >= PATH_MAX) return path;
    return inside;
}

/// The node a testbed pty with `status` stands for: its "MAJOR:MINOR" (from $UMOCKDEV_DIR/dev/.ptymap), or 0.
static int testbed_node(const struct stat *status, char target[32]) {
    if (!S_ISCHR(status->st_mode)) return 0;
    unsigned pty_major = major(status->st_rdev);
    if (pty_major < 136 || pty_major > 143) return 0;  // UNIX98 pty slaves
    const char *root = getenv("UMOCKDEV_DIR");
    if (root == NULL || *root == 0) return 0;
    char map[PATH_MAX];
    unsigned number = (pty_major - 136) * 256 + minor(status->st_rdev);
    if (snprintf(map, sizeof map, "%s/dev/.ptymap/_dev_pts_%u", root, number) >= (int)sizeof map) return 0;
    int saved = errno;
    ssize_t length = readlink(map, target, 31);
    errno = saved;
    while (length > 0 && (target[length - 1] == '\n' || target[length - 1] == ' ')) length--;  // "81:0\n", as in sysfs
    if (length <= 0) return 0;
    target[length] = 0;
    return 1;
}

/// After a successful fstat: a testbed pty's device number becomes its node's.
static void node_number(struct stat *status) {
    char target[32];
    unsigned node_major, node_minor;
    if (testbed_node(status, target) && sscanf(target, "%u:%u", &node_major, &node_minor) == 2)
        status->st_rdev = makedev(node_major, node_minor);
}

typedef void *(*mmap_type)(void *, size_t, int, int, int, off_t);

/// mmap and mmap64: a simulated camera's MMAP buffer (a testbed pty standing for 81:N, at the offset VIDIOC_QUERYBUF
/// gave) is the file hal-testbed made for it, $UMOCKDEV_DIR/hal-v4l2/81:N/OFFSET, mapped shared: the frames
/// hal-testbed writes into its own mapping are what the program reads.
#define WRAP_MMAP(name)                                                                                                \
    HC_EXPORT void *name(void *address, size_t length, int protection, int flags, int fd, off_t offset) {              \
        NEXT_DEFINITION(#name, mmap_type);                                                                             \
        struct stat status;                                                                                            \
        char target[32], path[PATH_MAX];                                                                               \
        const char *root = getenv("UMOCKDEV_DIR");                                                                     \
        if (fd >= 0 && root != NULL && HC_RAW(SYS_fstat, fd, &status) == 0 && testbed_node(&status, target)            \
            && strncmp(target, "81:", 3) == 0                                                                          \
            && snprintf(path, sizeof path, "%s/hal-v4l2/%s/%lld", root, target, (long long)offset) < (int)sizeof path) { \
            int buffer = (int)HC_RAW(SYS_openat, AT_FDCWD, path, O_RDWR | O_CLOEXEC);                                  \
            if (buffer < 0) {                                                                                          \
                errno = EINVAL;                                                                                        \
                return MAP_FAILED;                                                                                     \
            }                                                                                                          \
            void *mapped = next(address, length, protection, flags, buffer, 0);                                        \
            int saved = errno;                                                                                         \
            HC_RAW(SYS_close, buffer);                                                                                 \
            errno = saved;                                                                                             \
            return mapped;                                                                                             \
        }                                                                                                              \
        return next(address, length, protection, flags, fd, offset);                                                   \
    }

typedef int (*fstat_type)(int, struct stat *);
typedef int (*fstat64_type)(int, struct stat64 *);
typedef int (*fxstat_type)(int, int, struct stat *);
typedef int (*fxstat64_type)(int, int, struct stat64 *);

/// fstat and fstat64 (the same layout on 64-bit Linux).
#define WRAP_FSTAT(name, type, next_type)                                                                              \
    HC_EXPORT int name(int fd, type *status) {                                                                         \
        NEXT_DEFINITION(#name, next_type);                                                                             \
        int result = next(fd, status);                                                                                 \
        if (result == 0) node_number((struct stat *)status);                                                           \
        return result;                                                                                                 \
    }

/// __fxstat and __fxstat64, which programs built before glibc 2.33 call.
#define WRAP_FXSTAT(name, type, next_type)                                                                             \
    int name(int version, int fd, type *status);                                                                       \
    HC_EXPORT int name(int version, int fd, type *status) {                                                            \
        NEXT_DEFINITION(#name, next_type);                                                                             \
        int result = next(version, fd, status);                                                                        \
        if (result == 0) node_number((struct stat *)status);                                                           \
        return result;                                                                                                 \
    }

typedef FILE *(*fopen_type)(const char *, const char *);

/// fopen and fopen64: libudev reads the database with them.
#define WRAP_FOPEN(name)                                                                                               \
    HC_EXPORT FILE *name(const char *path, const char *mode) {                                                         \
        char inside[PATH_MAX];                                                                                         \
        NEXT_DEFINITION(#name, fopen_type);                                                                            \
        return next(testbed_path(path, inside), mode);                                                                 \
    }

/// The mode argument of an open that creates.
#define MODE(flags, mode)                                                                                              \
    do {                                                                                                               \
        if ((flags) & (O_CREAT | O_TMPFILE)) {                                                                         \
            va_list arguments;                                                                                         \
            va_start(arguments, flags);                                                                                \
            mode = va_arg(arguments, mode_t);                                                                          \
            va_end(arguments);                                                                                         \
        }                                                                                                              \
    } while (0)

/// The next definition of a function, found once.
#define NEXT_DEFINITION(name, type)                                                                                    \
    static type next;                                                                                                  \
    if (next == NULL) next = (type)dlsym(RTLD_NEXT, name)

typedef int (*open_type)(const char *, int, ...);
typedef int (*openat_type)(int, const char *, int, ...);
typedef int (*open_2_type)(const char *, int);
typedef int (*openat_2_type)(int, const char *, int);

/// open and open64, which take a mode when they create.
#define WRAP_OPEN(name)                                                                                                \
    HC_EXPORT int name(const char *path, int flags, ...) {                                                             \
        mode_t mode = 0;                                                                                               \
        MODE(flags, mode);                                                                                             \
        if (missing_node(path, flags)) return -1;                                                                      \
        char inside[PATH_MAX];                                                                                         \
        NEXT_DEFINITION(#name, open_type);                                                                             \
        return next(testbed_path(path, inside), flags, mode);                                                          \
    }

/// openat and openat64.
#define WRAP_OPENAT(name)                                                                                              \
    HC_EXPORT int name(int folder, const char *path, int flags, ...) {                                                 \
        mode_t mode = 0;                                                                                               \
        MODE(flags, mode);                                                                                             \
        if (missing_node(path, flags)) return -1;                                                                      \
        char inside[PATH_MAX];                                                                                         \
        NEXT_DEFINITION(#name, openat_type);                                                                           \
        return next(folder, testbed_path(path, inside), flags, mode);                                                  \
    }

/// The fortified __open_2 and __open64_2, which never create.
#define WRAP_OPEN_2(name)                                                                                              \
    int name(const char *path, int flags);                                                                             \
    HC_EXPORT int name(const char *path, int flags) {                                                                  \
        if (missing_node(path, flags)) return -1;                                                                      \
        char inside[PATH_MAX];                                                                                         \
        NEXT_DEFINITION(#name, open_2_type);                                                                           \
        return next(testbed_path(path, inside), flags);                                                                \
    }

/// __openat_2 and __openat64_2.
#define WRAP_OPENAT_2(name)                                                                                            \
    int name(int folder, const char *path, int flags);                                                                 \
    HC_EXPORT int name(int folder, const char *path, int flags) {                                                      \
        if (missing_node(path, flags)) return -1;                                                                      \
        char inside[PATH_MAX];                                                                                         \
        NEXT_DEFINITION(#name, openat_2_type);                                                                         \
        return next(folder, testbed_path(path, inside), flags);                                                        \
    }

WRAP_OPEN(open)
WRAP_OPEN(open64)
WRAP_OPENAT(openat)
WRAP_OPENAT(openat64)
WRAP_OPEN_2(__open_2)
WRAP_OPEN_2(__open64_2)
WRAP_OPENAT_2(__openat_2)
WRAP_OPENAT_2(__openat64_2)
WRAP_FSTAT(fstat, struct stat, fstat_type)
WRAP_FSTAT(fstat64, struct stat64, fstat64_type)
WRAP_FXSTAT(__fxstat, struct stat, fxstat_type)
WRAP_FXSTAT(__fxstat64, struct stat64, fxstat64_type)
WRAP_FOPEN(fopen)
WRAP_FOPEN(fopen64)
WRAP_MMAP(mmap)
WRAP_MMAP(mmap64)
