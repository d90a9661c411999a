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
import sys

from nn_ort import conv_model, have_ort, selected, time_bound

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


def main():
    if not have_ort():
        return
    threads = [int(t) for t in sys.argv[1:]] or [1]
    for name, batch, c, o, size, k, stride, pad, relu in CASES:
        if not selected(name):
            continue
        m, xshape, yshape = conv_model(batch, c, o, size, k, stride, pad, relu)
        for t in threads:
            print(f"{name}@t{t}\t{time_bound(m, xshape, yshape, t)}", flush=True)


if __name__ == "__main__":
    main()
