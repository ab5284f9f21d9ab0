#include "hal_opencv.h"

#include <opencv2/core.hpp>
#include <opencv2/dnn.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/objdetect.hpp>
#include <opencv2/videoio.hpp>

#include <libyuv/convert_argb.h>
#include <libyuv/convert_from_argb.h>
#include <libyuv/planar_functions.h>

#include <cstring>
#include <exception>
#include <string>
#include <vector>

struct hal_cv_image { cv::Mat mat; };
struct hal_cv_cascade { cv::CascadeClassifier classifier; };
struct hal_cv_net { cv::dnn::Net net; };
struct hal_cv_video { cv::VideoCapture capture; };
struct hal_cv_video_writer { cv::VideoWriter writer; cv::Size size; };

static thread_local std::string last_error;

static void fail(const std::string &message) { last_error = message; }

const char *hal_cv_last_error(void) { return last_error.c_str(); }

template <typename Body> static auto guarded(Body body, decltype(body()) failure) -> decltype(body()) {
    try {
        return body();
    } catch (const cv::Exception &error) {
        fail(error.what());
    } catch (const std::exception &error) {
        fail(error.what());
    }
    return failure;
}

static hal_cv_image *wrap(cv::Mat mat) {
    auto *image = new hal_cv_image;
    image->mat = std::move(mat);
    return image;
}

hal_cv_image *hal_cv_convert(const uint8_t *data, size_t length, int width, int height, int stride, int format,
                             int target) {
    return guarded([&]() -> hal_cv_image * {
        bool gray = target == HAL_CV_TO_GRAY;
        if (format == HAL_CV_MJPEG || format == HAL_CV_PNG) {
            cv::Mat encoded(1, (int)length, CV_8UC1, const_cast<uint8_t *>(data));
            cv::Mat decoded = cv::imdecode(encoded, gray ? cv::IMREAD_GRAYSCALE : cv::IMREAD_COLOR);
            if (decoded.empty()) { fail("the compressed frame does not decode"); return nullptr; }
            return wrap(decoded);
        }
        int rows = format == HAL_CV_NV12 ? height * 3 / 2 : height;
        if (width <= 0 || height <= 0 || stride <= 0 || (size_t)stride * (size_t)rows > length) {
            fail("the frame is smaller than its width, height and stride say");
            return nullptr;
        }
        cv::Mat out;
        switch (format) {
        case HAL_CV_GREY: {
            cv::Mat in(height, width, CV_8UC1, const_cast<uint8_t *>(data), stride);
            if (gray) out = in.clone(); else cv::cvtColor(in, out, cv::COLOR_GRAY2BGR);
            break;
        }
        // YUV to BGR and YUYV to gray go through libyuv's SIMD rows: OpenCV 4.6's cvtColor does them a pixel at a
        // time (docs/performance.md). Gray is the Y samples either way, so it is the same as OpenCV's; BGR is
        // BT.601 limited range as in OpenCV, with libyuv's rounding (docs/camera.md).
        case HAL_CV_YUYV: {
            if (width % 2 != 0) { fail("a YUYV frame has an even width"); return nullptr; }
            if (gray) {
                out.create(height, width, CV_8UC1);
                libyuv::YUY2ToY(data, stride, out.data, (int)out.step, width, height);
            } else {
                // A row at a time through a small ARGB row, which stays in the cache, then packed to BGR.
                out.create(height, width, CV_8UC3);
                std::vector<uint8_t> row((size_t)width * 4);
                for (int y = 0; y < height; y++) {
                    libyuv::YUY2ToARGB(data + (size_t)y * stride, stride, row.data(), width * 4, width, 1);
                    libyuv::ARGBToRGB24(row.data(), width * 4, out.ptr(y), (int)out.step, width, 1);
                }
            }
            break;
        }
        case HAL_CV_NV12: {
            if (width % 2 != 0 || height % 2 != 0) { fail("an NV12 frame has an even width and height"); return nullptr; }
            if (gray) {
                cv::Mat in(height, width, CV_8UC1, const_cast<uint8_t *>(data), stride);
                out = in.clone();
            } else {
                out.create(height, width, CV_8UC3);
                libyuv::NV12ToRGB24(data, stride, data + (size_t)stride * height, stride, out.data, (int)out.step, width, height);
            }
            break;
        }
        case HAL_CV_RGB24: {
            cv::Mat in(height, width, CV_8UC3, const_cast<uint8_t *>(data), stride);
            cv::cvtColor(in, out, gray ? cv::COLOR_RGB2GRAY : cv::COLOR_RGB2BGR);
            break;
        }
        case HAL_CV_BGR24: {
            cv::Mat in(height, width, CV_8UC3, const_cast<uint8_t *>(data), stride);
            if (gray) cv::cvtColor(in, out, cv::COLOR_BGR2GRAY); else out = in.clone();
            break;
        }
        default:
            fail("unknown pixel format");
            return nullptr;
        }
        return wrap(out);
    }, nullptr);
}

