"""How often the product test of a y that changes sign fires and how often it is right:
y = f(x_A) g(x_B) with factors that may change sign
(:func:`superpos.symreg.separable.signed_products`; the log test covers a y of one sign).

For each law of the benchmark sets named whose sample changes sign (one sample of 200 points,
seed 0, as the honesty benchmark draws it), clean and at 1 % noise (y += N(0, (0.01 rms y)^2)),
the test runs on all the points. A split (two groups, or more where rival splits refined it) is
*right* when the law is a product over it: for each group A and the other inputs B,
f(a, b) f(a', b') = f(a, b') f(a', b) for each point (a, b) and the next one (a', b') of the
sample, checked on the law's expression to 1e-8 relative; every other split it returns is a
false positive. Time per call.

Run:  python benchmarks/signed_products.py --sets feynman separable separable_controls composed hard
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import sympy

from superpos.datasets import load_problems
from superpos.symreg.separable import signed_products


def holds(p, X: np.ndarray, parts: tuple) -> bool:
    """Whether the law is a product of functions of the groups ``parts``: for each group A and
    the other inputs B, f(a, b) f(a', b') = f(a, b') f(a', b)."""
    f = sympy.lambdify(sympy.symbols(f"x1:{X.shape[1] + 1}"), p.expr(), "numpy")
    R = np.roll(X, 1, axis=0)
    for A in parts:
        B = [j for j in range(X.shape[1]) if j not in A]
        XA, XB = X.copy(), R.copy()  # (a, b') and (a', b)
        XA[:, B] = R[:, B]
        XB[:, B] = X[:, B]
        with np.errstate(all="ignore"):
            v = [f(*Z.T) * np.ones(len(X)) for Z in (X, R, XA, XB)]
        lhs, rhs = v[0] * v[1], v[2] * v[3]
        ok = np.isfinite(lhs) & np.isfinite(rhs)
        scale = np.maximum(np.abs(lhs[ok]), np.abs(rhs[ok]))
        if not (ok.sum() > 0.9 * len(X) and np.all(np.abs(lhs[ok] - rhs[ok]) <= 1e-8 * np.maximum(scale, 1e-300))):
            return False
    return True


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", nargs="+", default=["feynman", "separable", "separable_controls", "composed", "hard"])
    args = ap.parse_args()
    rows = []
    for name in args.sets:
        for p in load_problems(name):
            X, y = p.sample(random_state=0)
            if not (y.min() < 0 < y.max()):
                continue
            for noise in (0.0, 0.01):
                yy = y + np.random.default_rng(1).normal(0, noise * np.sqrt(np.mean(y**2)), y.size)
                t = time.perf_counter()
                found = signed_products(X, yy)
                sec = time.perf_counter() - t
                right = bool(found) and holds(p, X, found[0].parts)
                rows.append((name, noise, bool(found), right, sec))
                shown = "-" if not found else " | ".join(",".join(f"x{j + 1}" for j in g) for g in found[0].parts)
                print(f"{name:19s} {p.name[:40]:40s} noise={noise:<5} {'RIGHT' if right else ('FALSE' if found else '     ')} "
                      f"{sec * 1e3:7.1f} ms {shown}", flush=True)
    print("\n| set | condition | laws whose y changes sign | fired | right | false positives | median ms |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for name in args.sets:
        for noise in (0.0, 0.01):
            r = [x for x in rows if x[0] == name and x[1] == noise]
            if r:
                fired, right = sum(x[2] for x in r), sum(x[3] for x in r)
                print(f"| {name} | {'clean' if noise == 0 else '1 % noise'} | {len(r)} | {fired} | {right} | {fired - right} "
                      f"| {1e3 * np.median([x[4] for x in r]):.1f} |")


if __name__ == "__main__":
    main()
