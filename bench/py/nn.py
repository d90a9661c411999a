"""NumPy side of the nn benchmark: prints `case<TAB>median seconds`."""
import numpy as np
from benchtime import min_time





n = 4096
i = np.arange(n)[:, None]
j = np.arange(n)[None, :]
x = (((i * 7 + j * 13) % 1000).astype(np.float32) * np.float32(0.01) - np.float32(5.0))


def softmax():
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def log_softmax():
    d = x - x.max(-1, keepdims=True)
    return d - np.log(np.exp(d).sum(-1, keepdims=True))


def softmax_0():
    e = np.exp(x - x.max(0, keepdims=True))
    return e / e.sum(0, keepdims=True)


print(f"softmax\t{min_time(softmax, 2.0)}")
print(f"log_softmax\t{min_time(log_softmax, 2.0)}")
print(f"softmax_0\t{min_time(softmax_0, 2.0)}")
