// V4L2 for Swift: the VIDIOC_* request codes are function-like macros and ioctl(2) is variadic, so Swift
// imports neither. This header exports the codes as constants and a non-variadic ioctl wrapper.
#ifndef HAL_V4L2_H
#define HAL_V4L2_H

#include <linux/videodev2.h>
#include <stddef.h>

static const unsigned long HAL_VIDIOC_QUERYCAP = VIDIOC_QUERYCAP;
static const unsigned long HAL_VIDIOC_ENUM_FMT = VIDIOC_ENUM_FMT;
static const unsigned long HAL_VIDIOC_G_FMT = VIDIOC_G_FMT;
static const unsigned long HAL_VIDIOC_S_FMT = VIDIOC_S_FMT;
static const unsigned long HAL_VIDIOC_ENUM_FRAMESIZES = VIDIOC_ENUM_FRAMESIZES;
static const unsigned long HAL_VIDIOC_ENUM_FRAMEINTERVALS = VIDIOC_ENUM_FRAMEINTERVALS;
static const unsigned long HAL_VIDIOC_G_PARM = VIDIOC_G_PARM;
static const unsigned long HAL_VIDIOC_S_PARM = VIDIOC_S_PARM;
static const unsigned long HAL_VIDIOC_REQBUFS = VIDIOC_REQBUFS;
static const unsigned long HAL_VIDIOC_QUERYBUF = VIDIOC_QUERYBUF;
static const unsigned long HAL_VIDIOC_QBUF = VIDIOC_QBUF;
static const unsigned long HAL_VIDIOC_DQBUF = VIDIOC_DQBUF;
static const unsigned long HAL_VIDIOC_STREAMON = VIDIOC_STREAMON;
static const unsigned long HAL_VIDIOC_STREAMOFF = VIDIOC_STREAMOFF;
static const unsigned long HAL_VIDIOC_QUERYCTRL = VIDIOC_QUERYCTRL;
static const unsigned long HAL_VIDIOC_G_CTRL = VIDIOC_G_CTRL;
static const unsigned long HAL_VIDIOC_S_CTRL = VIDIOC_S_CTRL;

/// ioctl(2), retried on EINTR. Returns 0, or the errno of the failure.
int hal_v4l2_ioctl(int fd, unsigned long request, void *argument);

/// mmap(2) of a driver buffer, read and write, shared. Returns NULL and sets errno on failure.
void *hal_v4l2_map(int fd, size_t length, long offset);

#endif
