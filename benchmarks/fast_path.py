"""The fast path (issue 24's protocol): ``SuperposRegressor(search_rounds=0)``, default k, warm,
200 points on [0.1, 3] of x^2 + sin x, x e^-x, cos x + x, 2 sqrt|x|, x^3 - x, five fits each
(25 in all, each law on its own seeded sample); the median of the 25 fit times, per law and
overall, and the median seconds per stage. Pin one core: ``taskset -c 0``.

    taskset -c 0 python benchmarks/fast_path.py [--selection validation mdl best]
"""
from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402

LAWS = {
    "x^2 + sin x": lambda x: x**2 + np.sin(x),
    "x e^-x": lambda x: x * np.exp(-x),
    "cos x + x": lambda x: np.cos(x) + x,
    "2 sqrt|x|": lambda x: 2 * np.sqrt(np.abs(x)),
    "x^3 - x": lambda x: x**3 - x,
}


def main() -> None:
    from superpos import SuperposRegressor
    from superpos.structure.shipped import load_predictor
    from superpos.symreg.settings import FormulaSettings

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--selection", nargs="+", default=[None])
    ap.add_argument("--fits", type=int, default=5)
    args = ap.parse_args()
    model = load_predictor(None)
    data = {name: np.random.default_rng(k).uniform(0.1, 3.0, (200, 1)) for k, name in enumerate(LAWS)}
    has_rule = "selection" in FormulaSettings.__dataclass_fields__
    print("| selection | law | median ms | formula | status |")
    print("|---|---|---:|---|---|")
    for rule in args.selection:
        opts = {"selection": rule} if rule and has_rule else {}
        allt, stages = [], []
        for name, f in LAWS.items():
            X = data[name]
            y = f(X[:, 0])
            reg = SuperposRegressor(predictor=model, search_rounds=0, random_state=0, **opts)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                reg.fit(X, y)  # warm: compiled kernels and caches
                times = []
                for _ in range(args.fits):
                    t = time.perf_counter()
                    reg.fit(X, y)
                    times.append(time.perf_counter() - t)
                    stages.append(reg.timings_)
            allt += times
            print(f"| {rule or 'default'} | {name} | {1e3 * np.median(times):.1f} | {reg.expr_} "
                  f"| {getattr(reg, 'status_', '-')} |")
        per = {k: 1e3 * float(np.median([s.get(k, 0.0) for s in stages])) for k in stages[0]}
        print(f"| {rule or 'default'} | **all ({len(allt)} fits)** | **{1e3 * np.median(allt):.1f}** | stages ms: "
              + ", ".join(f"{k} {v:.1f}" for k, v in per.items()) + " | |")


if __name__ == "__main__":
    main()
