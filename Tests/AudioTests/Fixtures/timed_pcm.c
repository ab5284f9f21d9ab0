// A sound card for tests: an alsa-lib external PCM plugin (ioplug) that consumes samples at the
// real-time rate and discards them. alsa-lib's own `null` and `file` PCMs take samples as fast as
// they come, so nothing can underrun on them; this one keeps time, so a writer that stops feeding
// it underruns (EPIPE), as on a real card. Built by the audio tests with gcc, loaded through
//   pcm_type.timed { lib "/path/libasound_module_pcm_timed.so" }  pcm.!default { type timed }
#include <alsa/asoundlib.h>
#include <alsa/pcm_external.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    snd_pcm_ioplug_t io;
    struct timespec started;
    int running;
} timed_t;

static int64_t elapsed_frames(timed_t *t) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    int64_t ns = (now.tv_sec - t->started.tv_sec) * 1000000000LL + (now.tv_nsec - t->started.tv_nsec);
    return ns * (int64_t)t->io.rate / 1000000000LL;
}

static int timed_start(snd_pcm_ioplug_t *io) {
    timed_t *t = io->private_data;
    clock_gettime(CLOCK_MONOTONIC, &t->started);
    t->running = 1;
    struct itimerspec tick = {{0, 5000000}, {0, 5000000}};
    timerfd_settime(io->poll_fd, 0, &tick, NULL);
    return 0;
}

static int timed_stop(snd_pcm_ioplug_t *io) {
    timed_t *t = io->private_data;
    t->running = 0;
    return 0;
}

// Frames played so far, within the buffer; past what was written is an underrun.
static snd_pcm_sframes_t timed_pointer(snd_pcm_ioplug_t *io) {
    timed_t *t = io->private_data;
    if (!t->running) return 0;
    int64_t played = elapsed_frames(t);
    if (played > (int64_t)io->appl_ptr) return -EPIPE;
    return played % io->buffer_size;
}

static snd_pcm_sframes_t timed_transfer(snd_pcm_ioplug_t *io, const snd_pcm_channel_area_t *areas,
                                        snd_pcm_uframes_t offset, snd_pcm_uframes_t size) {
    return size;
}

static int timed_prepare(snd_pcm_ioplug_t *io) {
    timed_t *t = io->private_data;
    t->running = 0;
    return 0;
}

static int timed_poll_revents(snd_pcm_ioplug_t *io, struct pollfd *fds, unsigned int count, unsigned short *revents) {
    uint64_t ticks;
    if (read(io->poll_fd, &ticks, sizeof ticks) < 0) { /* nothing pending */ }
    *revents = POLLOUT;
    return 0;
}

static int timed_close(snd_pcm_ioplug_t *io) {
    timed_t *t = io->private_data;
    close(io->poll_fd);
    free(t);
    return 0;
}

static const snd_pcm_ioplug_callback_t callbacks = {
    .start = timed_start,
    .stop = timed_stop,
    .pointer = timed_pointer,
    .transfer = timed_transfer,
    .prepare = timed_prepare,
    .poll_revents = timed_poll_revents,
    .close = timed_close,
};

SND_PCM_PLUGIN_DEFINE_FUNC(timed) {
    if (stream != SND_PCM_STREAM_PLAYBACK) return -EINVAL;
    timed_t *t = calloc(1, sizeof *t);
    if (!t) return -ENOMEM;
    t->io.version = SND_PCM_IOPLUG_VERSION;
    t->io.name = "timed test card";
    t->io.callback = &callbacks;
    t->io.private_data = t;
    t->io.poll_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    t->io.poll_events = POLLIN;
    int err = snd_pcm_ioplug_create(&t->io, name, stream, mode);
    if (err < 0) { close(t->io.poll_fd); free(t); return err; }
    unsigned int access[] = {SND_PCM_ACCESS_RW_INTERLEAVED};
    unsigned int formats[] = {SND_PCM_FORMAT_S16_LE};
    snd_pcm_ioplug_set_param_list(&t->io, SND_PCM_IOPLUG_HW_ACCESS, 1, access);
    snd_pcm_ioplug_set_param_list(&t->io, SND_PCM_IOPLUG_HW_FORMAT, 1, formats);
    snd_pcm_ioplug_set_param_minmax(&t->io, SND_PCM_IOPLUG_HW_CHANNELS, 1, 2);
    snd_pcm_ioplug_set_param_minmax(&t->io, SND_PCM_IOPLUG_HW_RATE, 8000, 48000);
    snd_pcm_ioplug_set_param_minmax(&t->io, SND_PCM_IOPLUG_HW_PERIOD_BYTES, 64, 64 * 1024);
    snd_pcm_ioplug_set_param_minmax(&t->io, SND_PCM_IOPLUG_HW_PERIODS, 2, 64);
    *pcmp = t->io.pcm;
    return 0;
}

SND_PCM_PLUGIN_SYMBOL(timed);
