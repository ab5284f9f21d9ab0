// libebur128: EBU R 128 integrated loudness and true peak.
// This target exists only so Swift can import the library's header.
#include <ebur128.h>
