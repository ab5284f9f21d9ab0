// libsndfile: reading WAV, FLAC and OGG clips and writing WAV.
// This target exists only so Swift can import the library's header.
#include <sndfile.h>
