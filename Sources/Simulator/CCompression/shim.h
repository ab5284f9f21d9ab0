// MCAP's chunk compressions and checksums: Debian's libzstd-dev, liblz4-dev (the LZ4 frame format) and
// libdeflate-dev (CRC-32, with the CPU's carry-less multiply: about three times zlib's speed here).
#include <zstd.h>
#include <lz4frame.h>
#include <libdeflate.h>
