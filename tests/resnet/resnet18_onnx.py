"""ResNet-18 (torchvision layout) as an ONNX graph built with the `onnx` helper API, for
checking and timing ferrotensor's `resnet` example against ONNX Runtime.

Needs `pip install numpy onnx onnxruntime` (no torch: the graph is written out node by
node from torchvision's `state_dict` names).

    python3 tests/resnet/resnet18_onnx.py weights --seed 0 --out W.npz
        random torchvision-named weights (f32) as .npz (or .safetensors by extension,
        which needs `pip install safetensors`)
    python3 tests/resnet/resnet18_onnx.py input --seed 1 --batch 2 --out X.npy
    python3 tests/resnet/resnet18_onnx.py run --weights W.npz --input X.npy --out R.npy
        logits of ONNX Runtime (one thread)
    python3 tests/resnet/resnet18_onnx.py check --example target/debug/examples/resnet
        the whole CI comparison: weights, input, ONNX Runtime, the example, max error
        within 1e-4 of the largest logit (exit status 1 otherwise)
    python3 tests/resnet/resnet18_onnx.py bench --example target/release/examples/resnet
        ResNet-18 forward time, the example against ONNX Runtime in the same run: batch 1
        and 8, 1 and 2 threads, median of --repeat passes after a warm-up; prints the
        ratios ours / ONNX Runtime and the CPU model (run it through /work/tools/bench)
    python3 tests/resnet/resnet18_onnx.py profile --example target/release/examples/resnet --batch 1 --threads 2
        per-layer times, the example's (`--profile`) against ONNX Runtime's node profile
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

STAGES = [(64, 1), (128, 2), (256, 2), (512, 2)]  # (channels, stride of the first block)


def names_and_shapes():
    """Every tensor of torchvision's resnet18 `state_dict` (without num_batches_tracked),
    in order, with its shape."""
    out = []

    def bn(prefix, c):
        for s in ("weight", "bias", "running_mean", "running_var"):
            out.append((f"{prefix}.{s}", (c,)))

    out.append(("conv1.weight", (64, 3, 7, 7)))
    bn("bn1", 64)
    cin = 64
    for li, (c, stride) in enumerate(STAGES, start=1):
        for b in range(2):
            p = f"layer{li}.{b}"
            s = stride if b == 0 else 1
            out.append((f"{p}.conv1.weight", (c, cin, 3, 3)))
            bn(f"{p}.bn1", c)
            out.append((f"{p}.conv2.weight", (c, c, 3, 3)))
            bn(f"{p}.bn2", c)
            if b == 0 and (s != 1 or cin != c):
                out.append((f"{p}.downsample.0.weight", (c, cin, 1, 1)))
                bn(f"{p}.downsample.1", c)
            cin = c
    out.append(("fc.weight", (1000, 512)))
    out.append(("fc.bias", (1000,)))
    return out


def random_weights(seed):
    """Random weights with torchvision's initialisation scales (Kaiming normal, fan_out,
    for convolutions; uniform ±1/√512 for fc) and running statistics away from the
    identity, so that a wrong batch-norm formula changes the logits."""
    rng = np.random.default_rng(seed)
    w = {}
    for name, shape in names_and_shapes():
        if name.endswith("running_var"):
            v = rng.uniform(0.5, 1.5, shape)
        elif name.endswith("running_mean"):
            v = rng.normal(0.0, 0.1, shape)
        elif name.startswith("fc."):
            v = rng.uniform(-1, 1, shape) / np.sqrt(512)
        elif len(shape) == 4:
            fan_out = shape[0] * shape[2] * shape[3]
            v = rng.normal(0.0, np.sqrt(2.0 / fan_out), shape)
        elif name.endswith(".weight"):
            v = rng.uniform(0.5, 1.5, shape)
        else:
            v = rng.normal(0.0, 0.1, shape)
        w[name] = v.astype(np.float32)
    return w


def build_model(w, eps=1e-5, layer_of=None):
    """The ResNet-18 graph: Conv/BatchNormalization/Relu/MaxPool/Add/GlobalAveragePool/
    Flatten/Gemm nodes, weights as initializers (ONNX Runtime folds the batch norms
    itself, as it would for an exported torchvision model). `layer_of` (a dict), if
    given, receives the layer name (`conv1`, `layer1.0.conv2`, `maxpool`, …) of every
    tensor the graph computes: ONNX Runtime names a fused node after one of them."""
    if layer_of is None:
        layer_of = {}
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    nodes, inits = [], [numpy_helper.from_array(v, name) for name, v in w.items()]
    counter = [0]

    def fresh(tag):
        counter[0] += 1
        return f"{tag}_{counter[0]}"

    def conv(x, name, stride, pad):
        y = fresh("conv")
        k = w[name].shape[2]
        layer_of[y] = name.removesuffix(".weight").removesuffix(".0")
        nodes.append(helper.make_node("Conv", [x, name], [y], kernel_shape=[k, k],
                                      strides=[stride, stride], pads=[pad] * 4))
        return y

    def bn(x, p):
        y = fresh("bn")
        nodes.append(helper.make_node("BatchNormalization",
                                      [x] + [f"{p}.{s}" for s in ("weight", "bias", "running_mean", "running_var")],
                                      [y], epsilon=eps))
        layer_of[y] = layer_of.get(x)
        return y

    def relu(x):
        y = fresh("relu")
        nodes.append(helper.make_node("Relu", [x], [y]))
        layer_of[y] = layer_of.get(x)
        return y

    x = relu(bn(conv("input", "conv1.weight", 2, 3), "bn1"))
    y = fresh("pool")
    layer_of[y] = "maxpool"
    nodes.append(helper.make_node("MaxPool", [x], [y], kernel_shape=[3, 3], strides=[2, 2], pads=[1] * 4))
    x = y
    for li, (_, stride) in enumerate(STAGES, start=1):
        for b in range(2):
            p = f"layer{li}.{b}"
            s = stride if b == 0 else 1
            h = relu(bn(conv(x, f"{p}.conv1.weight", s, 1), f"{p}.bn1"))
            h = bn(conv(h, f"{p}.conv2.weight", 1, 1), f"{p}.bn2")
            if f"{p}.downsample.0.weight" in w:
                sc = bn(conv(x, f"{p}.downsample.0.weight", s, 0), f"{p}.downsample.1")
            else:
                sc = x
            z = fresh("add")
            nodes.append(helper.make_node("Add", [h, sc], [z]))
            layer_of[z] = layer_of[h]
            x = relu(z)
    g = fresh("gap")
    nodes.append(helper.make_node("GlobalAveragePool", [x], [g]))
    layer_of[g] = "avgpool"
    f = fresh("flat")
    nodes.append(helper.make_node("Flatten", [g], [f], axis=1))
    layer_of[f] = "avgpool"
    nodes.append(helper.make_node("Gemm", [f, "fc.weight", "fc.bias"], ["logits"], name="fc", transB=1))
    graph = helper.make_graph(
        nodes, "resnet18",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["N", 3, "H", "W"])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", 1000])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def session(model, threads, profile_prefix=None):
    """An ONNX Runtime session with `threads` intra-op threads, spinning off (the
    threads sleep between operations, as ferrotensor's do), all graph optimisations;
    with `profile_prefix`, ONNX Runtime's per-node profile is written there."""
    import onnxruntime as ort
    so = ort.SessionOptions()
    if profile_prefix:
        so.enable_profiling = True
        so.profile_file_prefix = profile_prefix
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])


