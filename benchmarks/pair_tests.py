"""How often the pair test fires and how often it is right: a law read through one combination
of two inputs (x_i - x_j, x_i + x_j, x_i x_j, x_i / x_j; :func:`superpos.symreg.pairs.combined_pair`),
beside the gradient test of translations it backs up.

For each law of the benchmark sets named (one sample of 200 points, seed 0, as the honesty
benchmark draws it), clean and at 1 % noise (y += N(0, (0.01 rms y)^2)), both tests run on all
the points. A pair is *right* when the law does not change under the moves that keep the
combination (x_i + a and x_j + a for a difference, x_i + a and x_j - a for a sum, x_i k and
x_j / k for a product, x_i k and x_j k for a ratio; a = 0.37, k = 1.3, checked on the law's
expression at the sample's points to 1e-8 relative); every other pair it returns is a false
positive. The pipeline runs the pair test only where the gradient test finds no pair
(``alone``: those laws). Time per call.

Run:  python benchmarks/pair_tests.py --sets feynman separable_controls
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import sympy

from superpos.datasets import load_problems
from superpos.symreg.pairs import combined_pair
from superpos.symreg.translations import translations


def holds(p, X: np.ndarray, pair) -> bool:
    """Whether the law is unchanged under the moves that keep the pair's combination."""
    i, j, op = pair
    f = sympy.lambdify(sympy.symbols(f"x1:{X.shape[1] + 1}"), p.expr(), "numpy")
    Y = X.copy()
    if op == "-":
        Y[:, i] += 0.37
        Y[:, j] += 0.37
    elif op == "+":
        Y[:, i] += 0.37
        Y[:, j] -= 0.37
    elif op == "*":
        Y[:, i] *= 1.3
        Y[:, j] /= 1.3
    else:
        Y[:, i] *= 1.3
        Y[:, j] *= 1.3
    with np.errstate(all="ignore"):
        a, b = f(*X.T) * np.ones(len(X)), f(*Y.T) * np.ones(len(X))
    ok = np.isfinite(a) & np.isfinite(b)
    return bool(ok.sum() > 0.9 * len(X) and np.all(np.abs(a[ok] - b[ok]) <= 1e-8 * np.maximum(np.abs(a[ok]), 1e-300)))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", nargs="+", default=["feynman", "separable_controls"])
    args = ap.parse_args()
    rows = []
    for name in args.sets:
        for p in load_problems(name):
            X, y = p.sample(random_state=0)
            for noise in (0.0, 0.01):
                yy = y + np.random.default_rng(1).normal(0, noise * np.sqrt(np.mean(y**2)), y.size)
                t = time.perf_counter()
                pair = combined_pair(X, yy)
                sec = time.perf_counter() - t
                alone = translations(X, yy) is None
                right = pair is not None and holds(p, X, pair)
                rows.append((name, noise, pair is not None, right, alone, sec))
                shown = "-" if pair is None else f"x{pair[0] + 1} {pair[2]} x{pair[1] + 1}"
                print(f"{name:19s} {p.name:42s} noise={noise:<5} {'RIGHT' if right else ('FALSE' if pair else '     ')} "
                      f"{'alone' if alone else 'grad '} {sec * 1e3:6.1f} ms {shown}")
    print("\n| set | condition | laws | fired | right | false positives | fired where the gradient test finds none "
          "| right there | median ms |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for name in args.sets:
        for noise in (0.0, 0.01):
            r = [x for x in rows if x[0] == name and x[1] == noise]
            fired = sum(x[2] for x in r)
            right = sum(x[3] for x in r)
            alone = [x for x in r if x[4]]
            print(f"| {name} | {'clean' if noise == 0 else '1 % noise'} | {len(r)} | {fired} | {right} | {fired - right} "
                  f"| {sum(x[2] for x in alone)} | {sum(x[3] for x in alone)} | {1e3 * np.median([x[5] for x in r]):.1f} |")


if __name__ == "__main__":
    main()
