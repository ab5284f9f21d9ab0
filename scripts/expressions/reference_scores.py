#!/usr/bin/env python3
"""The reference: fer's mini-Xception run straight from its HDF5 weights with NumPy, in Keras's own
layout (NHWC, batch norm as Keras computes it, TensorFlow 'same' padding). No ONNX, no OpenCV; it shares
only the HDF5 reading and the 'same'-padding rule with the converter.

Usage: reference_scores.py emotion_model.hdf5 INPUT.f32 [INPUT.f32 ...]
Each INPUT.f32 holds 64*64 little-endian float32 values, the face already normalised to [-1, 1];
prints one line per input with the seven scores in fer's class order.
"""
import sys

import numpy as np

from mini_xception import load, same_padding


def pad(x, kernel, stride, padding, value=0.0):
    if padding != "same":
        return x
    top, bottom = same_padding(x.shape[0], kernel, stride)
    left, right = same_padding(x.shape[1], kernel, stride)
    return np.pad(x, ((top, bottom), (left, right), (0, 0)), constant_values=value)


def windows(x, kernel, stride):
    """(out_h, out_w, kernel, kernel, channels) views of x."""
    out_h = (x.shape[0] - kernel) // stride + 1
    out_w = (x.shape[1] - kernel) // stride + 1
    return np.stack([np.stack([x[i * stride:i * stride + kernel, j * stride:j * stride + kernel] for j in range(out_w)])
                     for i in range(out_h)])


def forward(layers, face):
    values = {}
    for kind, name, inbound, config, weights in layers:
        if kind == "InputLayer":
            values[name] = face.reshape(64, 64, 1)
            continue
        x = values[inbound[0]]
        if kind == "Conv2D":
            k, s = config["kernel_size"][0], config["strides"][0]
            patches = windows(pad(x, k, s, config["padding"]), k, s)
            y = np.einsum("hwijc,ijco->hwo", patches, weights["kernel"])
            values[name] = y + weights.get("bias", 0)
        elif kind == "SeparableConv2D":
            k = config["kernel_size"][0]
            patches = windows(pad(x, k, 1, config["padding"]), k, 1)
            depth = np.einsum("hwijc,ijc->hwc", patches, weights["depthwise_kernel"][:, :, :, 0])
            values[name] = np.einsum("hwc,co->hwo", depth, weights["pointwise_kernel"][0, 0])
        elif kind == "BatchNormalization":
            # Keras's formula as written, not the folded scale and shift the converter uses.
            gamma = weights.get("gamma", 1.0)
            beta = weights.get("beta", 0.0)
            values[name] = gamma * (x - weights["moving_mean"]) / np.sqrt(weights["moving_variance"] + config["epsilon"]) + beta
        elif kind == "Activation":
            if config["activation"] == "relu":
                values[name] = np.maximum(x, 0)
            else:
                e = np.exp(x - x.max())
                values[name] = e / e.sum()
        elif kind == "MaxPooling2D":
            k, s = config["pool_size"][0], config["strides"][0]
            values[name] = windows(pad(x, k, s, config["padding"], -np.inf), k, s).max(axis=(2, 3))
        elif kind == "Add":
            values[name] = sum(values[i] for i in inbound)
        elif kind == "GlobalAveragePooling2D":
            values[name] = x.mean(axis=(0, 1))
        else:
            raise SystemExit(f"{name}: layer type {kind} is not supported")
    return values[layers[-1][1]]


if __name__ == "__main__":
    layers = load(sys.argv[1])
    for path in sys.argv[2:]:
        face = np.fromfile(path, dtype="<f4").astype(np.float64)
        print(" ".join(f"{v:.9g}" for v in forward(layers, face)))
