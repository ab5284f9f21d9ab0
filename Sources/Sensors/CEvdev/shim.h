// libevdev (Debian libevdev-dev): event reading with SYN_DROPPED resync, device state and grabs,
// for the evdev backend. This target exists only so Swift can import the library's header.
#include <libevdev/libevdev.h>
#include <linux/input.h>
