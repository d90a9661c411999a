#!/usr/bin/env python3
"""Generate golden cases for ferrotensor's views: slicing, reshape, merge/split of
axes and einops-style rearrange, all checked against NumPy.

Every case starts from `base = np.arange(prod(shape), dtype=np.int64).reshape(shape)`
and applies `pre` operations (NumPy views, reproduced in Rust with the crate's own
view ops), then the operation under test. Because the base holds 0, 1, 2, ... the
values of a view are its buffer indices. Recorded: whether NumPy raised, the result's
shape, values (row-major), and for non-empty views the strides and offset in elements
(NumPy's byte strides divided by the itemsize; offset = data pointer minus the base's).

Encodings (compact JSON, one case per line):
  slice items: ["r", start|null, stop|null, step|null] | ["i", k] | ["n"] (newaxis) | ["e"]
  pre ops:     ["perm", [axes]] | ["flip", axis] | ["slice", [items]]

Usage: python3 tests/golden/gen_views.py   (writes slicing.json, reshape.json,
rearrange.json next to it)
"""

import json
import os
import random

import numpy as np

SEED = 20240613
rng = random.Random(SEED)
HERE = os.path.dirname(os.path.abspath(__file__))
ITEM = 8


def addr(a):
    return a.__array_interface__["data"][0]


