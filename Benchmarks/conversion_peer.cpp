// The peer of `CameraPipeline conversion`: OpenCV 4.6's own cvtColor on 640x480 YUYV and NV12 frames of the
// same sizes (cvtColor's time does not depend on the pixels), to gray and to BGR, from the buffer into a reused
// image, against memcpy of the same bytes. Prints one RESULT line per contender.
// Built by Benchmarks/camera with g++ -O2 and pkg-config opencv4.
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

template <typename Body> static double best(int repeats, Body body) {
    double fastest = 1e9;
    for (int r = 0; r < repeats; r++) {
        auto start = std::chrono::steady_clock::now();
        for (int i = 0; i < 100; i++) body();
        fastest = std::min(fastest, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / 100);
    }
    return fastest;
}

int main(int argc, char **argv) {
    int repeats = argc > 1 ? atoi(argv[1]) : 20;
    const int width = 640, height = 480;
    struct { const char *name; int rows, type, toGray, toBGR; size_t bytes; } formats[] = {
        {"YUYV", height, CV_8UC2, cv::COLOR_YUV2GRAY_YUYV, cv::COLOR_YUV2BGR_YUYV, (size_t)width * height * 2},
        {"NV12", height * 3 / 2, CV_8UC1, cv::COLOR_YUV2GRAY_NV12, cv::COLOR_YUV2BGR_NV12, (size_t)width * height * 3 / 2},
    };
    for (auto &format : formats) {
        std::vector<uint8_t> bytes(format.bytes), copy(format.bytes);
        for (size_t i = 0; i < bytes.size(); i++) bytes[i] = (uint8_t)(16 + (i * 7) % 220);
        cv::Mat in(format.rows, width, format.type, bytes.data()), gray, bgr;
        double memcpyTime = best(repeats, [&] { memcpy(copy.data(), bytes.data(), bytes.size()); });
        double grayTime = best(repeats, [&] { cv::cvtColor(in, gray, format.toGray); });
        double bgrTime = best(repeats, [&] { cv::cvtColor(in, bgr, format.toBGR); });
        printf("RESULT %s %dx%d memcpy of %zu bytes: %.1f us\n", format.name, width, height, bytes.size(), memcpyTime * 1e6);
        printf("RESULT %s %dx%d OpenCV cvtColor to gray: %.1f us (%.1fx memcpy's time)\n", format.name, width, height, grayTime * 1e6, grayTime / memcpyTime);
        printf("RESULT %s %dx%d OpenCV cvtColor to BGR: %.1f us (%.1fx memcpy's time)\n", format.name, width, height, bgrTime * 1e6, bgrTime / memcpyTime);
    }
    printf("# OpenCV %s, %d thread(s)\n", CV_VERSION, cv::getNumThreads());
    return 0;
}