def save_weights(w, path):
    if path.endswith(".safetensors"):
        from safetensors.numpy import save_file
        save_file(w, path)
    else:
        np.savez(path, **w)


def load_weights(path):
    if path.endswith(".safetensors"):
        from safetensors.numpy import load_file
        return load_file(path)
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


def random_input(seed, batch, size=224):
    return np.random.default_rng(seed).standard_normal((batch, 3, size, size)).astype(np.float32)


def check(example, batch, threads):
    """Runs the example and ONNX Runtime on the same random weights and input; returns
    the largest absolute difference divided by the largest absolute logit."""
    with tempfile.TemporaryDirectory() as d:
        wpath, xpath, ypath = (os.path.join(d, n) for n in ("w.npz", "x.npy", "y.npy"))
        w = random_weights(0)
        save_weights(w, wpath)
        x = random_input(1, batch)
        np.save(xpath, x)
        ref = session(build_model(w), threads).run(["logits"], {"input": x})[0]
        subprocess.run([example, "--weights", wpath, "--input", xpath, "--output", ypath,
                        "--threads", str(threads)], check=True)
        ours = np.load(ypath)
    assert ours.shape == ref.shape, f"example gave logits {ours.shape}, ONNX Runtime {ref.shape}"
    err = float(np.abs(ours - ref).max() / np.abs(ref).max())
    print(f"batch {batch}, {threads} thread(s): max |ours - onnxruntime| = {err:.2e} of the "
          f"largest logit {np.abs(ref).max():.3f}; argmax agree: "
          f"{bool((ours.argmax(1) == ref.argmax(1)).all())}")
    return err


