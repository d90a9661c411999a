"""Golden parameter trajectories of PyTorch's optimisers, for ferrotensor::optim.

Needs PyTorch (CPU); CI does not run this script, it reads the committed output.
Run:  /work/torchenv/bin/python tests/golden/optim/gen_optim.py
Writes tests/golden/optim/optim.json, read by tests/optim.rs: a starting parameter,
a sequence of gradients (fed to the optimiser as p.grad), and for each optimiser
configuration the parameter after every step, in float64.
"""
import json
import os

import numpy as np
import torch

torch.set_default_dtype(torch.float64)
rng = np.random.default_rng(7)
P0 = rng.standard_normal((3, 4))
GRADS = [rng.standard_normal((3, 4)) for _ in range(6)]

CONFIGS = [
    ("sgd", lambda p: torch.optim.SGD(p, lr=0.1), None),
    ("sgd_momentum", lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9), None),
    ("sgd_nesterov", lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.8, nesterov=True), None),
    (
        "sgd_dampening_weight_decay",
        lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, dampening=0.3, weight_decay=0.01),
        None,
    ),
    ("sgd_schedule", lambda p: torch.optim.SGD(p, lr=0.1), lambda step: 0.1 * 0.5**step),
    ("adam", lambda p: torch.optim.Adam(p, lr=0.01), None),
    (
        "adam_betas_eps_weight_decay",
        lambda p: torch.optim.Adam(p, lr=0.02, betas=(0.8, 0.95), eps=1e-6, weight_decay=0.1),
        None,
    ),
    ("adamw", lambda p: torch.optim.AdamW(p, lr=0.01), None),
    ("adamw_weight_decay_schedule", lambda p: torch.optim.AdamW(p, lr=0.03, weight_decay=0.2),
     lambda step: 0.03 / (1 + step)),
]


def run(make, schedule):
    p = torch.tensor(P0, requires_grad=True)
    opt = make([p])
    out = []
    for step, g in enumerate(GRADS):
        if schedule is not None:
            for group in opt.param_groups:
                group["lr"] = schedule(step)
        p.grad = torch.tensor(g)
        opt.step()
        out.append(p.detach().numpy().ravel().tolist())
    return out


def main():
    cases = [{"name": name, "params": run(make, sched)} for name, make, sched in CONFIGS]
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "optim.json")
    with open(out, "w") as f:
        json.dump(
            {
                "generator": f"PyTorch {torch.__version__}, float64",
                "shape": list(P0.shape),
                "p0": P0.ravel().tolist(),
                "grads": [g.ravel().tolist() for g in GRADS],
                "cases": cases,
            },
            f,
        )
    print(f"wrote {out}: {len(cases)} cases")


if __name__ == "__main__":
    main()
