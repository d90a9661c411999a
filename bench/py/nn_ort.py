"""ONNX Runtime side of the nn benchmark's ResNet-18 layer rows: single-node models built
with the `onnx` helper API (Conv 3×3 with bias followed by Relu, which ONNX Runtime's
graph optimiser fuses into one FusedConv node, and the stem's MaxPool 3×3/2 pad 1),
run with `intra_op_num_threads` = THREADS and spinning off, as
tests/resnet/resnet18_onnx.py configures ONNX Runtime for the whole network.

    python3 nn_ort.py THREADS [THREADS ...]

prints `case@tTHREADS<TAB>median seconds` for the cases selected by FT_BENCH_FILTER.
Input and output are bound once (io_binding, output preallocated), so a timed run is
one `run_with_iobinding`: the operator plus ONNX Runtime's per-call overhead, no NumPy
copies. Needs `pip install numpy onnx onnxruntime` (the rows are skipped without them).
"""
import os
import sys

import numpy as np
from benchtime import median_time

# (case, batch, in channels, out channels or None for the max pool, input size, stride)
# The case names are the Rust side's (bench/benches/nn.rs, `resnet_cases`).
CASES = [
    ("resnet conv3x3 64@56", 1, 64, 64, 56, 1),
    ("resnet conv3x3 128@28", 1, 128, 128, 28, 1),
    ("resnet conv3x3 256@14", 1, 256, 256, 14, 1),
    ("resnet conv3x3 512@7", 1, 512, 512, 7, 1),
    ("resnet conv3x3/2 64->128@56", 1, 64, 128, 56, 2),
    ("resnet conv3x3/2 128->256@28", 1, 128, 256, 28, 2),
    ("resnet conv3x3/2 256->512@14", 1, 256, 512, 14, 2),
    ("resnet maxpool3x3/2 64@112 b1", 1, 64, None, 112, 2),
    ("resnet maxpool3x3/2 64@112 b8", 8, 64, None, 112, 2),
]


def selected(name):
    flt = os.environ.get("FT_BENCH_FILTER", "").strip()
    return not flt or any(p.strip() in name for p in flt.split(","))


def conv_model(batch, c, o, size, k, stride, pad, relu, residual=False):
    """The single-node graph of a k×k convolution with bias (`x → y`, weights from a fixed
    seed), optionally followed by the addition of a residual input `r` (the output's
    shape) and a Relu, as the network fuses them; returns the model and the input and
    output shapes."""
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    out = (size + 2 * pad - k) // stride + 1
    w = (rng.standard_normal((o, c, k, k)) * np.sqrt(2.0 / (k * k * o))).astype(np.float32)
    b = rng.standard_normal(o).astype(np.float32) * np.float32(0.1)
    inits = [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")]
    xshape, yshape = [batch, c, size, size], [batch, o, out, out]
    steps = (["add"] if residual else []) + (["relu"] if relu else [])
    names = ["c"] + [f"s{i}" for i in range(len(steps))]
    names[-1] = "y"
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], [names[0]], kernel_shape=[k, k], strides=[stride] * 2, pads=[pad] * 4)
    ]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, xshape)]
    for i, step in enumerate(steps):
        if step == "add":
            nodes.append(helper.make_node("Add", [names[i], "r"], [names[i + 1]]))
            inputs.append(helper.make_tensor_value_info("r", TensorProto.FLOAT, yshape))
        else:
            nodes.append(helper.make_node("Relu", [names[i]], [names[i + 1]]))
    graph = helper.make_graph(
        nodes, "layer", inputs, [helper.make_tensor_value_info("y", TensorProto.FLOAT, yshape)], inits
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), xshape, yshape


def model(batch, c, o, size, stride):
    """The single-node graph `x → y` of one case (a 3×3 pad-1 convolution with bias and
    Relu, or for `o` None the MaxPool 3×3 pad 1), and its output shape."""
    from onnx import TensorProto, helper

    if o is not None:
        m, _, yshape = conv_model(batch, c, o, size, 3, stride, 1, True)
        return m, yshape
    out = (size + 2 - 3) // stride + 1
    yshape = [batch, c, out, out]
    nodes = [helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[3, 3], strides=[stride] * 2, pads=[1] * 4)]
    graph = helper.make_graph(
        nodes,
        "layer",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, c, size, size])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, yshape)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), yshape


