// A pseudo-terminal for serving simulated serial devices (NMEA on a pty that gpsd or any
// program opens like a receiver). posix_openpt and its companions need _XOPEN_SOURCE,
// which Swift's Glibc module does not expose, so this thin C target wraps them.
#ifndef C_PSEUDO_TERMINAL_H
#define C_PSEUDO_TERMINAL_H

#include <stddef.h>

/// Opens a pseudo-terminal master in raw mode, read-write, close-on-exec, non-blocking, and writes the
/// slave's path (such as /dev/pts/3) into `slave_path`. Returns the master's descriptor,
/// or -1 with errno set.
int hal_open_pseudo_terminal(char *slave_path, size_t slave_path_size);

#endif
