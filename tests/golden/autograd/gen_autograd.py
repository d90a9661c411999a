"""Golden gradients for ferrotensor's autograd compositions, computed by JAX.

Needs JAX (CPU) and NumPy:  python3 -m venv /tmp/jaxenv && /tmp/jaxenv/bin/pip install "jax[cpu]"
Run:  /tmp/jaxenv/bin/python tests/golden/autograd/gen_autograd.py
Writes tests/golden/autograd/autograd.json, read by tests/autograd_golden.rs: for each
case the inputs (float64, row-major), the integer labels, the loss and the gradient of
the loss with respect to every input, all in float64 (jax_enable_x64).
"""
import json
import os

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

jax.config.update("jax_enable_x64", True)

rng = np.random.default_rng(20240518)


def randn(*shape, scale=1.0):
    return rng.standard_normal(shape) * scale


def cross_entropy(logits, labels):
    logp = jax.nn.log_softmax(logits, axis=1)
    picked = jnp.take_along_axis(logp, labels[:, None], axis=1)
    return -jnp.mean(picked)


def conv2d(x, w, b, stride, padding, dilation=(1, 1), groups=1):
    y = lax.conv_general_dilated(
        x,
        w,
        window_strides=stride,
        padding=[(padding[0], padding[0]), (padding[1], padding[1])],
        rhs_dilation=dilation,
        dimension_numbers=("NCHW", "OIHW", "NCHW"),
        feature_group_count=groups,
    )
    return y + b[None, :, None, None]


def max_pool(x, k, s):
    return lax.reduce_window(x, -jnp.inf, lax.max, (1, 1) + k, (1, 1) + s, "VALID")


def avg_pool(x, k, s):
    return lax.reduce_window(x, 0.0, lax.add, (1, 1) + k, (1, 1) + s, "VALID") / (k[0] * k[1])


def layer_norm(x, w, b, eps=1e-5):
    m = jnp.mean(x, axis=-1, keepdims=True)
    v = jnp.mean((x - m) ** 2, axis=-1, keepdims=True)
    return (x - m) / jnp.sqrt(v + eps) * w + b


def mlp(p, labels):
    h = jax.nn.relu(p["x"] @ p["w1"] + p["b1"])
    h = jnp.tanh(h @ p["w2"] + p["b2"])
    return cross_entropy(h @ p["w3"] + p["b3"], labels)


def conv_max_linear(p, labels):
    h = jax.nn.relu(conv2d(p["x"], p["wc"], p["bc"], (1, 1), (1, 1)))
    h = max_pool(h, (2, 2), (2, 2))
    h = h.reshape(h.shape[0], -1)
    return cross_entropy(h @ p["wl"].T + p["bl"], labels)


def conv_avg_linear(p, labels):
    h = conv2d(p["x"], p["wc"], p["bc"], (2, 1), (1, 2), dilation=(1, 2), groups=2)
    h = avg_pool(jax.nn.silu(h), (2, 2), (1, 2))
    h = h.reshape(h.shape[0], -1)
    return cross_entropy(h @ p["wl"].T + p["bl"], labels)


def attention(p, _labels):
    d = p["q"].shape[-1]
    s = jax.nn.softmax(p["q"] @ jnp.swapaxes(p["k"], -1, -2) / np.sqrt(d), axis=-1)
    out = s @ p["v"]
    return jnp.sum(out * p["r"])


def block(p, _labels):
    x = p["x"]
    h = layer_norm(x, p["ln_w"], p["ln_b"])
    q, k, v = h @ p["wq"], h @ p["wk"], h @ p["wv"]
    a = jax.nn.softmax(q @ jnp.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]), axis=-1) @ v
    y = x + a @ p["wo"]
    z = jax.nn.gelu(y @ p["w1"], approximate=False) @ p["w2"] + y
    return jnp.mean(z**2)


CASES = [
    (
        "mlp_softmax_cross_entropy",
        mlp,
        {
            "x": randn(8, 6),
            "w1": randn(6, 10, scale=0.5),
            "b1": randn(10, scale=0.1),
            "w2": randn(10, 7, scale=0.5),
            "b2": randn(7, scale=0.1),
            "w3": randn(7, 4, scale=0.5),
            "b3": randn(4, scale=0.1),
        },
        rng.integers(0, 4, 8),
    ),
    (
        "conv_relu_maxpool_linear",
        conv_max_linear,
        {
            "x": randn(2, 1, 8, 8),
            "wc": randn(4, 1, 3, 3, scale=0.5),
            "bc": randn(4, scale=0.1),
            "wl": randn(3, 64, scale=0.2),
            "bl": randn(3, scale=0.1),
        },
        rng.integers(0, 3, 2),
    ),
    (
        "conv_groups_silu_avgpool_linear",
        conv_avg_linear,
        {
            "x": randn(3, 4, 7, 6),
            "wc": randn(6, 2, 3, 2, scale=0.5),
            "bc": randn(6, scale=0.1),
            "wl": randn(5, 6 * 3 * 4, scale=0.2),
            "bl": randn(5, scale=0.1),
        },
        rng.integers(0, 5, 3),
    ),
    (
        "attention_softmax_qk_v",
        attention,
        {
            "q": randn(2, 5, 4),
            "k": randn(2, 6, 4),
            "v": randn(2, 6, 3),
            "r": randn(2, 5, 3),
        },
        np.zeros(0, dtype=np.int64),
    ),
    (
        "transformer_block",
        block,
        {
            "x": randn(2, 5, 8),
            "ln_w": 1.0 + randn(8, scale=0.1),
            "ln_b": randn(8, scale=0.1),
            "wq": randn(8, 8, scale=0.3),
            "wk": randn(8, 8, scale=0.3),
            "wv": randn(8, 8, scale=0.3),
            "wo": randn(8, 8, scale=0.3),
            "w1": randn(8, 16, scale=0.3),
            "w2": randn(16, 8, scale=0.3),
        },
        np.zeros(0, dtype=np.int64),
    ),
]


def enc(a):
    a = np.asarray(a, dtype=np.float64)
    return {"shape": list(a.shape), "data": [float(v) for v in a.ravel()]}


def main():
    cases = []
    for name, fn, params, labels in CASES:
        p = {k: jnp.asarray(v) for k, v in params.items()}
        lab = jnp.asarray(labels)
        loss, grads = jax.value_and_grad(fn)(p, lab)
        cases.append(
            {
                "name": name,
                "labels": [int(v) for v in labels],
                "inputs": {k: enc(v) for k, v in params.items()},
                "loss": float(loss),
                "grads": {k: enc(v) for k, v in grads.items()},
            }
        )
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "autograd.json")
    with open(out, "w") as f:
        json.dump({"generator": f"JAX {jax.__version__}, float64", "cases": cases}, f)
    print(f"wrote {out}: {len(cases)} cases")


if __name__ == "__main__":
    main()
