#include "hal_v4l2.h"

#include <errno.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

int hal_v4l2_ioctl(int fd, unsigned long request, void *argument) {
    int result;
    do {
        result = ioctl(fd, request, argument);
    } while (result == -1 && errno == EINTR);
    return result == -1 ? errno : 0;
}

void *hal_v4l2_map(int fd, size_t length, long offset) {
    void *address = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, offset);
    return address == MAP_FAILED ? NULL : address;
}