def describe(r, base):
    """Shape, values and (for non-empty results) strides and offset of `r`."""
    out = {"shape": list(r.shape), "values": [int(v) for v in r.reshape(-1)]}
    if r.size > 0:
        out["strides"] = [s // ITEM for s in r.strides]
        out["offset"] = (addr(r) - addr(base)) // ITEM
    return out


def py_item(it):
    k = it[0]
    if k == "r":
        return slice(it[1], it[2], it[3])
    if k == "i":
        return it[1]
    if k == "n":
        return None
    return Ellipsis


def apply_items(x, items):
    t = tuple(py_item(i) for i in items)
    if not any(i[0] == "e" for i in items):
        t = t + (Ellipsis,)  # keeps a 0-d result an array view instead of a scalar
    return x[t]


def apply_pre(x, pre):
    for op in pre:
        if op[0] == "perm":
            x = x.transpose(op[1])
        elif op[0] == "flip":
            x = np.flip(x, op[1])
        else:
            x = apply_items(x, op[1])
    return x


def rand_shape(max_nd, max_size, zero_p=0.03):
    while True:
        nd = rng.randint(1, max_nd)
        shape = [0 if rng.random() < zero_p else rng.randint(1, 5) for _ in range(nd)]
        if int(np.prod(shape)) <= max_size:
            return shape


def rand_bound(n):
    r = rng.random()
    if r < 0.3:
        return None
    if r < 0.38:
        return rng.choice([-100, -n - 2, n + 2, 100])
    return rng.randint(-n, n)


def rand_range(n, allow_zero_step=False, ordered=0.8):
    step = rng.choice([None, 1, 1, 2, 3, -1, -1, -2, -3])
    if allow_zero_step and rng.random() < 0.5:
        step = 0
    start, stop = rand_bound(n), rand_bound(n)
    if start is not None and stop is not None and rng.random() < ordered:
        # mostly non-empty: order the bounds (after wrapping negatives) as the step walks
        key = lambda v: v + n if v < 0 else v
        lo, hi = sorted([start, stop], key=key)
        start, stop = (hi, lo) if (step or 1) < 0 else (lo, hi)
    return ["r", start, stop, step]


def rand_items(shape, errors):
    nd = len(shape)
    kinds = []
    consuming = rng.randint(0, nd)
    if errors and rng.random() < 0.3:
        consuming = nd + rng.randint(1, 2)
    use_ell = rng.random() < 0.35
    axes_after_ell = 0
    if use_ell:
        before = rng.randint(0, consuming)
        axes_after_ell = consuming - before
    else:
        before = consuming
    items = []
    for _ in range(before):
        items.append(None)
    if use_ell:
        items.append(["e"])
        if errors and rng.random() < 0.2:
            items.append(["e"])
        for _ in range(axes_after_ell):
            items.append(None)
    # Fill consuming items with the axis they would address when valid.
    ell_at = next((k for k, it in enumerate(items) if it is not None), None)
    ax = 0
    for k, it in enumerate(items):
        if it is not None:
            if it == ["e"] and k == ell_at:
                ax = nd - axes_after_ell
            continue
        n = shape[ax] if 0 <= ax < nd else 3
        if rng.random() < 0.6:
            items[k] = rand_range(n, allow_zero_step=errors and rng.random() < 0.2)
        else:
            lo, hi = -n, n - 1
            if errors and rng.random() < 0.3:
                idx = rng.choice([n, n + 1, -n - 1, 7])
            elif n == 0:
                idx = 0
            else:
                idx = rng.randint(lo, hi)
            items[k] = ["i", idx]
        ax += 1
    for _ in range(rng.choice([0, 0, 0, 1, 1, 2])):
        items.insert(rng.randint(0, len(items)), ["n"])
    return items


def rand_pre(shape, with_slice=True):
    """Random view operations (transpose, flip, strided range slices)."""
    pre = []
    nd = len(shape)
    cur = list(shape)
    if rng.random() < 0.5 and nd > 1:
        p = list(range(nd))
        rng.shuffle(p)
        pre.append(["perm", p])
        cur = [cur[i] for i in p]
    if with_slice and rng.random() < 0.5:
        items = [rand_range(n, ordered=0.95) for n in cur]
        pre.append(["slice", items])
    if rng.random() < 0.4:
        pre.append(["flip", rng.randrange(nd)])
    return pre


def gen_slicing(count):
    cases = []
    while len(cases) < count:
        shape = rand_shape(5, 400)
        base = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
        pre = rand_pre(shape, with_slice=False) if rng.random() < 0.4 else []
        x = apply_pre(base, pre)
        errors = rng.random() < 0.15
        items = rand_items(list(x.shape), errors)
        case = {"base": shape, "pre": pre, "items": items}
        try:
            r = apply_items(x, items)
        except (IndexError, ValueError, TypeError):
            case["ok"] = False
        else:
            if r.size > 200 or (r.size == 0 and rng.random() < 0.75):
                continue
            case["ok"] = True
            case.update(describe(r, base))
        cases.append(case)
    return cases


def factor_shape(size, nd):
    """A random shape of `nd` axes with product `size`."""
    dims = [1] * nd
    if size == 0:
        dims[rng.randrange(nd)] = 0
        for k in range(nd):
            if dims[k] != 0:
                dims[k] = rng.randint(1, 3)
        return dims
    n, p = size, 2
    factors = []
    while n > 1:
        while n % p == 0:
            factors.append(p)
            n //= p
        p += 1
    for f in factors:
        dims[rng.randrange(nd)] *= f
    return dims


def random_input():
    """A random base and a random view of it (mostly non-empty; None to retry)."""
    shape = rand_shape(4, 300)
    base = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    pre = rand_pre(shape)
    x = apply_pre(base, pre)
    if x.size == 0 and rng.random() < 0.85:
        x = None
    return shape, base, pre, x


def gen_reshape(count):
    cases = []
    while len(cases) < count:
        shape, base, pre, x = random_input()
        if x is None:
            continue
        new = factor_shape(x.size, rng.randint(1, 5))
        if rng.random() < 0.05:
            new[0] += 1  # wrong size: an error
        order = "F" if rng.random() < 0.25 else "C"
        if order == "C" and rng.random() < 0.25:
            new[rng.randrange(len(new))] = -1
        case = {"base": shape, "pre": pre, "new": new, "order": order}
        try:
            r = x.reshape(new, order=order)
        except ValueError:
            case["ok"] = False
        else:
            if r.size > 200:
                continue
            case["ok"] = True
            d = describe(r, base)
            if r.size > 0:
                case["view"] = bool(np.shares_memory(r, base))
                if not case["view"]:
                    del d["strides"], d["offset"]
            case.update(d)
        cases.append(case)
    return cases


def gen_merge_split(count):
    cases = []
    while len(cases) < count:
        shape, base, pre, x = random_input()
        if x is None:
            continue
        nd = x.ndim
        if rng.random() < 0.6:
            s, e = sorted([rng.randrange(nd), rng.randrange(nd)])
            if rng.random() < 0.5:
                s -= nd
            if rng.random() < 0.5:
                e -= nd
            ss, ee = s % nd, e % nd
            new = list(x.shape[:ss]) + [int(np.prod(x.shape[ss : ee + 1]))] + list(x.shape[ee + 1 :])
            case = {"base": shape, "pre": pre, "op": "merge", "start": s, "end": e}
        else:
            ax = rng.randrange(nd)
            parts = factor_shape(x.shape[ax], rng.randint(1, 3))
            sizes = list(parts)
            if x.shape[ax] > 0 and rng.random() < 0.5:
                sizes[rng.randrange(len(sizes))] = -1
            if rng.random() < 0.08:
                sizes[0] += 1  # does not fit: an error
            new = list(x.shape[:ax]) + parts + list(x.shape[ax + 1 :])
            if int(np.prod(sizes)) != x.shape[ax] and -1 not in sizes:
                new = None
            case = {"base": shape, "pre": pre, "op": "split", "axis": ax - (nd if rng.random() < 0.3 else 0), "sizes": sizes}
            if -1 in sizes:
                known = int(np.prod([v for v in sizes if v != -1]))
                if known == 0 or x.shape[ax] % known:
                    new = None
                else:
                    new = list(x.shape[:ax]) + [x.shape[ax] // known if v == -1 else v for v in sizes] + list(x.shape[ax + 1 :])
        if new is None:
            case["ok"] = False
            cases.append(case)
            continue
        r = x.reshape(new)
        view = r.size == 0 or bool(np.shares_memory(r, base))
        if case["op"] == "merge" and not view:
            case["ok"] = False  # merge_axes refuses to copy
        else:
            case["ok"] = True
            case.update(describe(r, base))
        cases.append(case)
    return cases


NAMES = "abcdefgh"


def gen_rearrange(count):
    cases = []
    while len(cases) < count:
        ne = rng.randint(1, 5)
        names = list(NAMES[:ne])
        sizes = {n: rng.randint(1, 4) for n in names}
        if rng.random() < 0.03:
            sizes[names[0]] = 0
        # Left grouping: split the names (in order) into consecutive groups.
        def groups_of(seq):
            gs, cur = [], []
            for n in seq:
                cur.append(n)
                if rng.random() < 0.55:
                    gs.append(cur)
                    cur = []
            if cur:
                gs.append(cur)
            return gs

        left = groups_of(names)
        perm = list(names)
        rng.shuffle(perm)
        right = groups_of(perm)
        if rng.random() < 0.2:
            right.insert(rng.randint(0, len(right)), ["1"])
        in_shape = [int(np.prod([sizes[n] for n in g])) for g in left]
        if int(np.prod(in_shape)) > 300:
            continue
        base_shape = in_shape[::-1] if rng.random() < 0.3 else list(in_shape)
        base = np.arange(int(np.prod(base_shape)), dtype=np.int64).reshape(base_shape)
        pre = []
        if base_shape != in_shape:
            pre.append(["perm", list(range(len(in_shape)))[::-1]])
        if rng.random() < 0.3:
            pre.append(["flip", rng.randrange(len(in_shape))])
        x = apply_pre(base, pre)
        assert list(x.shape) == in_shape

        def text(gs):
            return " ".join(g[0] if len(g) == 1 else "(" + " ".join(g) + ")" for g in gs)

        pattern = text(left) + " -> " + text(right)
        given = []
        for g in left:
            if len(g) > 1:
                # an unknown part can't be inferred next to a zero: give them all then
                drop = rng.choice(g) if all(sizes[n] for n in g) else None
                given += [[n, sizes[n]] for n in g if n != drop]
        if rng.random() < 0.2:
            n = rng.choice(names)
            if n not in [m for m, _ in given]:
                given.append([n, sizes[n]])
        elem = x.reshape([sizes[n] for n in names])
        p = elem.transpose([names.index(n) for n in perm])
        out_shape = [1 if g == ["1"] else int(np.prod([sizes[n] for n in g])) for g in right]
        r = p.reshape(out_shape)
        case = {"base": base_shape, "pre": pre, "pattern": pattern, "sizes": given, "ok": True}
        case.update(describe(r, base))
        if r.size > 0:
            case["view"] = bool(np.shares_memory(r, base))
            if not case["view"]:
                del case["strides"], case["offset"]
        cases.append(case)
    return cases


def write(name, cases):
    path = os.path.join(HERE, name)
    with open(path, "w") as f:
        f.write('{"numpy_version": "%s", "seed": %d, "cases": [\n' % (np.__version__, SEED))
        f.write(",\n".join(json.dumps(c, separators=(",", ":")) for c in cases))
        f.write("\n]}\n")
    print(name, len(cases), "cases,", os.path.getsize(path), "bytes")


if __name__ == "__main__":
    write("slicing.json", gen_slicing(2400))
    write("reshape.json", gen_reshape(1300) + gen_merge_split(500))
    write("rearrange.json", gen_rearrange(500))
