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


def model(batch, c, o, size, stride):
    """The single-node graph `x → y` of one case, and its output shape."""
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    out = (size + 2 - 3) // stride + 1
    inits = []
    if o is None:
        nodes = [helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[3, 3], strides=[stride] * 2, pads=[1] * 4)]
        yshape = [batch, c, out, out]
    else:
        w = (rng.standard_normal((o, c, 3, 3)) * np.sqrt(2.0 / (9 * o))).astype(np.float32)
        b = rng.standard_normal(o).astype(np.float32) * np.float32(0.1)
        inits = [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")]
        nodes = [
            helper.make_node("Conv", ["x", "w", "b"], ["c"], kernel_shape=[3, 3], strides=[stride] * 2, pads=[1] * 4),
            helper.make_node("Relu", ["c"], ["y"]),
        ]
        yshape = [batch, o, out, out]
    graph = helper.make_graph(
        nodes,
        "layer",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, c, size, size])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, yshape)],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), yshape


def session(m, threads):
    """ONNX Runtime configured as for the whole network (tests/resnet/resnet18_onnx.py's
    `session`: `threads` intra-op threads, spinning off, all graph optimisations)."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "resnet"))
    from resnet18_onnx import session as resnet_session

    return resnet_session(m, threads)


def main():
    try:
        import onnx  # noqa: F401
        import onnxruntime as ort
    except ImportError as e:
        print(f"ONNX Runtime rows skipped: {e}", file=sys.stderr)
        return
    threads = [int(t) for t in sys.argv[1:]] or [1]
    for name, batch, c, o, size, stride in CASES:
        if not selected(name):
            continue
        m, yshape = model(batch, c, o, size, stride)
        x = np.random.default_rng(1).standard_normal((batch, c, size, size)).astype(np.float32)
        for t in threads:
            sess = session(m, t)
            xv = ort.OrtValue.ortvalue_from_numpy(x)
            yv = ort.OrtValue.ortvalue_from_shape_and_type(yshape, np.float32)
            bind = sess.io_binding()
            bind.bind_ortvalue_input("x", xv)
            bind.bind_ortvalue_output("y", yv)
            print(f"{name}@t{t}\t{median_time(lambda: sess.run_with_iobinding(bind), 1.0)}", flush=True)


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
    import onnxruntime as ort

    sess = session(m, t)
    x = np.random.default_rng(1).standard_normal(xshape).astype(np.float32)
    xv = ort.OrtValue.ortvalue_from_numpy(x)
    yv = ort.OrtValue.ortvalue_from_shape_and_type(yshape, np.float32)
    bind = sess.io_binding()
    bind.bind_ortvalue_input("x", xv)
    bind.bind_ortvalue_output("y", yv)
    return median_time(lambda: sess.run_with_iobinding(bind), 1.0)


def head(threads):
    try:
        import onnx  # noqa: F401
        import onnxruntime  # noqa: F401
    except ImportError as e:
        print(f"ONNX Runtime rows skipped: {e}", file=sys.stderr)
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


if sys.argv[1:2] == ["head"]:
    head([int(t) for t in sys.argv[2:]] or [1])
else:
    main()
