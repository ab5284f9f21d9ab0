/*
 * hal-testbed: host a umockdev testbed like umockdev-run does, but without
 * running a program in it, and with simulated V4L2 capture devices.
 *
 *   hal-testbed READY_FILE [options...]
 *     -d FILE.umockdev                add devices (umockdev_testbed_add_from_file)
 *     -i NODE=FILE.ioctl              ioctl recording (umockdev_testbed_load_ioctl)
 *     -s NODE=FILE.script             script recording (umockdev_testbed_load_script)
 *     -e NODE=FILE.events             evemu events (umockdev_testbed_load_evemu_events)
 *     -v NODE=FRAMES:W:H:FOURCC:FPS   V4L2 capture device at NODE (/dev/videoN) whose
 *                                     frames are those of the raw file FRAMES;
 *                                     FOURCC is YUYV, UYVY, GREY or RGB3
 *     -l NODE=FIFO                    live input: what is written into the FIFO is what
 *                                     reads of NODE return, as it arrives (hal exec writes
 *                                     a live device's events or scans there); FIFO.count
 *                                     holds how many bytes went into NODE so far
 *     -x NODE=FILE.answers            evdev ioctls of variable size, answered at any size
 *                                     (see "evdev" below); NODE's other ioctls are its -i
 *   Options may repeat. Like umockdev-run, all -d are applied first, then -v, -i,
 *   -s, -e, -l and -x.
 *
 * When the testbed is built, its root directory is written (no newline) to
 * READY_FILE.part, which is renamed to READY_FILE. Programs started with
 * LD_PRELOAD=libumockdev-preload.so.0 UMOCKDEV_DIR=<root> then see the devices.
 * SIGTERM or SIGINT removes the testbed and exits with status 0 at once, whatever its scripts still hold.
 *
 * Frames: every stream (STREAMON, or the first read() of an idle device) starts
 * at frame 0 at time t0. Its k-th frame is frame k % n_frames of the file, is
 * stamped t0 + k/FPS (CLOCK_MONOTONIC), and is not handed out before then:
 * DQBUF and read() wait. No frame is ever dropped; a slow reader gets them late.
 *
 * Buffers: USERPTR (the frame is written into the program's buffer through umockdev) or MMAP: REQBUFS makes each
 * buffer a file <testbed>/hal-v4l2/81:MINOR/OFFSET, which hal's preload (libhal-clock.so) maps when the program
 * calls mmap() on the node at that offset; DQBUF copies the frame into this host's own mapping of it.
 *
 * poll(): umockdev does not see poll() on its nodes, but the nodes are ptys.
 * When DQBUF or read() would not wait, the host writes one byte into the pty,
 * and flushes it again through its own slave fd; so poll()/select() see POLLIN.
 * Clients never read that byte: read() on the node is answered below.
 *
 * evdev: the kernel answers EVIOCGNAME, EVIOCGPHYS, EVIOCGUNIQ, EVIOCGPROP, EVIOCGKEY,
 * EVIOCGLED, EVIOCGSND, EVIOCGSW and EVIOCGBIT(type) for any buffer size the caller
 * names, copying min(size, length) bytes and returning that count; umockdev's
 * recordings answer only the sizes written in them. For a node given with -x, every
 * client's such ioctls are answered here from FILE, whose lines are "NR HEX": the
 * request's number (_IOC_NR, in hex) and the whole answer as the kernel holds it.
 * An EVIOCGBIT type without a line is EINVAL, and a missing NAME, PHYS or UNIQ is
 * ENOENT, as in the kernel. Every other ioctl goes on to the node's -i recording.
 *
 * Threads: umockdev's worker thread runs all handlers (and the -i handlers) in
 * its own main context; -s/-e run in script threads. The main loop here only
 * waits for signals.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <termios.h>
#include <unistd.h>
#include <linux/version.h>
#include <linux/videodev2.h>
#include <glib-unix.h>
#include <umockdev.h>

#define MAX_BUFFERS 32
#define CAPTURE V4L2_BUF_TYPE_VIDEO_CAPTURE

typedef struct {
    /* Configuration, fixed after setup. */
    char *node, *bus;           /* "/dev/video0", "hal-sim" */
    unsigned minor;
    guint8 *frames;             /* all frames, back to back */
    gsize n_frames, frame_size;
    guint32 width, height, fourcc, bpp, fps;
    const char *fmt_name;
    int master_fd, slave_fd;    /* the node's pty */
    char *buffer_dir;           /* <testbed>/hal-v4l2/81:MINOR: the MMAP buffers' files, by offset */
    gsize buffer_size;          /* an MMAP buffer's length: the frame, rounded up to pages */

    /* State, touched only on umockdev's worker thread after setup. */
    gboolean ready;             /* the readiness byte is in the pty */
    GSource *ready_timer;
    UMockdevIoctlClient *owner; /* client that owns the buffers or the read() stream */
    guint n_bufs;               /* buffers from REQBUFS */
    guint32 memory;             /* theirs: V4L2_MEMORY_USERPTR or V4L2_MEMORY_MMAP */
    struct { gulong userptr; guint32 length; gboolean queued; guint8 *map; } bufs[MAX_BUFFERS];
    guint fifo[MAX_BUFFERS], fifo_head, fifo_len;  /* queued buffers, in order */
    gboolean streaming, reading;
    gint64 t0;                  /* monotonic µs at the start of the stream */
    guint64 seq;                /* next frame of the stream */
    gsize read_off;             /* read() position inside frame seq */
} VDev;

