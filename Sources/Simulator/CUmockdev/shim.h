// umockdev's C API (Debian's libumockdev-dev): what hal-testbed builds its testbed with.
#include <umockdev.h>
