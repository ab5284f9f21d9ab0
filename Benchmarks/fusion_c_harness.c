// Timing harness for x-io Technologies' Fusion C library (the core of PyPI imufusion 1.3.x).
// Built and run by Benchmarks/fusion_c_core.sh, which compiles it against Fusion's sources from the imufusion
// sdist; nothing of Fusion lives in this repository.
//
// Usage: fusion_c_harness DATA.csv [SKIP_SECONDS=15]
//
// DATA.csv: header t,gx,gy,gz,ax,ay,az,mx,my,mz,qw,qx,qy,qz (deg/s, g, uT in the device frame; q rotates
// device vectors into ENU). Runs FusionBiasUpdate + FusionAhrsUpdate per sample with the same settings as
// Benchmarks/fusion_peer.py (x-io's advanced-example settings, ENU convention), 5 timed passes with freshly
// initialised state, and prints the best pass with the attitude error versus the truth for t >= SKIP:
//   RESULT fusion-c-core-9axis ns_per_update=... total_rms=... total_max=... tilt_rms=... heading_rms=...
// The error figures use the same definitions as fusion_peer.py, so the two should agree.

#include "Fusion.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PASSES 5
#define HEADER "t,gx,gy,gz,ax,ay,az,mx,my,mz,qw,qx,qy,qz"

typedef struct {
    double t;
    FusionVector gyroscope, accelerometer, magnetometer;
    double truth[4]; // w, x, y, z
} Sample;

// Reads the whole CSV; exits with a message on malformed input.
static Sample *readCsv(const char *path, size_t *count) {
    FILE *file = fopen(path, "r");
    if (file == NULL) {
        perror(path);
        exit(1);
    }
    char line[1024];
    if (fgets(line, sizeof line, file) == NULL || strncmp(line, HEADER, strlen(HEADER)) != 0) {
        fprintf(stderr, "%s: expected header %s\n", path, HEADER);
        exit(1);
    }
    size_t capacity = 1 << 16, n = 0;
    Sample *samples = malloc(capacity * sizeof *samples);
    while (fgets(line, sizeof line, file) != NULL) {
        if (line[0] == '\n' || line[0] == '\r' || line[0] == '\0') {
            continue;
        }
        double v[14];
        char *cursor = line, *end;
        for (int i = 0; i < 14; i++) {
            v[i] = strtod(cursor, &end);
            if (end == cursor) {
                fprintf(stderr, "%s: bad number in row %zu, column %d\n", path, n + 1, i + 1);
                exit(1);
            }
            cursor = (*end == ',') ? end + 1 : end;
        }
        if (n == capacity) {
            capacity *= 2;
            samples = realloc(samples, capacity * sizeof *samples);
        }
        Sample *s = &samples[n++];
        s->t = v[0];
        for (int i = 0; i < 3; i++) {
            s->gyroscope.array[i] = (float) v[1 + i];
            s->accelerometer.array[i] = (float) v[4 + i];
            s->magnetometer.array[i] = (float) v[7 + i];
        }
        memcpy(s->truth, &v[10], sizeof s->truth);
    }
    fclose(file);
    if (n < 2) {
        fprintf(stderr, "%s: need at least two samples\n", path);
        exit(1);
    }
    *count = n;
    return samples;
}

static double nowSeconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s DATA.csv [SKIP_SECONDS]\n", argv[0]);
        return 2;
    }
    const double skip = argc > 2 ? atof(argv[2]) : 15.0;
    size_t n;
    Sample *samples = readCsv(argv[1], &n);
    FusionQuaternion *estimates = malloc(n * sizeof *estimates);

    // Same settings as fusion_peer.py: uniform rate from the timestamps, x-io's advanced-example settings.
    const float sampleRate = (float) ((double) (n - 1) / (samples[n - 1].t - samples[0].t));
    const FusionAhrsSettings settings = {
        .sampleRate = sampleRate,
        .convention = FusionConventionEnu,
        .gain = 0.5f,
        .gyroscopeRange = 2000.0f,
        .accelerationRejection = 10.0f,
        .magneticRejection = 10.0f,
        .rejectionTimeout = 5.0f,
    };
    FusionBiasSettings biasSettings = fusionBiasDefaultSettings;
    biasSettings.sampleRate = sampleRate;

    double best = INFINITY;
    for (int pass = 0; pass < PASSES; pass++) {
        FusionAhrs ahrs;
        FusionAhrsInitialise(&ahrs);
        FusionAhrsSetSettings(&ahrs, &settings);
        FusionBias bias;
        FusionBiasInitialise(&bias);
        FusionBiasSetSettings(&bias, &biasSettings);

        const double start = nowSeconds();
        for (size_t i = 0; i < n; i++) {
            const FusionVector gyroscope = FusionBiasUpdate(&bias, samples[i].gyroscope);
            FusionAhrsUpdate(&ahrs, gyroscope, samples[i].accelerometer, samples[i].magnetometer);
            estimates[i] = FusionAhrsGetQuaternion(&ahrs);
        }
        const double elapsed = nowSeconds() - start;
        if (elapsed < best) {
            best = elapsed;
        }
    }

    // Error of q_err = q_true * conj(q_est): total angle, twist about earth z (heading), remaining swing (tilt).
    double sumTotal = 0, maxTotal = 0, sumTilt = 0, sumHeading = 0;
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        if (samples[i].t < skip) {
            continue;
        }
        const double *a = samples[i].truth;
        const FusionQuaternion e = estimates[i];
        const double na = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2] + a[3] * a[3]);
        const double nb = sqrt((double) e.element.w * e.element.w + (double) e.element.x * e.element.x +
                               (double) e.element.y * e.element.y + (double) e.element.z * e.element.z);
        const double aw = a[0] / na, ax = a[1] / na, ay = a[2] / na, az = a[3] / na;
        const double bw = e.element.w / nb, bx = -e.element.x / nb, by = -e.element.y / nb, bz = -e.element.z / nb;
        const double w = fabs(aw * bw - ax * bx - ay * by - az * bz);
        const double x = fabs(aw * bx + ax * bw + ay * bz - az * by);
        const double y = fabs(aw * by - ax * bz + ay * bw + az * bx);
        const double z = fabs(aw * bz + ax * by - ay * bx + az * bw);
        const double degrees = 180.0 / M_PI;
        const double total = 2.0 * atan2(sqrt(x * x + y * y + z * z), w) * degrees;
        const double heading = 2.0 * atan2(z, w) * degrees;
        const double tilt = 2.0 * acos(fmin(1.0, hypot(w, z))) * degrees;
        sumTotal += total * total;
        sumTilt += tilt * tilt;
        sumHeading += heading * heading;
        maxTotal = fmax(maxTotal, total);
        kept++;
    }
    if (kept == 0) {
        fprintf(stderr, "no samples with t >= %g\n", skip);
        return 1;
    }
    printf("RESULT fusion-c-core-9axis ns_per_update=%.0f total_rms=%.4f total_max=%.4f tilt_rms=%.4f heading_rms=%.4f\n",
           best / (double) n * 1e9, sqrt(sumTotal / kept), maxTotal, sqrt(sumTilt / kept), sqrt(sumHeading / kept));
    free(estimates);
    free(samples);
    return 0;
}