def session(m, threads):
    """ONNX Runtime configured as for the whole network (tests/resnet/resnet18_onnx.py's
    `session`: `threads` intra-op threads, spinning off, all graph optimisations)."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "resnet"))
    from resnet18_onnx import session as resnet_session

    return resnet_session(m, threads)


def main():
    if not have_ort():
        return
    threads = [int(t) for t in sys.argv[1:]] or [1]
    for name, batch, c, o, size, stride in CASES:
        if not selected(name):
            continue
        m, yshape = model(batch, c, o, size, stride)
        for t in threads:
            print(f"{name}@t{t}\t{time_bound(m, [batch, c, size, size], yshape, t)}", flush=True)


# The `head` block (bench/benches/nn.rs, `head_cases`): `python3 nn_ort.py head THREADS ...`
# times ResNet-18's head at batch 1 and 8 (GlobalAveragePool of (N, 512, 7, 7); Gemm
# 512 → 1000 with bias, transB = 1 as torch exports `fc`; both as GlobalAveragePool →
# Flatten → Gemm) and the stem MaxPool at batch 8, input and output bound once.
HEAD_CASES = ["head gap 512@7", "head fc 512->1000", "head gap+fc"]


def head_model(name, batch):
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    w = (rng.standard_normal((1000, 512)) * 0.05).astype(np.float32)
    b = rng.standard_normal(1000).astype(np.float32)
    inits = [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")]
    gemm = helper.make_node("Gemm", ["f", "w", "b"], ["y"], transB=1)
    if name == "head gap 512@7":
        nodes, inits = [helper.make_node("GlobalAveragePool", ["x"], ["y"])], []
        xshape, yshape = [batch, 512, 7, 7], [batch, 512, 1, 1]
    elif name == "head fc 512->1000":
        nodes = [helper.make_node("Identity", ["x"], ["f"]), gemm]
        xshape, yshape = [batch, 512], [batch, 1000]
    else:
        nodes = [
            helper.make_node("GlobalAveragePool", ["x"], ["p"]),
            helper.make_node("Flatten", ["p"], ["f"], axis=1),
            gemm,
        ]
        xshape, yshape = [batch, 512, 7, 7], [batch, 1000]
    graph = helper.make_graph(
        nodes,
        "head",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, xshape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, yshape)],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), xshape, yshape


def time_bound(m, xshape, yshape, t):
    """The median time of one `run_with_iobinding` of `m` on `t` threads: `x` (and any
    further graph input, such as a residual `r`) random from a fixed seed, the output
    preallocated, all bound once."""
    import onnxruntime as ort

    sess = session(m, t)
    rng = np.random.default_rng(1)
    bind = sess.io_binding()
    keep = []
    for inp in m.graph.input:
        shape = xshape if inp.name == "x" else [d.dim_value for d in inp.type.tensor_type.shape.dim]
        v = ort.OrtValue.ortvalue_from_numpy(rng.standard_normal(shape).astype(np.float32))
        keep.append(v)
        bind.bind_ortvalue_input(inp.name, v)
    yv = ort.OrtValue.ortvalue_from_shape_and_type(yshape, np.float32)
    bind.bind_ortvalue_output("y", yv)
    return median_time(lambda: sess.run_with_iobinding(bind), 1.0)


def have_ort():
    """True if onnx and onnxruntime import (else the rows are skipped, said on stderr)."""
    try:
        import onnx  # noqa: F401
        import onnxruntime  # noqa: F401
    except ImportError as e:
        print(f"ONNX Runtime rows skipped: {e}", file=sys.stderr)
        return False
    return True


def head(threads):
    if not have_ort():
        return
    for batch in (1, 8):
        for t in threads:
            for name in HEAD_CASES:
                if selected(name) or selected(name + " gemm path"):
                    m, xshape, yshape = head_model(name, batch)
                    print(f"{name} b{batch}@t{t}\t{time_bound(m, xshape, yshape, t)}", flush=True)
    pool = "resnet maxpool3x3/2 64@112 b8"
    if selected(pool + " into"):
        m, yshape = model(8, 64, None, 112, 2)
        for t in threads:
            print(f"{pool}@t{t}\t{time_bound(m, [8, 64, 112, 112], yshape, t)}", flush=True)
    pool3d(threads)


def pool3d_model(kind):
    """MaxPool or AveragePool 3×3×3 / 2, pad 1 (count_include_pad as PyTorch's default)
    on (2, 32, 16, 56, 56)."""
    from onnx import TensorProto, helper

    extra = {"count_include_pad": 1} if kind == "AveragePool" else {}
    node = helper.make_node(kind, ["x"], ["y"], kernel_shape=[3] * 3, strides=[2] * 3, pads=[1] * 6, **extra)
    xshape, yshape = [2, 32, 16, 56, 56], [2, 32, 8, 28, 28]
    graph = helper.make_graph(
        [node],
        "pool3d",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, xshape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, yshape)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), xshape, yshape


def pool3d(threads):
    for name, kind in (("pool3d max 3/2 32@16x56", "MaxPool"), ("pool3d avg 3/2 32@16x56", "AveragePool")):
        if selected(name) or selected(name.replace("max ", "max with indices ")):
            m, xshape, yshape = pool3d_model(kind)
            for t in threads:
                print(f"{name}@t{t}\t{time_bound(m, xshape, yshape, t)}", flush=True)


# The `pools` block (bench/benches/nn.rs, `pool_indices_cases`): `python3 nn_ort.py pools
# THREADS ...` times ONNX Runtime's nearest single node for each pooling with indices
# and adaptive pooling row: (case, op, input shape, output shape, attributes, indices).
# MaxPool with its Indices output (flat over the whole tensor in ONNX, per plane in
# PyTorch: the same work); adaptive pooling to a divisor of the input as the pool with
# kernel = stride = input / output, to 1 as the Global… pool (no indices there).
POOL_CASES = [
    ("pool1d max+indices 3/2 64@4096 b8", "MaxPool", [8, 64, 4096], [8, 64, 2048],
     dict(kernel_shape=[3], strides=[2], pads=[1, 1]), True),
    ("pool2d max+indices 3/2 64@112 b1", "MaxPool", [1, 64, 112, 112], [1, 64, 56, 56],
     dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1] * 4), True),
    ("pool2d max+indices 3/2 64@112 b8", "MaxPool", [8, 64, 112, 112], [8, 64, 56, 56],
     dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1] * 4), True),
    ("pool3d max+indices 3/2 32@16x56 b2", "MaxPool", [2, 32, 16, 56, 56], [2, 32, 8, 28, 28],
     dict(kernel_shape=[3] * 3, strides=[2] * 3, pads=[1] * 6), True),
    ("adaptive max2d 512@14->7 b8", "MaxPool", [8, 512, 14, 14], [8, 512, 7, 7],
     dict(kernel_shape=[2, 2], strides=[2, 2]), True),
    ("adaptive max2d 512@7->1 b8", "GlobalMaxPool", [8, 512, 7, 7], [8, 512, 1, 1], {}, False),
    ("adaptive max1d 64@4096->1024 b8", "MaxPool", [8, 64, 4096], [8, 64, 1024],
     dict(kernel_shape=[4], strides=[4]), True),
    ("adaptive max3d 32@16x56->8x28 b2", "MaxPool", [2, 32, 16, 56, 56], [2, 32, 8, 28, 28],
     dict(kernel_shape=[2] * 3, strides=[2] * 3), True),
    ("adaptive avg1d 64@4096->1024 b8", "AveragePool", [8, 64, 4096], [8, 64, 1024],
     dict(kernel_shape=[4], strides=[4]), False),
    ("adaptive avg3d 32@16x56->8x28 b2", "AveragePool", [2, 32, 16, 56, 56], [2, 32, 8, 28, 28],
     dict(kernel_shape=[2] * 3, strides=[2] * 3), False),
    ("adaptive avg3d 32@16x56->1 b2", "GlobalAveragePool", [2, 32, 16, 56, 56], [2, 32, 1, 1, 1], {}, False),
]


def pool_model(op, xshape, yshape, attrs, indices):
    """One pooling node `x → y` (and `i`, int64, for MaxPool's Indices output)."""
    from onnx import TensorProto, helper

    outs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, yshape)]
    if indices:
        outs.append(helper.make_tensor_value_info("i", TensorProto.INT64, yshape))
    node = helper.make_node(op, ["x"], [o.name for o in outs], **attrs)
    graph = helper.make_graph(
        [node], "pool", [helper.make_tensor_value_info("x", TensorProto.FLOAT, xshape)], outs
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


# PyTorch's twin of each `pools` row (allocating its outputs, as ours): with
# FT_TORCH_PYTHON naming an interpreter that has torch (not needed by CI), `pools` also
# prints `torch:case@tTHREADS` rows, timed in that interpreter (`pools-torch`).
TORCH_POOLS = {
    "pool1d max+indices 3/2 64@4096 b8": lambda F, x: F.max_pool1d(x, 3, 2, 1, return_indices=True),
    "pool2d max+indices 3/2 64@112 b1": lambda F, x: F.max_pool2d(x, 3, 2, 1, return_indices=True),
    "pool2d max+indices 3/2 64@112 b8": lambda F, x: F.max_pool2d(x, 3, 2, 1, return_indices=True),
    "pool3d max+indices 3/2 32@16x56 b2": lambda F, x: F.max_pool3d(x, 3, 2, 1, return_indices=True),
    "adaptive max2d 512@14->7 b8": lambda F, x: F.adaptive_max_pool2d(x, 7, return_indices=True),
    "adaptive max2d 512@7->1 b8": lambda F, x: F.adaptive_max_pool2d(x, 1, return_indices=True),
    "adaptive max1d 64@4096->1024 b8": lambda F, x: F.adaptive_max_pool1d(x, 1024, return_indices=True),
    "adaptive max3d 32@16x56->8x28 b2": lambda F, x: F.adaptive_max_pool3d(x, (8, 28, 28), return_indices=True),
    "adaptive avg1d 64@4096->1024 b8": lambda F, x: F.adaptive_avg_pool1d(x, 1024),
    "adaptive avg3d 32@16x56->8x28 b2": lambda F, x: F.adaptive_avg_pool3d(x, (8, 28, 28)),
    "adaptive avg3d 32@16x56->1 b2": lambda F, x: F.adaptive_avg_pool3d(x, 1),
}


def pools_torch(threads):
    import torch
    import torch.nn.functional as F

    for name, _, xshape, _, _, _ in POOL_CASES:
        if not selected(name):
            continue
        x = torch.from_numpy(np.random.default_rng(1).standard_normal(xshape).astype(np.float32))
        for t in threads:
            torch.set_num_threads(t)
            with torch.no_grad():
                print(f"torch:{name}@t{t}\t{median_time(lambda: TORCH_POOLS[name](F, x), 1.0)}", flush=True)


def pools(threads):
    torch_python = os.environ.get("FT_TORCH_PYTHON")
    if torch_python:
        import subprocess

        args = [torch_python, os.path.abspath(__file__), "pools-torch"] + [str(t) for t in threads]
        print(subprocess.run(args, capture_output=True, text=True).stdout, end="", flush=True)
    if not have_ort():
        return
    import onnxruntime as ort

    for name, op, xshape, yshape, attrs, indices in POOL_CASES:
        if not selected(name):
            continue
        m = pool_model(op, xshape, yshape, attrs, indices)
        for t in threads:
            sess = session(m, t)
            xv = ort.OrtValue.ortvalue_from_numpy(np.random.default_rng(1).standard_normal(xshape).astype(np.float32))
            bind = sess.io_binding()
            bind.bind_ortvalue_input("x", xv)
            outs = [ort.OrtValue.ortvalue_from_shape_and_type(yshape, np.float32)]
            bind.bind_ortvalue_output("y", outs[0])
            if indices:
                outs.append(ort.OrtValue.ortvalue_from_shape_and_type(yshape, np.int64))
                bind.bind_ortvalue_output("i", outs[1])
            print(f"{name}@t{t}\t{median_time(lambda: sess.run_with_iobinding(bind), 1.0)}", flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["head"]:
        head([int(t) for t in sys.argv[2:]] or [1])
    elif sys.argv[1:2] == ["pools-torch"]:
        pools_torch([int(t) for t in sys.argv[2:]] or [1])
    elif sys.argv[1:2] == ["pools"]:
        pools([int(t) for t in sys.argv[2:]] or [1])
    else:
        main()
