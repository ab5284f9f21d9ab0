// Opens of device nodes that exist nowhere, answered here. umockdev's preload (loaded after this library) keeps a slot
// for every open of a /dev path it passes on, a failed one included, and aborts the program when its 50 slots are used
// up: alsa-lib alone probes 32 sound cards (`aplay -l`, SDL, PortAudio). An open of a /dev path that is neither in the
// testbed ($UMOCKDEV_DIR/dev/…) nor on the machine fails here with ENOENT, as it would anyway, and umockdev never sees
// it. Everything else goes on to umockdev's wrappers. Active with or without the trace's clock.
#include "preload.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/// The next definition of an open function, found once.
#define NEXT_OPEN(name, type)                                                                                          \
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
        NEXT_OPEN(#name, open_type);                                                                                   \
        return next(path, flags, mode);                                                                                \
    }

/// openat and openat64.
#define WRAP_OPENAT(name)                                                                                              \
    HC_EXPORT int name(int folder, const char *path, int flags, ...) {                                                 \
        mode_t mode = 0;                                                                                               \
        MODE(flags, mode);                                                                                             \
        if (missing_node(path, flags)) return -1;                                                                      \
        NEXT_OPEN(#name, openat_type);                                                                                 \
        return next(folder, path, flags, mode);                                                                        \
    }

/// The fortified __open_2 and __open64_2, which never create.
#define WRAP_OPEN_2(name)                                                                                              \
    int name(const char *path, int flags);                                                                             \
    HC_EXPORT int name(const char *path, int flags) {                                                                  \
        if (missing_node(path, flags)) return -1;                                                                      \
        NEXT_OPEN(#name, open_2_type);                                                                                 \
        return next(path, flags);                                                                                      \
    }

/// __openat_2 and __openat64_2.
#define WRAP_OPENAT_2(name)                                                                                            \
    int name(int folder, const char *path, int flags);                                                                 \
    HC_EXPORT int name(int folder, const char *path, int flags) {                                                      \
        if (missing_node(path, flags)) return -1;                                                                      \
        NEXT_OPEN(#name, openat_2_type);                                                                               \
        return next(folder, path, flags);                                                                              \
    }

WRAP_OPEN(open)
WRAP_OPEN(open64)
WRAP_OPENAT(openat)
WRAP_OPENAT(openat64)
WRAP_OPEN_2(__open_2)
WRAP_OPEN_2(__open64_2)
WRAP_OPENAT_2(__openat_2)
WRAP_OPENAT_2(__openat64_2)
