#include "hal_lazy_library.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static _Thread_local char message[1024];

const char *hal_lazy_library_open(hal_lazy_library *library, const char *file) {
    if (atomic_load_explicit(&library->handle, memory_order_acquire) != NULL) return NULL;
    const char *path = file != NULL ? file : library->file;
    if (path == NULL) {
        snprintf(message, sizeof message, "%s is used before its file was given", library->description);
        return message;
    }
    pthread_mutex_lock(&library->lock);
    const char *failure = NULL;
    if (atomic_load_explicit(&library->handle, memory_order_relaxed) == NULL) {
        void *handle = dlopen(path, RTLD_NOW | library->flags);
        if (handle == NULL) {
            const char *reason = dlerror();
            snprintf(message, sizeof message, "%s could not be loaded (%s); install Debian's %s", library->description,
                     reason != NULL ? reason : path, library->package);
            failure = message;
        } else {
            atomic_store_explicit(&library->handle, handle, memory_order_release);
        }
    }
    pthread_mutex_unlock(&library->lock);
    return failure;
}

void *hal_lazy_library_resolve(hal_lazy_library *library, void *_Atomic *slot, const char *symbol) {
    void *address = atomic_load_explicit(slot, memory_order_acquire);
    if (address != NULL) return address;
    const char *failure = hal_lazy_library_open(library, NULL);
    if (failure != NULL) {
        fprintf(stderr, "fatal: %s\n", failure);
        abort();
    }
    address = dlsym(atomic_load_explicit(&library->handle, memory_order_acquire), symbol);
    if (address == NULL) {
        fprintf(stderr, "fatal: %s has no function %s; install Debian's %s\n", library->description, symbol, library->package);
        abort();
    }
    atomic_store_explicit(slot, address, memory_order_release);
    return address;
}

int hal_lazy_library_is_open(hal_lazy_library *library) {
    return atomic_load_explicit(&library->handle, memory_order_acquire) != NULL;
}
