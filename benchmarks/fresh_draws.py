"""One law on fresh draws: how often ``find_formula`` returns it exactly over several samples
and noise draws, not only on the benchmark's own (a change made while looking at one draw is
measured on others). Compare two versions of the code by running it twice, once with
PYTHONPATH=<a worktree of the other commit>.

    python benchmarks/fresh_draws.py --law "exp(-(x2 - x3)**2/(2*x1**2))/(sqrt(2*pi)*x1)" \
        --ranges 1:3 1:3 1:3 --seeds 30-37 --noise 0.01

Per seed: points drawn uniformly from the ranges (200 by default), noise of ``--noise`` times
the rms of y; exact where the formula equals the law to 1e-9 at every point (constants
snapped to the law's own values).
"""
from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import sympy


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--law", required=True, help="the law over x1..xm")
    ap.add_argument("--ranges", nargs="+", required=True, help="lo:hi per input")
    ap.add_argument("--seeds", default="0-7", help="first-last")
    ap.add_argument("--noise", type=float, default=0.0)
    ap.add_argument("--n", type=int, default=200)
    args = ap.parse_args()

    import superpos
    from superpos.core.formula import parse_formula
    from superpos.symreg.pipeline import find_formula

    ranges = [tuple(float(v) for v in r.split(":")) for r in args.ranges]
    xs = sympy.symbols(f"x1:{len(ranges) + 1}")
    law = parse_formula(args.law)
    f_law = sympy.lambdify(xs, law.xreplace({s: sympy.Symbol(s.name) for s in law.free_symbols}), "numpy")
    first, last = (int(v) for v in args.seeds.split("-"))
    print(f"superpos from {superpos.__file__}; law {law}; ranges {ranges}; noise {args.noise}; n {args.n}")
    exact = 0
    for seed in range(first, last + 1):
        rng = np.random.default_rng(seed)
        X = np.column_stack([rng.uniform(lo, hi, args.n) for lo, hi in ranges])
        y0 = np.asarray(f_law(*X.T), dtype=np.float64)
        y = y0 + rng.normal(0, args.noise * np.sqrt(np.mean(y0**2)), args.n) if args.noise else y0
        t = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            f = find_formula(X, y, random_state=0)
        seconds = time.perf_counter() - t
        diff = f.expr - law
        g = sympy.lambdify(xs, diff.xreplace({s: sympy.Symbol(s.name) for s in diff.free_symbols}), "numpy")
        with np.errstate(all="ignore"):
            ok = bool(np.all(np.abs(np.broadcast_to(g(*X.T), (args.n,))) < 1e-9))
        exact += ok
        print(f"seed {seed:3d} {'EXACT' if ok else '     '} {f.status:13s} {seconds:6.2f}s {f.expr}", flush=True)
    print(f"exact {exact} of {last - first + 1}")


if __name__ == "__main__":
    main()
