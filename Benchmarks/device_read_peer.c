// The floor for Benchmarks/devices: the same work as DeviceRead as plain C loops: IIO scans through
// libiio (convert, scale, mount matrix) and evdev frames decoded in memory (scale per g), nothing else.
#include <iio.h>
#include <libevdev/libevdev.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// This process's CPU time, as DeviceRead measures it.
static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static volatile double sink;

static int iio(long count) {
    struct iio_context *context = iio_create_local_context();
    struct iio_device *device = context ? iio_context_find_device(context, "iio:device0") : NULL;
    if (!device) { fprintf(stderr, "peer: no iio:device0\n"); return 2; }
    const char *names[] = {"anglvel_x", "anglvel_y", "anglvel_z", "timestamp"};
    struct iio_channel *channels[4];
    for (int i = 0; i < 4; i++) { channels[i] = iio_device_find_channel(device, names[i], false); iio_channel_enable(channels[i]); }
    struct iio_buffer *buffer = iio_device_create_buffer(device, 1000, false);
    if (!buffer) { fprintf(stderr, "peer: no buffer\n"); return 2; }
    const double scale = 0.001065;
    long taken = 0;
    double start = 0;
    while (taken < count) {
        ssize_t filled = iio_buffer_refill(buffer);
        if (filled < 0) { fprintf(stderr, "peer: refill %s after %ld\n", strerror((int)-filled), taken); return 2; }
        ptrdiff_t step = iio_buffer_step(buffer);
        char *first[4];
        for (int i = 0; i < 4; i++) first[i] = iio_buffer_first(buffer, channels[i]);
        for (char *p = first[0]; p < (char *)iio_buffer_end(buffer) && taken < count; p += step) {
            ptrdiff_t offset = p - first[0];
            int16_t x, y, z;
            int64_t t;
            iio_channel_convert(channels[0], &x, first[0] + offset);
            iio_channel_convert(channels[1], &y, first[1] + offset);
            iio_channel_convert(channels[2], &z, first[2] + offset);
            iio_channel_convert(channels[3], &t, first[3] + offset);
            sink = y * scale - x * scale + z * scale + (double)t;  // the mount matrix swaps and negates
            if (taken++ == 0) start = now();
        }
    }
    double seconds = now() - start;
    printf("iio C peer: %ld samples, %.0f ns CPU/sample\n", count, seconds / (count - 1) * 1e9);
    iio_buffer_destroy(buffer);
    iio_context_destroy(context);
    return 0;
}

// The same in-memory frames as DeviceRead's decode: six absolute axes and a SYN_REPORT each.
static int decode(long frames) {
    struct input_event *events = calloc(frames * 7, sizeof *events);
    for (long index = 0; index < frames; index++) {
        for (int code = 0; code < 6; code++) {
            struct input_event *event = &events[index * 7 + code];
            event->type = EV_ABS; event->code = code; event->value = index % 1000 + code;
        }
        events[index * 7 + 6].type = EV_SYN;
    }
    const double scale = 9.80665 / 8192;
    double best = 1e9, checksum = 0;
    for (int repeat = 0; repeat < 5; repeat++) {
        int values[3] = {0, 0, 0};
        double start = now();
        for (long i = 0; i < frames * 7; i++) {
            const struct input_event *event = &events[i];
            if (event->type == EV_ABS && event->code <= ABS_Z) values[event->code] = event->value;
            else if (event->type == EV_SYN && event->code == SYN_REPORT) checksum += values[0] * scale;
        }
        double seconds = now() - start;
        if (seconds < best) best = seconds;
    }
    printf("evdev-decode C peer: %ld samples, %.1f ns CPU/sample (checksum %.3f)\n", frames, best / frames * 1e9, checksum);
    free(events);
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: device_read_peer iio|decode COUNT\n"); return 2; }
    long count = atol(argv[2]);
    return strcmp(argv[1], "iio") == 0 ? iio(count) : decode(count);
}