static const struct { const char *fourcc, *name; guint32 bpp; } formats[] = {
    { "YUYV", "YUYV 4:2:2", 2 }, { "UYVY", "UYVY 4:2:2", 2 },
    { "GREY", "8-bit Greyscale", 1 }, { "RGB3", "24-bit RGB 8-8-8", 3 },
};

static gint64 due_time(VDev *d, guint64 k)
{
    return d->t0 + (gint64) (k * G_USEC_PER_SEC / d->fps);
}

static const guint8 *frame_data(VDev *d, guint64 k)
{
    return d->frames + (k % d->n_frames) * d->frame_size;
}

/* A source on the current thread's main context (the worker's) that fires at `when`. */
static GSource *timer_at(gint64 when, GSourceFunc fn, gpointer data)
{
    gint64 wait_us = when - g_get_monotonic_time();
    GSource *s = g_timeout_source_new(wait_us > 0 ? (guint) ((wait_us + 999) / 1000) : 0);
    g_source_set_callback(s, fn, data, NULL);
    g_source_attach(s, g_main_context_get_thread_default());
    return s;
}

/* ---- poll() readiness through the pty -------------------------------------- */

static void update_ready(VDev *d);

static gboolean ready_timer_cb(gpointer user)
{
    VDev *d = user;
    g_source_unref(d->ready_timer);
    d->ready_timer = NULL;
    update_ready(d);
    return G_SOURCE_REMOVE;
}

/* Make the pty readable exactly when DQBUF or read() would not wait. */
static void update_ready(VDev *d)
{
    gint64 when = 0;
    gboolean want;

    if (d->streaming) {
        want = d->fifo_len > 0;
        when = due_time(d, d->seq);
    } else {
        want = d->n_bufs == 0;                      /* read() mode */
        if (d->reading && d->read_off == 0)
            when = due_time(d, d->seq);
    }
    if (d->ready_timer) {
        g_source_destroy(d->ready_timer);
        g_source_unref(d->ready_timer);
        d->ready_timer = NULL;
    }
    if (want && when > g_get_monotonic_time()) {
        d->ready_timer = timer_at(when, ready_timer_cb, d);
        want = FALSE;
    }
    if (want && !d->ready)
        d->ready = write(d->master_fd, "", 1) == 1;
    else if (!want && d->ready)
        d->ready = tcflush(d->slave_fd, TCIFLUSH) != 0;
}

/* ---- completing requests, possibly later ------------------------------------ */

typedef struct { UMockdevIoctlClient *client; glong ret; } Pending;

static gboolean pending_cb(gpointer user)
{
    Pending *p = user;
    umockdev_ioctl_client_complete(p->client, p->ret, 0);
    g_object_unref(p->client);
    g_free(p);
    return G_SOURCE_REMOVE;
}

/* Complete the client's request with ret or errno err, now or at time `when`. */
static void complete_at(VDev *d, UMockdevIoctlClient *c, glong ret, int err, gint64 when)
{
    if (err || when <= g_get_monotonic_time()) {
        umockdev_ioctl_client_complete(c, err ? -1 : ret, err);
    } else {
        Pending *p = g_new(Pending, 1);
        p->client = g_object_ref(c);
        p->ret = ret;
        g_source_unref(timer_at(when, pending_cb, p));
    }
    update_ready(d);
}

/* ---- V4L2 ------------------------------------------------------------------- */

static void stop_stream(VDev *d)
{
    d->streaming = d->reading = FALSE;
    d->fifo_len = 0;
    for (guint i = 0; i < MAX_BUFFERS; i++)
        d->bufs[i].queued = FALSE;
}

/* MMAP buffers: each is a file in d->buffer_dir named by its offset, which hal's preload maps into a program that
 * calls mmap() on the node at that offset; the host writes frames into its own mapping of the same file. */
static char *buffer_path(VDev *d, guint i)
{
    return g_strdup_printf("%s/%" G_GSIZE_FORMAT, d->buffer_dir, i * d->buffer_size);
}

static void free_buffers(VDev *d)
{
    for (guint i = 0; i < d->n_bufs; i++) {
        if (d->bufs[i].map) {
            g_autofree char *path = buffer_path(d, i);
            munmap(d->bufs[i].map, d->buffer_size);
            unlink(path);   /* a program's mapping stays valid; the next REQBUFS makes new files */
        }
    }
    d->n_bufs = 0;
    memset(d->bufs, 0, sizeof d->bufs);
}

