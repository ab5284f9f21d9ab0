// libc calls that Swift's Glibc module does not expose, wrapped thinly: a pseudo-terminal for serving simulated
// serial devices (posix_openpt and its companions need _XOPEN_SOURCE), and posix_spawn's action that closes every
// descriptor from a number up (a GNU extension).
#ifndef C_SYSTEM_CALLS_H
#define C_SYSTEM_CALLS_H

#include <stddef.h>

/// Opens a pseudo-terminal master in raw mode, read-write, close-on-exec, non-blocking, and writes the
/// slave's path (such as /dev/pts/3) into `slave_path`. Returns the master's descriptor,
/// or -1 with errno set.
int hal_open_pseudo_terminal(char *slave_path, size_t slave_path_size);

/// posix_spawn_file_actions_addclosefrom_np(3) on `actions` (a `posix_spawn_file_actions_t`, passed untyped so that
/// this header does not bring spawn.h's types into a module of its own): the spawned child closes every descriptor
/// from `from` up.
int hal_spawn_close_from(void *actions, int from);

#endif
