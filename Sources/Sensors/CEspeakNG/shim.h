// espeak-ng: text-to-speech synthesised into PCM.
// This target exists only so Swift can import the library's header.
#include <espeak-ng/speak_lib.h>
