"""Cost of exact k-best decoding against k (one core).

Random log-probability tensors over the default basis (|H| = 17 with x1..x1, max depth 5),
for the default context (grandparent + parent + position + depth, shape (5, 17, 17, 2, 17))
and parent + position + depth ((5, 1, 17, 2, 17)); the best of a few rounds per k.

    python benchmarks/kbest_cost.py
"""
from __future__ import annotations

import os

os.environ["NUMBA_NUM_THREADS"] = "1"

import time  # noqa: E402

import numpy as np  # noqa: E402

from superpos import Basis  # noqa: E402
from superpos.structure.decode import decode_kbest  # noqa: E402


def main() -> None:
    basis = Basis.default(1)
    H, D = len(basis), 5
    rng = np.random.default_rng(0)
    shapes = {"grandparent+parent+position+depth": (D, H, H, 2, H), "parent+position+depth": (D, 1, H, 2, H)}
    print("| context | k | ms per decode | trees returned |")
    print("|---|---:|---:|---:|")
    for name, shape in shapes.items():
        logits = rng.normal(size=shape) * 2
        L = logits - np.log(np.exp(logits).sum(axis=-1, keepdims=True))
        L[..., 0] = -np.inf
        for k in (1, 10, 100, 1000):
            decode_kbest(L, basis.arities, D, k)
            best = np.inf
            for _ in range(3):
                t = time.perf_counter()
                res = decode_kbest(L, basis.arities, D, k)
                best = min(best, time.perf_counter() - t)
            print(f"| {name} | {k} | {best * 1e3:.2f} | {len(res)} |")


if __name__ == "__main__":
    main()
