// alsa-lib: PCM playback for the alsa: speaker.
// This target exists only so Swift can import the library's header.
#include <alsa/asoundlib.h>
