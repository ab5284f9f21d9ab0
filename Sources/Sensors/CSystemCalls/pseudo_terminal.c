#define _GNU_SOURCE
#include "CSystemCalls.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <errno.h>

int hal_open_pseudo_terminal(char *slave_path, size_t slave_path_size) {
    int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
    if (master < 0) return -1;
    if (grantpt(master) != 0 || unlockpt(master) != 0 || ptsname_r(master, slave_path, slave_path_size) != 0) {
        int saved = errno;
        close(master);
        errno = saved;
        return -1;
    }
    // Raw on the slave side too, so a reader that does not set its own mode sees the bytes as written.
    int slave = open(slave_path, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (slave >= 0) {
        struct termios settings;
        if (tcgetattr(slave, &settings) == 0) {
            cfmakeraw(&settings);
            tcsetattr(slave, TCSANOW, &settings);
        }
        close(slave);
    }
    return master;
}