def median_ms(f, repeat):
    import time
    f()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        times.append((time.perf_counter() - t) * 1e3)
    return float(np.median(times))


def bench(example, repeat):
    """The example's `median_ms` and ONNX Runtime's on the same weights and input."""
    import platform
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
               platform.processor())
    print(f"CPU: {cpu}")
    print("| batch | threads | ferrotensor ms | ONNX Runtime ms | ratio |")
    print("|---|---|---|---|---|")
    w = random_weights(0)
    model = build_model(w)
    with tempfile.TemporaryDirectory() as d:
        wpath, xpath = os.path.join(d, "w.npz"), os.path.join(d, "x.npy")
        save_weights(w, wpath)
        for batch in (1, 8):
            x = random_input(1, batch)
            np.save(xpath, x)
            for threads in (1, 2):
                sess = session(model, threads)
                ort_ms = median_ms(lambda: sess.run(["logits"], {"input": x}), repeat)
                out = subprocess.run([example, "--weights", wpath, "--input", xpath, "--threads", str(threads),
                                      "--repeat", str(repeat)], check=True, capture_output=True, text=True).stdout
                ours = float(next(l for l in out.splitlines() if l.startswith("median_ms:")).split()[1])
                print(f"| {batch} | {threads} | {ours:.2f} | {ort_ms:.2f} | {ours / ort_ms:.2f} |", flush=True)


def ort_layer_ms(sess, x, repeat, layer_of):
    """(fastest, median, slowest) time of each layer in ONNX Runtime's profile over
    `repeat` runs (after a warm-up): its nodes (named after a tensor they compute, plus a
    layout suffix) mapped to layers by `layer_of` (from `build_model`); layout reorders
    count as `reorder`. A layer's time in one run is the sum of its nodes' in that run."""
    import json
    sess.run(["logits"], {"input": x})
    for _ in range(repeat):
        sess.run(["logits"], {"input": x})
    path = sess.end_profiling()
    with open(path) as f:
        events = json.load(f)
    os.remove(path)
    runs = {}
    for e in events:
        if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
            node = e["name"].removesuffix("_kernel_time")
            layer = layer_of.get(node.removesuffix("_nchwc"), "fc" if node == "fc" else "reorder")
            runs.setdefault(node, (layer, []))[1].append(e["dur"] / 1e3)
    per = {}
    # The first run of each node is the warm-up; nodes run once per pass.
    for layer, v in runs.values():
        v = np.array(v[1:] if len(v) > 1 else v)
        if layer in per and len(per[layer]) == len(v):
            per[layer] = per[layer] + v
        else:
            per[layer] = v if layer not in per else np.concatenate([per[layer], v])
    return {k: (float(v.min()), float(np.median(v)), float(v.max())) for k, v in per.items()}


def is_float(s):
    try:
        float(s)
        return True
    except ValueError:
        return False


