// A small C API over OpenCV 4 (Debian's libopencv-dev) for the Camera module: images, pixel-format
// conversion, JPEG/PNG codecs, video files, the Haar face detector, and an ONNX classifier.
// Every function catches OpenCV's exceptions; failures return NULL or a negative status, and
// hal_cv_last_error() says why (thread-local).
#ifndef HAL_OPENCV_H
#define HAL_OPENCV_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// An 8-bit image with 1 (gray) or 3 (BGR) channels, owned by OpenCV.
typedef struct hal_cv_image hal_cv_image;
typedef struct hal_cv_cascade hal_cv_cascade;
typedef struct hal_cv_net hal_cv_net;
typedef struct hal_cv_video hal_cv_video;

/// Pixel layouts the converter takes.
enum hal_cv_pixel_format {
    HAL_CV_GREY = 0,
    HAL_CV_YUYV = 1,
    HAL_CV_NV12 = 2,
    HAL_CV_RGB24 = 3,
    HAL_CV_BGR24 = 4,
    HAL_CV_MJPEG = 5,  // a JPEG image per frame: decoded
    HAL_CV_PNG = 6,
};

/// What the converter produces.
enum hal_cv_target { HAL_CV_TO_GRAY = 0, HAL_CV_TO_BGR = 1 };

/// Why the last call on this thread failed.
const char *hal_cv_last_error(void);

/// Converts one frame to gray or BGR. `data` is `length` bytes with rows `stride` bytes apart
/// (ignored for MJPEG and PNG). Returns NULL on failure.
hal_cv_image *hal_cv_convert(const uint8_t *data, size_t length, int width, int height, int stride,
                             int format, int target);
/// The image in gray: OpenCV's BGR-to-gray weights for a colour image, a copy for a gray one.
hal_cv_image *hal_cv_image_gray(const hal_cv_image *image);
/// Reads an image file (any format OpenCV decodes) as gray or BGR.
hal_cv_image *hal_cv_image_read(const char *path, int target);
/// Writes an image file; the extension picks the codec. Returns 0 or -1.
int hal_cv_image_write(const hal_cv_image *image, const char *path);
/// Encodes an image as ".jpg" or ".png" into a buffer that hal_cv_free_bytes releases.
int hal_cv_image_encode(const hal_cv_image *image, const char *extension, uint8_t **bytes, size_t *length);
void hal_cv_free_bytes(uint8_t *bytes);
/// An image from pixels (copied): `channels` 1 (gray) or 3 (BGR).
hal_cv_image *hal_cv_image_create(const uint8_t *pixels, int width, int height, int channels, int stride);
int hal_cv_image_width(const hal_cv_image *image);
int hal_cv_image_height(const hal_cv_image *image);
int hal_cv_image_channels(const hal_cv_image *image);
size_t hal_cv_image_stride(const hal_cv_image *image);
const uint8_t *hal_cv_image_pixels(const hal_cv_image *image);
void hal_cv_image_free(hal_cv_image *image);

/// Opens a video file OpenCV can read. NULL when it cannot.
hal_cv_video *hal_cv_video_open(const char *path);
/// The next frame as BGR, or NULL at the end.
hal_cv_image *hal_cv_video_read(hal_cv_video *video);
/// Moves past the next frame without converting or copying it (a seek's skipped frames): 1, or 0 at the end.
int hal_cv_video_grab(hal_cv_video *video);
double hal_cv_video_fps(const hal_cv_video *video);
/// The frame count the container states (0 when it states none; it may be more than the frames there are).
long hal_cv_video_frame_count(const hal_cv_video *video);
void hal_cv_video_close(hal_cv_video *video);

typedef struct hal_cv_video_writer hal_cv_video_writer;
/// Opens a Motion-JPEG AVI file for writing (OpenCV's own writer, no codec library needed).
hal_cv_video_writer *hal_cv_video_writer_open(const char *path, double fps, int width, int height);
/// Appends a BGR image of the writer's size. Returns 0 or -1.
int hal_cv_video_writer_write(hal_cv_video_writer *writer, const hal_cv_image *image);
void hal_cv_video_writer_close(hal_cv_video_writer *writer);

/// Loads a Haar cascade (OpenCV's XML).
hal_cv_cascade *hal_cv_cascade_load(const char *path);
/// Detects faces in a gray image: writes up to `capacity` boxes as x, y, width, height (4 ints each), in
/// the image's pixels; returns how many were found (possibly more than written), or -1. With `downscale`
/// above 1 the image is first shrunk by that factor (area interpolation) and `min_size` with it.
int hal_cv_detect_faces(hal_cv_cascade *cascade, const hal_cv_image *gray, double scale_factor, int min_neighbors,
                        int min_size, int downscale, int *boxes, int capacity);
/// Detects faces inside an area of a gray image (clipped to it), of `min_size` to `max_size` pixels, at full
/// resolution: boxes come back in the whole image's pixels. Returns how many were found, or -1.
int hal_cv_detect_faces_in_area(hal_cv_cascade *cascade, const hal_cv_image *gray, int x, int y, int width, int height,
                             double scale_factor, int min_neighbors, int min_size, int max_size, int *boxes, int capacity);
void hal_cv_cascade_free(hal_cv_cascade *cascade);

/// fer's preprocessing of one face: pad the gray image by 40 px with the mean of its bottom two rows,
/// make the box square, grow it by `offset` px, crop, resize bilinearly to 64x64 and scale to [-1, 1].
/// Writes 4096 floats. Returns 0 or -1.
int hal_cv_fer_face(const hal_cv_image *gray, int x, int y, int width, int height, int offset, float *out);

/// Loads an ONNX network with one input and one output.
hal_cv_net *hal_cv_net_load(const char *onnx_path);
/// Runs the network on a 1x1x64x64 input; writes `count` outputs. Returns 0 or -1.
int hal_cv_net_run(hal_cv_net *net, const float *input, int input_size, float *output, int count);
void hal_cv_net_free(hal_cv_net *net);

#ifdef __cplusplus
}
#endif
#endif