hal_cv_image *hal_cv_image_gray(const hal_cv_image *image) {
    return guarded([&]() -> hal_cv_image * {
        cv::Mat gray;
        if (image->mat.channels() == 3) cv::cvtColor(image->mat, gray, cv::COLOR_BGR2GRAY); else gray = image->mat.clone();
        return wrap(gray);
    }, nullptr);
}

hal_cv_image *hal_cv_image_read(const char *path, int target) {
    return guarded([&]() -> hal_cv_image * {
        cv::Mat mat = cv::imread(path, target == HAL_CV_TO_GRAY ? cv::IMREAD_GRAYSCALE : cv::IMREAD_COLOR);
        if (mat.empty()) { fail(std::string("cannot read an image from ") + path); return nullptr; }
        return wrap(mat);
    }, nullptr);
}

int hal_cv_image_write(const hal_cv_image *image, const char *path) {
    return guarded([&]() -> int {
        if (!cv::imwrite(path, image->mat)) { fail(std::string("cannot write ") + path); return -1; }
        return 0;
    }, -1);
}

int hal_cv_image_encode(const hal_cv_image *image, const char *extension, uint8_t **bytes, size_t *length) {
    return guarded([&]() -> int {
        std::vector<uint8_t> buffer;
        if (!cv::imencode(extension, image->mat, buffer)) { fail(std::string("cannot encode as ") + extension); return -1; }
        *bytes = static_cast<uint8_t *>(std::malloc(buffer.size()));
        std::memcpy(*bytes, buffer.data(), buffer.size());
        *length = buffer.size();
        return 0;
    }, -1);
}

void hal_cv_free_bytes(uint8_t *bytes) { std::free(bytes); }

hal_cv_image *hal_cv_image_create(const uint8_t *pixels, int width, int height, int channels, int stride) {
    return guarded([&]() -> hal_cv_image * {
        cv::Mat in(height, width, channels == 1 ? CV_8UC1 : CV_8UC3, const_cast<uint8_t *>(pixels), stride);
        return wrap(in.clone());
    }, nullptr);
}

int hal_cv_image_width(const hal_cv_image *image) { return image->mat.cols; }
int hal_cv_image_height(const hal_cv_image *image) { return image->mat.rows; }
int hal_cv_image_channels(const hal_cv_image *image) { return image->mat.channels(); }
size_t hal_cv_image_stride(const hal_cv_image *image) { return image->mat.step[0]; }
const uint8_t *hal_cv_image_pixels(const hal_cv_image *image) { return image->mat.data; }
void hal_cv_image_free(hal_cv_image *image) { delete image; }