def profile(example, batch, threads, repeat):
    """Per-layer times, fastest / median / slowest of `repeat` passes: the example's
    `--profile` lines against ONNX Runtime's profile (its Conv nodes carry the fused
    batch norm, ReLU and residual add, as ours do)."""
    w = random_weights(0)
    x = random_input(1, batch)
    with tempfile.TemporaryDirectory() as d:
        wpath, xpath = os.path.join(d, "w.npz"), os.path.join(d, "x.npy")
        save_weights(w, wpath)
        np.save(xpath, x)
        layer_of = {}
        model = build_model(w, layer_of=layer_of)
        ort = ort_layer_ms(session(model, threads, os.path.join(d, "ort")), x, repeat, layer_of)
        out = subprocess.run([example, "--weights", wpath, "--input", xpath, "--threads", str(threads),
                              "--repeat", str(repeat), "--profile"], check=True, capture_output=True,
                             text=True).stdout
    print(f"batch {batch}, {threads} thread(s), {repeat} passes: min / median / max ms")
    print("| layer | ferrotensor ms | ONNX Runtime ms | ratio of medians | ours max / min | ORT max / min |")
    print("|---|---|---|---|---|---|")
    tot = np.zeros((2, 3))
    for line in out.splitlines():
        if not line.startswith("layer_ms:"):
            continue
        parts = line.split()
        # `NAME … MIN MEDIAN MAX` (an older example printed the median alone).
        k = 3 if len(parts) > 4 and all(is_float(v) for v in parts[-3:]) else 1
        vals = [float(v) for v in parts[-k:]]
        name, ms = parts[1], np.array(vals if k == 3 else vals * 3)
        label = " ".join(parts[1:-k])
        o = np.zeros(3)
        for k in name.split("+"):
            o += np.array(ort.get(k, (0.0, 0.0, 0.0)))
        tot += [ms, o]
        fmt = lambda t: " / ".join(f"{v:.3f}" for v in t)  # noqa: E731
        spread = lambda t: f"{t[2] / t[0]:.2f}" if t[0] else "nan"  # noqa: E731
        ratio = ms[1] / o[1] if o[1] else float("nan")
        print(f"| {label} | {fmt(ms)} | {fmt(o)} | {ratio:.2f} | {spread(ms)} | {spread(o)} |")
    print(f"| sum | {tot[0][1]:.3f} | {tot[1][1]:.3f} | {tot[0][1] / tot[1][1]:.2f} | | |")
    ours = {k for l in out.splitlines() if l.startswith("layer_ms:") for k in l.split()[1].split("+")}
    missing = sorted(set(ort) - ours)
    if missing:
        print("ONNX Runtime nodes not matched: " + ", ".join(f"{k} {ort[k][1]:.3f}" for k in missing))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("weights")
    a.add_argument("--seed", type=int, default=0)
    a.add_argument("--out", required=True)
    a = sub.add_parser("input")
    a.add_argument("--seed", type=int, default=1)
    a.add_argument("--batch", type=int, default=1)
    a.add_argument("--out", required=True)
    a = sub.add_parser("run")
    a.add_argument("--weights", required=True)
    a.add_argument("--input", required=True)
    a.add_argument("--out", required=True)
    a.add_argument("--threads", type=int, default=1)
    a = sub.add_parser("check")
    a.add_argument("--example", required=True)
    a = sub.add_parser("profile")
    a.add_argument("--example", required=True)
    a.add_argument("--batch", type=int, default=1)
    a.add_argument("--threads", type=int, default=2)
    a.add_argument("--repeat", type=int, default=10)
    a = sub.add_parser("bench")
    a.add_argument("--example", required=True)
    a.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()
    if args.cmd == "weights":
        save_weights(random_weights(args.seed), args.out)
    elif args.cmd == "input":
        np.save(args.out, random_input(args.seed, args.batch))
    elif args.cmd == "run":
        x = np.load(args.input)
        y = session(build_model(load_weights(args.weights)), args.threads).run(["logits"], {"input": x})[0]
        np.save(args.out, y)
    elif args.cmd == "profile":
        profile(args.example, args.batch, args.threads, args.repeat)
    elif args.cmd == "bench":
        bench(args.example, args.repeat)
    else:
        worst = max(check(args.example, 1, 1), check(args.example, 3, 2))
        if not worst <= 1e-4:
            print(f"FAIL: error {worst:.2e} exceeds 1e-4 of the largest logit")
            sys.exit(1)
        print("ok: the resnet example's logits equal ONNX Runtime's within 1e-4 of the largest logit")


if __name__ == "__main__":
    main()
