// libiio (Debian libiio-dev): the IIO context, device, channel and buffer API the IIO backend calls.
// This target exists only so Swift can import the library's header.
#include <iio.h>
