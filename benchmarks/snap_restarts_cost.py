"""What the snapping restarts (``snap_values(..., thorough=True)``, the winner's final values)
cost: the first 12 AI Feynman laws of 4 or more inputs solved clean and at 1 % noise, each once
with the restarts and once without, back to back in one process; total seconds of
``find_formula`` and of all ``snap_values`` calls.

    python benchmarks/snap_restarts_cost.py
"""
from __future__ import annotations

import os
import time
import warnings

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402


def main() -> None:
    import superpos.symreg.pipeline as pipeline
    from superpos.datasets.problems import load_problems
    from superpos.symreg import snapping

    spent = {"s": 0.0}
    plain = snapping.snap_values

    def timed(*a, **k):
        t = time.perf_counter()
        try:
            return plain(*a, **k)
        finally:
            spent["s"] += time.perf_counter() - t

    snapping.snap_values = timed
    constants, parameters = pipeline.snap_constants, pipeline.snap_parameters
    problems = [p for p in load_problems("feynman") if p.n_variables >= 4][:12]
    for noise in (0.0, 0.01):
        total, snap = {False: 0.0, True: 0.0}, {False: 0.0, True: 0.0}
        for p in problems:
            X, y = p.sample(random_state=0)
            if noise:
                y = y + np.random.default_rng(0).normal(0.0, noise * np.sqrt(np.mean(y**2)), y.size)
            for thorough in (False, True):
                pipeline.snap_constants = lambda *a, t=thorough, **k: constants(*a, **{**k, "thorough": t})
                pipeline.snap_parameters = lambda *a, t=thorough, **k: parameters(*a, **{**k, "thorough": t})
                spent["s"] = 0.0
                t0 = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    pipeline.find_formula(X, y, None, random_state=0)
                total[thorough] += time.perf_counter() - t0
                snap[thorough] += spent["s"]
        print(f"noise {noise}: {len(problems)} laws; find_formula without / with restarts {total[False]:.2f} / "
              f"{total[True]:.2f} s; snap_values {snap[False]:.3f} / {snap[True]:.3f} s")


if __name__ == "__main__":
    main()