hal_cv_video *hal_cv_video_open(const char *path) {
    return guarded([&]() -> hal_cv_video * {
        auto *video = new hal_cv_video;
        // FFmpeg only: the other backends OpenCV would try next (GStreamer, an image sequence) fill stderr with
        // their own failures for a file that is not a video.
        if (!video->capture.open(path, cv::CAP_FFMPEG)) {
            delete video;
            fail(std::string("not a video FFmpeg can decode: ") + path);
            return nullptr;
        }
        return video;
    }, nullptr);
}

hal_cv_image *hal_cv_video_read(hal_cv_video *video) {
    return guarded([&]() -> hal_cv_image * {
        cv::Mat frame;
        if (!video->capture.read(frame) || frame.empty()) return nullptr;
        return wrap(frame);
    }, nullptr);
}

int hal_cv_video_grab(hal_cv_video *video) {
    return guarded([&]() -> int { return video->capture.grab() ? 1 : 0; }, 0);
}

double hal_cv_video_fps(const hal_cv_video *video) { return video->capture.get(cv::CAP_PROP_FPS); }
long hal_cv_video_frame_count(const hal_cv_video *video) { return (long)video->capture.get(cv::CAP_PROP_FRAME_COUNT); }
void hal_cv_video_close(hal_cv_video *video) { delete video; }

hal_cv_video_writer *hal_cv_video_writer_open(const char *path, double fps, int width, int height) {
    return guarded([&]() -> hal_cv_video_writer * {
        auto *writer = new hal_cv_video_writer;
        writer->size = cv::Size(width, height);
        if (!writer->writer.open(path, cv::CAP_OPENCV_MJPEG, cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), fps, writer->size, true)) {
            delete writer;
            fail(std::string("cannot write the video ") + path);
            return nullptr;
        }
        return writer;
    }, nullptr);
}

int hal_cv_video_writer_write(hal_cv_video_writer *writer, const hal_cv_image *image) {
    return guarded([&]() -> int {
        if (image->mat.size() != writer->size || image->mat.type() != CV_8UC3) { fail("the video takes BGR images of its size"); return -1; }
        writer->writer.write(image->mat);
        return 0;
    }, -1);
}

void hal_cv_video_writer_close(hal_cv_video_writer *writer) { delete writer; }

hal_cv_cascade *hal_cv_cascade_load(const char *path) {
    return guarded([&]() -> hal_cv_cascade * {
        auto *cascade = new hal_cv_cascade;
        if (!cascade->classifier.load(path)) {
            delete cascade;
            fail(std::string("cannot load the Haar cascade ") + path);
            return nullptr;
        }
        return cascade;
    }, nullptr);
}

/// Writes up to `capacity` boxes as x, y, width, height, scaled by `factor` and moved by (dx, dy); returns how many
/// there were in all.
static int write_boxes(const std::vector<cv::Rect> &faces, int dx, int dy, int factor, int *boxes, int capacity) {
    for (int i = 0; i < (int)faces.size() && i < capacity; i++) {
        boxes[4 * i] = faces[i].x * factor + dx;
        boxes[4 * i + 1] = faces[i].y * factor + dy;
        boxes[4 * i + 2] = faces[i].width * factor;
        boxes[4 * i + 3] = faces[i].height * factor;
    }
    return (int)faces.size();
}

int hal_cv_detect_faces(hal_cv_cascade *cascade, const hal_cv_image *gray, double scale_factor, int min_neighbors,
                        int min_size, int downscale, int *boxes, int capacity) {
    return guarded([&]() -> int {
        std::vector<cv::Rect> faces;
        const cv::Mat *image = &gray->mat;
        cv::Mat small;
        int factor = downscale > 1 ? downscale : 1;
        if (factor > 1) {
            cv::resize(gray->mat, small, cv::Size(gray->mat.cols / factor, gray->mat.rows / factor), 0, 0, cv::INTER_AREA);
            image = &small;
        }
        int size = std::max(1, min_size / factor);
        cascade->classifier.detectMultiScale(*image, faces, scale_factor, min_neighbors, cv::CASCADE_SCALE_IMAGE, cv::Size(size, size));
        return write_boxes(faces, 0, 0, factor, boxes, capacity);
    }, -1);
}

