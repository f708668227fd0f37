"""Predict latency of the shipped model, broken down (one data set, one core, warm).

One data set of 200 points, 1 variable (y = 1.5 sin(x1) + x1^2 on [-3, 3]); the model is
loaded and warmed first. Stages: feature map phi, the batched predict_proba over all
contexts (log theta), k-best decoding alone, then inside SuperposRegressor.fit the
constant fitting and selection of the k candidates, the refit of the winner on all
points, sympy simplification, and the whole fit (which includes log theta and
decoding), for k = 1, 10, 200 (the default), and k = 200 with two rounds of local search
(the command line's default). Medians of 20 runs.

    python benchmarks/predict_latency.py [--noise 0.01]

Clean data let the fit stop early (a candidate exact to 1e-10 skips local search, the units
pass, the reductions and the sums of terms); ``--noise`` measures the full path.
"""
from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from superpos import SuperposRegressor  # noqa: E402
from superpos.structure.shipped import load_predictor  # noqa: E402


def median_ms(f, n=20) -> float:
    f()
    times = []
    for _ in range(n):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return 1e3 * float(np.median(times))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--noise", type=float, default=0.0, help="y += N(0, noise * rms(y)) (SRBench's gamma)")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    X = rng.uniform(-3, 3, size=(200, 1))
    y = 1.5 * np.sin(X[:, 0]) + X[:, 0] ** 2
    y = y + rng.normal(0.0, args.noise * np.sqrt(np.mean(y**2)), y.size)
    model = load_predictor(None)
    phi = median_ms(lambda: model.features_.transform([(X, y)]))
    theta = median_ms(lambda: model.log_theta([(X, y)]))
    L = model.log_theta([(X, y)])[0]
    print(f"model: context {model.context}, max depth {model.max_depth_}, |H| = {len(model.basis_)}")
    print("| k | search rounds | phi ms | log theta ms (incl. phi) | decode ms | candidates: fit + select ms | winner: refit ms "
          "| simplify ms | SuperposRegressor.fit ms (total) |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for k, rounds in ((1, 0), (10, 0), (200, 0), (200, 2)):
        dec = median_ms(lambda: model.decode(L, k))
        reg = SuperposRegressor(predictor=model, top_k=k, search_rounds=rounds, random_state=0)
        parts = []

        def run():
            reg.fit(X, y)
            parts.append(reg.timings_)

        total = median_ms(run, n=20)
        med = {key: 1e3 * float(np.median([p[key] for p in parts])) for key in parts[0]}
        print(f"| {k} | {rounds} | {phi:.2f} | {theta:.2f} | {dec:.2f} | {med['fit_candidates']:.1f} | {med['refit']:.1f} "
              f"| {med['simplify']:.1f} | {total:.1f} |")

if __name__ == "__main__":
    main()
