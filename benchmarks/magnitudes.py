"""A law is a law at any scale: y = x^2 * 10^e and y = 2 x with x = u * 10^e, u uniform on
[1, 3], for exponents from 1e-300 to 1e250; prints the formula found, R^2 on the data and
seconds per fit (search_rounds=0, 100 points, seed 0).

    python benchmarks/magnitudes.py [--exponents -300 -160 ... 250]
"""
from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

from superpos.core.numeric import r2
from superpos.symreg.pipeline import find_formula


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--exponents", type=int, nargs="+",
                    default=[-300, -200, -160, -150, -100, -30, 30, 100, 150, 200, 250])
    args = ap.parse_args()
    u = np.random.default_rng(0).uniform(1, 3, (100, 1))
    print(f"{'law':10s} {'e':>5s} {'R^2':>10s} {'s':>6s}  formula")
    for e in args.exponents:
        for law, X, y in (("x^2*10^e", u, u[:, 0] ** 2 * 10.0 ** e), ("2x, x*10^e", u * 10.0 ** e, 2 * u[:, 0] * 10.0 ** e)):
            t = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                f = find_formula(X, y, search_rounds=0, random_state=0)
                score = r2(y, f.predict(X))
            print(f"{law:10s} {e:5d} {score:10.6f} {time.perf_counter() - t:6.2f}  {f.expr}", flush=True)


if __name__ == "__main__":
    main()