int hal_cv_detect_faces_in_area(hal_cv_cascade *cascade, const hal_cv_image *gray, int x, int y, int width, int height,
                             double scale_factor, int min_neighbors, int min_size, int max_size, int *boxes, int capacity) {
    return guarded([&]() -> int {
        cv::Rect area = cv::Rect(x, y, width, height) & cv::Rect(0, 0, gray->mat.cols, gray->mat.rows);
        if (area.width < min_size || area.height < min_size) return 0;
        std::vector<cv::Rect> faces;
        cascade->classifier.detectMultiScale(gray->mat(area), faces, scale_factor, min_neighbors, cv::CASCADE_SCALE_IMAGE,
                                             cv::Size(min_size, min_size), cv::Size(max_size, max_size));
        return write_boxes(faces, area.x, area.y, 1, boxes, capacity);
    }, -1);
}

void hal_cv_cascade_free(hal_cv_cascade *cascade) { delete cascade; }

int hal_cv_fer_face(const hal_cv_image *gray, int x, int y, int width, int height, int offset, float *out) {
    return guarded([&]() -> int {
        const int padding = 40;
        const cv::Mat &image = gray->mat;
        if (image.type() != CV_8UC1 || image.rows < 2) { fail("fer's preprocessing takes a gray image"); return -1; }
        double mean = cv::mean(image.rowRange(image.rows - 2, image.rows))[0];
        cv::Mat padded;
        cv::copyMakeBorder(image, padded, padding, padding, padding, padding, cv::BORDER_CONSTANT, cv::Scalar(mean));
        // Square the box by growing the shorter side (Python's floor division), then add the offsets.
        if (height > width) { int diff = height - width; x -= diff / 2; width += diff; }
        else if (width > height) { int diff = width - height; y -= diff / 2; height += diff; }
        int x1 = std::max(0, x - offset + padding), y1 = std::max(0, y - offset + padding);
        int x2 = std::min(padded.cols, x + width + offset + padding), y2 = std::min(padded.rows, y + height + offset + padding);
        if (x2 <= x1 || y2 <= y1) { fail("the face box is outside the image"); return -1; }
        cv::Mat face;
        cv::resize(padded(cv::Rect(x1, y1, x2 - x1, y2 - y1)), face, cv::Size(64, 64));
        for (int row = 0; row < 64; row++) {
            const uint8_t *pixels = face.ptr<uint8_t>(row);
            for (int column = 0; column < 64; column++) {
                float value = (float)pixels[column] / 255.0f;
                out[row * 64 + column] = (value - 0.5f) * 2.0f;
            }
        }
        return 0;
    }, -1);
}

hal_cv_net *hal_cv_net_load(const char *onnx_path) {
    return guarded([&]() -> hal_cv_net * {
        auto *net = new hal_cv_net;
        net->net = cv::dnn::readNetFromONNX(onnx_path);
        if (net->net.empty()) { delete net; fail(std::string("cannot load the network ") + onnx_path); return nullptr; }
        net->net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
        net->net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
        return net;
    }, nullptr);
}

int hal_cv_net_run(hal_cv_net *net, const float *input, int input_size, float *output, int count) {
    return guarded([&]() -> int {
        int shape[4] = {1, 1, input_size, input_size};
        cv::Mat blob(4, shape, CV_32F, const_cast<float *>(input));
        net->net.setInput(blob);
        cv::Mat result = net->net.forward();
        if ((int)result.total() < count) { fail("the network gives fewer outputs than expected"); return -1; }
        std::memcpy(output, result.ptr<float>(), sizeof(float) * count);
        return 0;
    }, -1);
}

void hal_cv_net_free(hal_cv_net *net) { delete net; }