static int make_buffers(VDev *d, guint count)
{
    if (g_mkdir_with_parents(d->buffer_dir, 0755) != 0)
        return errno;
    for (guint i = 0; i < count; i++) {
        g_autofree char *path = buffer_path(d, i);
        int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        void *map = MAP_FAILED;
        if (fd >= 0 && ftruncate(fd, (off_t) d->buffer_size) == 0)
            map = mmap(NULL, d->buffer_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        int err = errno;
        if (fd >= 0)
            close(fd);
        if (map == MAP_FAILED) {
            d->n_bufs = i;
            free_buffers(d);
            return err ? err : ENOMEM;
        }
        d->bufs[i].map = map;
    }
    d->n_bufs = count;
    return 0;
}

/* If the owner has closed the device since, forget its buffers and stream. */
static void check_owner(VDev *d, UMockdevIoctlClient *c)
{
    if (d->owner && d->owner != c && !umockdev_ioctl_client_get_connected(d->owner)) {
        stop_stream(d);
        free_buffers(d);
        g_clear_object(&d->owner);
    }
}

static gboolean busy(VDev *d, UMockdevIoctlClient *c)
{
    return d->owner != NULL && d->owner != c;
}

static void fill_buf(VDev *d, struct v4l2_buffer *b, guint i)
{
    b->index = i;
    b->memory = d->memory;
    if (d->memory == V4L2_MEMORY_MMAP) {
        b->m.offset = (guint32) (i * d->buffer_size);
        b->length = (guint32) d->buffer_size;
    } else {
        b->m.userptr = d->bufs[i].userptr;
        b->length = d->bufs[i].userptr ? d->bufs[i].length : d->frame_size;
    }
    b->field = V4L2_FIELD_NONE;
    b->flags = V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC | V4L2_BUF_FLAG_TSTAMP_SRC_EOF |
               (d->bufs[i].queued ? V4L2_BUF_FLAG_QUEUED : 0);
}

/* Answer one ioctl. Returns 0 or an errno; sets *when to delay the answer. */
static int v4l2_ioctl(VDev *d, UMockdevIoctlClient *c, gulong req,
                      UMockdevIoctlData *data, gint64 *when)
{
    void *p = data->data;

    switch (req) {
    case VIDIOC_QUERYCAP: {
        struct v4l2_capability *cap = p;
        memset(cap, 0, sizeof *cap);
        g_strlcpy((char *) cap->driver, "hal-sim", sizeof cap->driver);
        g_snprintf((char *) cap->card, sizeof cap->card, "HAL Sim Camera %u", d->minor);
        g_snprintf((char *) cap->bus_info, sizeof cap->bus_info, "platform:%s", d->bus);
        cap->version = LINUX_VERSION_CODE;
        cap->device_caps = V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_READWRITE | V4L2_CAP_STREAMING;
        cap->capabilities = cap->device_caps | V4L2_CAP_DEVICE_CAPS;
        return 0;
    }
    case VIDIOC_ENUM_FMT: {
        struct v4l2_fmtdesc *f = p;
        if (f->index != 0 || f->type != CAPTURE)
            return EINVAL;
        f->flags = 0;
        g_strlcpy((char *) f->description, d->fmt_name, sizeof f->description);
        f->pixelformat = d->fourcc;
        return 0;
    }
    case VIDIOC_G_FMT:
    case VIDIOC_S_FMT:          /* one format only: S_FMT and TRY_FMT return it */
    case VIDIOC_TRY_FMT: {
        struct v4l2_format *f = p;
        if (f->type != CAPTURE)
            return EINVAL;
        memset(&f->fmt, 0, sizeof f->fmt);
        f->fmt.pix = (struct v4l2_pix_format) {
            .width = d->width, .height = d->height, .pixelformat = d->fourcc,
            .field = V4L2_FIELD_NONE, .bytesperline = d->width * d->bpp,
            .sizeimage = d->frame_size, .colorspace = V4L2_COLORSPACE_SRGB,
        };
        return 0;
    }
    case VIDIOC_ENUM_FRAMESIZES: {
        struct v4l2_frmsizeenum *fs = p;
        if (fs->index != 0 || fs->pixel_format != d->fourcc)
            return EINVAL;
        fs->type = V4L2_FRMSIZE_TYPE_DISCRETE;
        fs->discrete = (struct v4l2_frmsize_discrete) { d->width, d->height };
        return 0;
    }
    case VIDIOC_ENUM_FRAMEINTERVALS: {
        struct v4l2_frmivalenum *fi = p;
        if (fi->index != 0 || fi->pixel_format != d->fourcc ||
            fi->width != d->width || fi->height != d->height)
            return EINVAL;
        fi->type = V4L2_FRMIVAL_TYPE_DISCRETE;
        fi->discrete = (struct v4l2_fract) { 1, d->fps };
        return 0;
    }
    case VIDIOC_G_PARM:
    case VIDIOC_S_PARM: {       /* fixed rate: S_PARM returns it */
        struct v4l2_streamparm *sp = p;
        if (sp->type != CAPTURE)
            return EINVAL;
        memset(&sp->parm, 0, sizeof sp->parm);
        sp->parm.capture = (struct v4l2_captureparm) {
            .capability = V4L2_CAP_TIMEPERFRAME, .timeperframe = { 1, d->fps }, .readbuffers = 1,
        };
        return 0;
    }
    case VIDIOC_ENUMINPUT: {
        struct v4l2_input *in = p;
        if (in->index != 0)
            return EINVAL;
        *in = (struct v4l2_input) { .name = "Camera", .type = V4L2_INPUT_TYPE_CAMERA };
        return 0;
    }
    case VIDIOC_G_INPUT:
        *(int *) p = 0;
        return 0;
    case VIDIOC_S_INPUT:
        return *(int *) p == 0 ? 0 : EINVAL;
    case VIDIOC_REQBUFS: {
        struct v4l2_requestbuffers *r = p;
        r->capabilities = V4L2_BUF_CAP_SUPPORTS_USERPTR | V4L2_BUF_CAP_SUPPORTS_MMAP;
        if (r->type != CAPTURE || (r->memory != V4L2_MEMORY_USERPTR && r->memory != V4L2_MEMORY_MMAP))
            return EINVAL;      /* what a driver without DMABUF answers */
        if (busy(d, c) || d->streaming || d->reading)
            return EBUSY;
        free_buffers(d);
        d->memory = r->memory;
        r->count = MIN(r->count, MAX_BUFFERS);
        if (r->memory == V4L2_MEMORY_MMAP) {
            int err = make_buffers(d, r->count);
            if (err)
                return err;
        } else {
            d->n_bufs = r->count;
        }
        g_clear_object(&d->owner);
        if (d->n_bufs)
            d->owner = g_object_ref(c);
        return 0;
    }
    case VIDIOC_QUERYBUF: {
        struct v4l2_buffer *b = p;
        if (b->type != CAPTURE || b->index >= d->n_bufs)
            return EINVAL;
        fill_buf(d, b, b->index);
        b->bytesused = 0;
        return 0;
    }
    case VIDIOC_QBUF: {
        struct v4l2_buffer *b = p;
        if (busy(d, c))
            return EBUSY;
        if (b->type != CAPTURE || b->memory != d->memory || b->index >= d->n_bufs || d->bufs[b->index].queued)
            return EINVAL;
        if (d->memory == V4L2_MEMORY_USERPTR) {
            if (b->m.userptr == 0 || b->length < d->frame_size)
                return EINVAL;
            d->bufs[b->index].userptr = b->m.userptr;
            d->bufs[b->index].length = b->length;
        }
        d->bufs[b->index].queued = TRUE;
        d->fifo[(d->fifo_head + d->fifo_len++) % MAX_BUFFERS] = b->index;
        fill_buf(d, b, b->index);
        return 0;
    }
    case VIDIOC_DQBUF: {
        struct v4l2_buffer *b = p;
        UMockdevIoctlData *mem;
        guint i;
        if (busy(d, c))
            return EBUSY;
        if (b->type != CAPTURE || b->memory != d->memory || !d->streaming)
            return EINVAL;
        if (d->fifo_len == 0)
            return EAGAIN;      /* a kernel driver would block forever here */
        i = d->fifo[d->fifo_head];
        d->fifo_head = (d->fifo_head + 1) % MAX_BUFFERS;
        d->fifo_len--;
        d->bufs[i].queued = FALSE;
        if (d->memory == V4L2_MEMORY_MMAP) {
            /* The buffer's file, which the program has mapped. */
            memcpy(d->bufs[i].map, frame_data(d, d->seq), d->frame_size);
        } else {
            /* Point m.userptr at the client's buffer and resolve it: umockdev copies
             * it in, and writes our copy back to the client when completing. */
            b->m.userptr = d->bufs[i].userptr;
            mem = umockdev_ioctl_data_resolve(data, offsetof(struct v4l2_buffer, m.userptr),
                                              d->frame_size, NULL);
            if (!mem)
                return EFAULT;
            memcpy(mem->data, frame_data(d, d->seq), d->frame_size);
            g_object_unref(mem);
        }
        fill_buf(d, b, i);
        b->flags |= V4L2_BUF_FLAG_DONE;
        b->bytesused = d->frame_size;
        b->sequence = (guint32) d->seq;
        *when = due_time(d, d->seq++);
        b->timestamp.tv_sec = *when / G_USEC_PER_SEC;
        b->timestamp.tv_usec = *when % G_USEC_PER_SEC;
        return 0;
    }
    case VIDIOC_STREAMON:
    case VIDIOC_STREAMOFF:
        if (*(int *) p != CAPTURE)
            return EINVAL;
        if (busy(d, c))
            return EBUSY;
        if (req == VIDIOC_STREAMOFF) {
            stop_stream(d);
        } else if (!d->streaming) {
            if (d->n_bufs == 0)
                return EINVAL;
            d->streaming = TRUE;
            d->t0 = g_get_monotonic_time();
            d->seq = 0;
        }
        return 0;
    case VIDIOC_QUERYCTRL:      /* no controls */
    case VIDIOC_QUERY_EXT_CTRL:
    case VIDIOC_QUERYMENU:
    case VIDIOC_G_CTRL:
    case VIDIOC_S_CTRL:
    case VIDIOC_G_EXT_CTRLS:
    case VIDIOC_S_EXT_CTRLS:
    case VIDIOC_TRY_EXT_CTRLS:
        return EINVAL;
    default:
        return ENOTTY;
    }
}

static gboolean on_ioctl(UMockdevIoctlBase *base, UMockdevIoctlClient *c, gpointer user)
{
    VDev *d = user;
    gulong req = umockdev_ioctl_client_get_request(c);
    UMockdevIoctlData *data = NULL;
    gint64 when = 0;
    int err = ENOTTY;

    (void) base;
    check_owner(d, c);
    /* Each V4L2 ioctl passes a pointer to its struct: get a local copy of it,
     * which umockdev writes back to the client when completing. */
    if (_IOC_TYPE(req) == 'V' && _IOC_SIZE(req) > 0) {
        data = umockdev_ioctl_data_resolve(umockdev_ioctl_client_get_arg(c), 0,
                                           _IOC_SIZE(req), NULL);
        err = data ? v4l2_ioctl(d, c, req, data, &when) : EFAULT;
    }
    complete_at(d, c, 0, err, when);
    g_clear_object(&data);
    return TRUE;
}

/* read(): the next frame, or the rest of the current one after a short read. */
static gboolean on_read(UMockdevIoctlBase *base, UMockdevIoctlClient *c, gpointer user)
{
    VDev *d = user;
    UMockdevIoctlData *buf = umockdev_ioctl_client_get_arg(c);  /* the client's buffer */
    guint64 k;
    gsize n;

    (void) base;
    check_owner(d, c);
    if (busy(d, c) || d->n_bufs > 0) {
        complete_at(d, c, 0, EBUSY, 0);
        return TRUE;
    }
    if (!d->reading) {
        d->reading = TRUE;
        if (!d->owner)
            d->owner = g_object_ref(c);
        d->t0 = g_get_monotonic_time();
        d->seq = 0;
        d->read_off = 0;
    }
    k = d->seq;
    n = MIN((gsize) buf->data_len, d->frame_size - d->read_off);
    memcpy(buf->data, frame_data(d, k) + d->read_off, n);
    d->read_off += n;
    if (d->read_off == d->frame_size) {
        d->read_off = 0;
        d->seq++;
    }
    complete_at(d, c, (glong) n, 0, due_time(d, k));
    return TRUE;
}

static gboolean on_write(UMockdevIoctlBase *base, UMockdevIoctlClient *c, gpointer user)
{
    (void) base;
    complete_at(user, c, 0, EINVAL, 0);     /* a capture device cannot be written */
    return TRUE;
}

/* ---- evdev ioctls at any size (-x) ------------------------------------------- */

typedef struct {
    char *node;
    GBytes *answers[0x40];      /* by _IOC_NR; NULL where the device has none */
} EvdevAnswers;

static GPtrArray *evdev_nodes;  /* EvdevAnswers *, fixed after setup */

/* Whether the request number is one of the variable-size reads the kernel truncates. */
static gboolean is_any_size(guint nr)
{
    return (nr >= 0x06 && nr <= 0x09) || (nr >= 0x18 && nr <= 0x1b) || (nr >= 0x20 && nr <= 0x3f);
}

static gboolean on_evdev_ioctl(UMockdevIoctlClient *c, gpointer user)
{
    EvdevAnswers *e = user;
    gulong req = umockdev_ioctl_client_get_request(c);
    guint nr = _IOC_NR(req), size = _IOC_SIZE(req);
    UMockdevIoctlData *data;
    gsize length;
    const guint8 *answer;

    if (_IOC_TYPE(req) != 'E' || _IOC_DIR(req) != _IOC_READ || !is_any_size(nr))
        return FALSE;           /* the -i recording answers it */
    if (!e->answers[nr]) {
        /* No such string: ENOENT; no such event type (or state): EINVAL. */
        umockdev_ioctl_client_complete(c, -1, nr <= 0x08 ? ENOENT : EINVAL);
        return TRUE;
    }
    answer = g_bytes_get_data(e->answers[nr], &length);
    length = MIN(length, size);
    data = length ? umockdev_ioctl_data_resolve(umockdev_ioctl_client_get_arg(c), 0, length, NULL) : NULL;
    if (length && !data) {
        umockdev_ioctl_client_complete(c, -1, EFAULT);
        return TRUE;
    }
    if (data) {
        memcpy(data->data, answer, length);
        g_object_unref(data);
    }
    umockdev_ioctl_client_complete(c, (glong) length, 0);
    return TRUE;
}

/* Every handler's new client: one of a -x node gets its answers first. */
static gboolean on_client_connected(GSignalInvocationHint *hint, guint n, const GValue *values, gpointer user)
{
    UMockdevIoctlClient *c;
    const char *node;

    (void) hint;
    (void) user;
    if (n < 2 || !evdev_nodes)
        return TRUE;
    c = g_value_get_object(&values[1]);
    node = c ? umockdev_ioctl_client_get_devnode(c) : NULL;
    for (guint i = 0; node && i < evdev_nodes->len; i++) {
        EvdevAnswers *e = evdev_nodes->pdata[i];
        if (strcmp(e->node, node) == 0)
            g_signal_connect(c, "handle-ioctl", G_CALLBACK(on_evdev_ioctl), e);
    }
    return TRUE;                /* stay hooked */
}

/* ---- setup ------------------------------------------------------------------ */

static gboolean G_GNUC_PRINTF(2, 3) fail(GError **error, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    g_propagate_error(error, g_error_new_valist(G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, fmt, ap));
    va_end(ap);
    return FALSE;
}

/* A decimal number, or 0 if it is not one. */
static guint32 parse_uint(const char *s)
{
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    return *s && !*end && v <= G_MAXUINT32 ? (guint32) v : 0;
}

/* -v NODE=FRAMES:W:H:FOURCC:FPS: add the sysfs device and attach the handler. */
static gboolean add_video(UMockdevTestbed *tb, const char *spec, GError **error)
{
    g_autofree char *copy = g_strdup(spec), *desc = NULL, *base = NULL;
    char *eq = strchr(copy, '='), *field[4];
    const char *name, *digits;
    g_autoptr(UMockdevIoctlBase) handler = NULL;
    static GPtrArray *all;      /* the worker thread uses them until exit: never freed */
    VDev *d = g_new0(VDev, 1);
    gsize len = 0;
    guint f;

    g_ptr_array_add(all ? all : (all = g_ptr_array_new()), d);
    for (int i = 3; i >= 0; i--) {      /* split from the right: FRAMES may hold ':' */
        char *colon = strrchr(copy, ':');
        if (!eq || !colon || colon < eq)
            return fail(error, "-v wants NODE=FRAMES:WIDTH:HEIGHT:FOURCC:FPS, got %s", spec);
        *colon = '\0';
        field[i] = colon + 1;
    }
    *eq = '\0';
    d->node = g_strdup(copy);
    d->width = parse_uint(field[0]);
    d->height = parse_uint(field[1]);
    d->fps = parse_uint(field[3]);
    for (f = 0; f < G_N_ELEMENTS(formats) && strcmp(formats[f].fourcc, field[2]); f++)
        ;
    if (!g_str_has_prefix(d->node, "/dev/") || !d->width || !d->height || !d->fps ||
        f == G_N_ELEMENTS(formats))
        return fail(error, "NODE must be /dev/..., WIDTH, HEIGHT and FPS > 0, "
                    "FOURCC one of YUYV UYVY GREY RGB3");
    d->fourcc = v4l2_fourcc(field[2][0], field[2][1], field[2][2], field[2][3]);
    d->bpp = formats[f].bpp;
    d->fmt_name = formats[f].name;
    d->frame_size = (gsize) d->width * d->height * d->bpp;
    if (!g_file_get_contents(eq + 1, (char **) &d->frames, &len, error))
        return FALSE;
    d->n_frames = len / d->frame_size;
    if (d->n_frames == 0 || len % d->frame_size)
        return fail(error, "%s does not hold a whole number of frames", eq + 1);

    /* The minor number is the node's trailing number, as in /dev/videoN. */
    name = d->node + strlen("/dev/");
    for (digits = name + strlen(name); digits > name && g_ascii_isdigit(digits[-1]); digits--)
        ;
    d->minor = (unsigned) strtoul(digits, NULL, 10);
    d->bus = d->minor ? g_strdup_printf("hal-sim.%u", d->minor) : g_strdup("hal-sim");

    /* The sysfs device as the kernel has it; with "N:", umockdev makes a pty node. */
    base = g_path_get_basename(name);
    desc = g_strdup_printf("P: /devices/platform/%s/video4linux/%s\nN: %s\n"
                           "E: DEVNAME=%s\nE: SUBSYSTEM=video4linux\nE: MAJOR=81\nE: MINOR=%u\n"
                           "A: dev=81:%u\\n\nA: index=0\\n\nA: name=HAL Sim Camera %u\\n\n\n"
                           "P: /devices/platform/%s\nE: DRIVER=hal-sim\n"
                           "E: SUBSYSTEM=platform\nE: MODALIAS=platform:hal-sim\n",
                           d->bus, base, name, d->node, d->minor, d->minor, d->minor, d->bus);
    if (!umockdev_testbed_add_from_string(tb, desc, error))
        return FALSE;

    /* MMAP buffers: files under the testbed, found by hal's preload from the node's device number. */
    {
        g_autofree char *root = umockdev_testbed_get_root_dir(tb);
        long page = sysconf(_SC_PAGESIZE);
        d->buffer_dir = g_strdup_printf("%s/hal-v4l2/81:%u", root, d->minor);
        d->buffer_size = (d->frame_size + (gsize) page - 1) / (gsize) page * (gsize) page;
        d->memory = V4L2_MEMORY_USERPTR;
    }

    /* Our own fd on the pty's slave side, to flush the readiness byte with. */
    d->master_fd = umockdev_testbed_get_dev_fd(tb, d->node);
    d->slave_fd = d->master_fd < 0 ? -1 :
                  open(ptsname(d->master_fd), O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (d->slave_fd < 0)
        return fail(error, "%s: umockdev made no pty for it", d->node);
    update_ready(d);

    handler = umockdev_ioctl_base_new();
    g_signal_connect(handler, "handle-ioctl", G_CALLBACK(on_ioctl), d);
    g_signal_connect(handler, "handle-read", G_CALLBACK(on_read), d);
    g_signal_connect(handler, "handle-write", G_CALLBACK(on_write), d);
    return umockdev_testbed_attach_ioctl(tb, d->node, handler, error);
}

/* Split NODE=FILE and call one of umockdev's load functions. */
static gboolean load(UMockdevTestbed *tb, const char *spec, GError **error,
                     gboolean (*fn)(UMockdevTestbed *, const gchar *, const gchar *, GError **))
{
    g_auto(GStrv) parts = g_strsplit(spec, "=", 2);
    if (!parts[0] || !parts[1])
        return fail(error, "expected NODE=FILE, got %s", spec);
    return fn(tb, parts[0], parts[1], error);
}

/* -l NODE=FIFO: copy what arrives in the FIFO into the node's pty, from the main loop. The bytes written into the
 * pty so far are kept, as a little-endian 64-bit count, in FIFO.count: with what it wrote into the FIFO and what is
 * left unread in the node, hal exec tells what the program read. */
typedef struct { int from, to, count; guint64 written; } Relay;

static gboolean relay_cb(gint fd, GIOCondition condition, gpointer user)
{
    Relay *relay = user;
    char buffer[4096];
    ssize_t count;

    (void) fd;
    (void) condition;
    while ((count = read(relay->from, buffer, sizeof buffer)) > 0) {
        for (ssize_t done = 0; done < count;) {
            ssize_t written = write(relay->to, buffer + done, (size_t) (count - done));
            if (written > 0) {
                done += written;
                relay->written += (guint64) written;
                guint64 little = GUINT64_TO_LE(relay->written);
                ssize_t kept = pwrite(relay->count, &little, sizeof little, 0);
                (void) kept;    /* a count that cannot be kept costs only the figure of what was read */
            } else if (written < 0 && errno != EINTR && errno != EAGAIN) {
                return G_SOURCE_CONTINUE;   /* the node is gone: drop the rest */
            } else if (written < 0 && errno == EAGAIN) {
                g_usleep(1000);             /* the reader is behind: wait for room */
            }
        }
    }
    return G_SOURCE_CONTINUE;
}

static gboolean add_live(UMockdevTestbed *tb, const char *spec, GError **error)
{
    g_auto(GStrv) parts = g_strsplit(spec, "=", 2);
    Relay *relay;
    int to;

    if (!parts[0] || !parts[1])
        return fail(error, "expected NODE=FIFO, got %s", spec);
    to = umockdev_testbed_get_dev_fd(tb, parts[0]);
    if (to < 0)
        return fail(error, "%s: umockdev made no pty for it", parts[0]);
    relay = g_new0(Relay, 1);   /* used until exit: never freed */
    relay->to = to;
    {
        g_autofree char *count = g_strconcat(parts[1], ".count", NULL);
        guint64 zero = 0;
        relay->count = open(count, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (relay->count < 0 || pwrite(relay->count, &zero, sizeof zero, 0) != (ssize_t) sizeof zero)
            return fail(error, "cannot write %s: %s", count, g_strerror(errno));
    }
    /* Read and write, so that the open does not wait for a writer, and a writer closing is no end. */
    relay->from = open(parts[1], O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (relay->from < 0)
        return fail(error, "cannot open %s: %s", parts[1], g_strerror(errno));
    g_unix_fd_add(relay->from, G_IO_IN, relay_cb, relay);
    return TRUE;
}

/* -x NODE=FILE: the node's variable-size evdev answers ("NR HEX" lines). */
static gboolean add_evdev_answers(UMockdevTestbed *tb, const char *spec, GError **error)
{
    g_auto(GStrv) parts = g_strsplit(spec, "=", 2), lines = NULL;
    g_autofree char *text = NULL;
    EvdevAnswers *e;

    (void) tb;
    if (!parts[0] || !parts[1])
        return fail(error, "expected NODE=FILE, got %s", spec);
    if (!g_file_get_contents(parts[1], &text, NULL, error))
        return FALSE;
    e = g_new0(EvdevAnswers, 1);    /* used until exit: never freed */
    e->node = g_strdup(parts[0]);
    lines = g_strsplit(text, "\n", -1);
    for (guint l = 0; lines[l]; l++) {
        char *end, *hex;
        gulong nr;
        gsize n;
        guint8 *bytes;

        if (!*lines[l])
            continue;
        nr = strtoul(lines[l], &end, 16);
        hex = *end == ' ' ? end + 1 : NULL;
        n = hex ? strlen(hex) : 0;
        if (end == lines[l] || !hex || n % 2 || nr >= G_N_ELEMENTS(e->answers) || !is_any_size((guint) nr))
            return fail(error, "%s:%u: expected \"NR HEX\" with NR one of evdev's variable-size reads", parts[1], l + 1);
        bytes = g_malloc(n / 2 + 1);
        for (gsize i = 0; i < n / 2; i++) {
            int high = g_ascii_xdigit_value(hex[2 * i]), low = g_ascii_xdigit_value(hex[2 * i + 1]);
            if (high < 0 || low < 0) {
                g_free(bytes);
                return fail(error, "%s:%u: byte %zu is not hex", parts[1], l + 1, i);
            }
            bytes[i] = (guint8) (high << 4 | low);
        }
        e->answers[nr] = g_bytes_new_take(bytes, n / 2);
    }
    if (!evdev_nodes) {
        evdev_nodes = g_ptr_array_new();
        g_signal_add_emission_hook(g_signal_lookup("client-connected", UMOCKDEV_TYPE_IOCTL_BASE), 0,
                                   on_client_connected, NULL, NULL);
    }
    g_ptr_array_add(evdev_nodes, e);
    return TRUE;
}

/* Removes the directory at `path` and everything in it, not following links. */
static int remove_entry(const char *path, const struct stat *status, int type, struct FTW *walk)
{
    (void) status;
    (void) type;
    (void) walk;
    remove(path);
    return 0;
}

static void remove_tree(const char *path)
{
    nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static gboolean quit_cb(gpointer loop)
{
    g_main_loop_quit(loop);
    return G_SOURCE_CONTINUE;
}

int main(int argc, char **argv)
{
    static const char opts[] = "dviselx";     /* also the order they are applied in */
    GPtrArray *specs[sizeof opts - 1];
    g_autoptr(GError) error = NULL;
    g_autofree char *root = NULL, *part = NULL;
    UMockdevTestbed *tb;
    GMainLoop *loop;

    if (argc < 2 || argc % 2 != 0) {
        fprintf(stderr, "usage: %s READY_FILE [-d FILE.umockdev] [-i NODE=FILE.ioctl] "
                "[-s NODE=FILE.script] [-e NODE=FILE.events] "
                "[-v NODE=FRAMES:WIDTH:HEIGHT:FOURCC:FPS] [-l NODE=FIFO] [-x NODE=FILE.answers]...\n", argv[0]);
        return 2;
    }
    for (guint o = 0; o < G_N_ELEMENTS(specs); o++)
        specs[o] = g_ptr_array_new();
    for (int a = 2; a < argc; a += 2) {
        const char *o = argv[a][0] == '-' && argv[a][1] && !argv[a][2] ?
                        strchr(opts, argv[a][1]) : NULL;
        if (!o) {
            fprintf(stderr, "hal-testbed: unknown option %s\n", argv[a]);
            return 2;
        }
        g_ptr_array_add(specs[o - opts], argv[a + 1]);
    }

    /* A launcher's blocked signals (Foundation's Process spawns with its thread's mask) must not keep SIGTERM from
     * ending the testbed: unblock all before umockdev's threads inherit the mask. */
    sigset_t none;
    sigemptyset(&none);
    pthread_sigmask(SIG_SETMASK, &none, NULL);
    tb = umockdev_testbed_new();
    for (guint o = 0; o < G_N_ELEMENTS(specs) && !error; o++) {
        for (guint i = 0; i < specs[o]->len && !error; i++) {
            const char *spec = specs[o]->pdata[i];
            switch (opts[o]) {
            case 'd': umockdev_testbed_add_from_file(tb, spec, &error); break;
            case 'v': add_video(tb, spec, &error); break;
            case 'i': load(tb, spec, &error, umockdev_testbed_load_ioctl); break;
            case 's': load(tb, spec, &error, umockdev_testbed_load_script); break;
            case 'e': load(tb, spec, &error, umockdev_testbed_load_evemu_events); break;
            case 'l': add_live(tb, spec, &error); break;
            case 'x': add_evdev_answers(tb, spec, &error); break;
            }
            if (error)
                fprintf(stderr, "hal-testbed: -%c %s: %s\n", opts[o], spec, error->message);
        }
    }
    if (error) {
        g_object_unref(tb);
        return 1;
    }

    root = umockdev_testbed_get_root_dir(tb);
    part = g_strconcat(argv[1], ".part", NULL);
    if (!g_file_set_contents(part, root, -1, &error) || rename(part, argv[1]) != 0) {
        fprintf(stderr, "hal-testbed: cannot write %s: %s\n", argv[1],
                error ? error->message : g_strerror(errno));
        g_object_unref(tb);
        return 1;
    }

    loop = g_main_loop_new(NULL, FALSE);
    g_unix_signal_add(SIGTERM, quit_cb, loop);
    g_unix_signal_add(SIGINT, quit_cb, loop);
    g_main_loop_run(loop);
    /* The testbed's directory goes, and the process ends at once: disposing the testbed would first wait for every
     * script thread to reach the end of its script, which for a long trace is its whole length. */
    remove_tree(root);
    _exit(0);
}
