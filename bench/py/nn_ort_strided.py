"""ONNX Runtime side of the nn benchmark's ResNet-18 strided-convolution rows (the stem
7×7/2 with Relu, as the network fuses it, and the 1×1/2 downsamples, whose batch norm
folds into the weights and whose output feeds the residual add: no activation), at
batch 1 and 8. Single-node models built with the `onnx` helper API, run as
`nn_ort.py` runs its rows (`intra_op_num_threads` = THREADS, spinning off, input and
output bound once).

    python3 nn_ort_strided.py THREADS [THREADS ...]

prints `case@tTHREADS<TAB>median seconds` for the cases selected by FT_BENCH_FILTER.
Needs `pip install numpy onnx onnxruntime` (the rows are skipped without them).
"""
import os
import sys

import numpy as np
from benchtime import median_time

# (case, batch, in channels, out channels, input size, kernel, stride, padding, relu)
# The case names are the Rust side's (bench/benches/nn.rs, `resnet_strided_cases`).
CASES = [
    ("resnet stem7x7/2 3->64@224 b1", 1, 3, 64, 224, 7, 2, 3, True),
    ("resnet stem7x7/2 3->64@224 b8", 8, 3, 64, 224, 7, 2, 3, True),
    ("resnet conv1x1/2 64->128@56 b1", 1, 64, 128, 56, 1, 2, 0, False),
    ("resnet conv1x1/2 128->256@28 b1", 1, 128, 256, 28, 1, 2, 0, False),
    ("resnet conv1x1/2 256->512@14 b1", 1, 256, 512, 14, 1, 2, 0, False),
    ("resnet conv1x1/2 64->128@56 b8", 8, 64, 128, 56, 1, 2, 0, False),
    ("resnet conv1x1/2 128->256@28 b8", 8, 128, 256, 28, 1, 2, 0, False),
    ("resnet conv1x1/2 256->512@14 b8", 8, 256, 512, 14, 1, 2, 0, False),
    ("resnet conv3x3/2 64->128@56 b8", 8, 64, 128, 56, 3, 2, 1, True),
]


def selected(name):
    flt = os.environ.get("FT_BENCH_FILTER", "").strip()
    return not flt or any(p.strip() in name for p in flt.split(","))


def model(batch, c, o, size, k, stride, pad, relu):
    """The single-node graph `x → y` of one case, and its output shape."""
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    out = (size + 2 * pad - k) // stride + 1
    w = (rng.standard_normal((o, c, k, k)) * np.sqrt(2.0 / (k * k * o))).astype(np.float32)
    b = rng.standard_normal(o).astype(np.float32) * np.float32(0.1)
    inits = [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")]
    conv_out = "c" if relu else "y"
    nodes = [
        helper.make_node(
            "Conv", ["x", "w", "b"], [conv_out], kernel_shape=[k, k], strides=[stride] * 2, pads=[pad] * 4
        )
    ]
    if relu:
        nodes.append(helper.make_node("Relu", ["c"], ["y"]))
    yshape = [batch, o, out, out]
    graph = helper.make_graph(
        nodes,
        "layer",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, c, size, size])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, yshape)],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), yshape


def main():
    try:
        import onnx  # noqa: F401
        import onnxruntime as ort
    except ImportError as e:
        print(f"ONNX Runtime rows skipped: {e}", file=sys.stderr)
        return
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "resnet"))
    from resnet18_onnx import session

    threads = [int(t) for t in sys.argv[1:]] or [1]
    for name, batch, c, o, size, k, stride, pad, relu in CASES:
        if not selected(name):
            continue
        m, yshape = model(batch, c, o, size, k, stride, pad, relu)
        x = np.random.default_rng(1).standard_normal((batch, c, size, size)).astype(np.float32)
        for t in threads:
            sess = session(m, t)
            xv = ort.OrtValue.ortvalue_from_numpy(x)
            yv = ort.OrtValue.ortvalue_from_shape_and_type(yshape, np.float32)
            bind = sess.io_binding()
            bind.bind_ortvalue_input("x", xv)
            bind.bind_ortvalue_output("y", yv)
            print(f"{name}@t{t}\t{median_time(lambda: sess.run_with_iobinding(bind), 1.0)}", flush=True)


main()
