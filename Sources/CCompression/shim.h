// MCAP's chunk compressions and checksums: Debian's libzstd-dev, liblz4-dev (the LZ4 frame format) and
// zlib1g-dev (CRC-32).
#include <zstd.h>
#include <lz4frame.h>
#include <zlib.h>
