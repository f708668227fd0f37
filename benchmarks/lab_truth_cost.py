"""Where the lab benchmark's 1 % noise misses stand against the law's own constants: for each
law below, every call of the snapping (:func:`superpos.symreg.snapping.snap_values`) made while
``superpos predict`` solves the benchmark's data (``benchmarks/lab_laws.py``, seed 0) is
shown with the unsnapped fit, the snapped values returned and, where the law's constants are
written in that call's parameters, the law's values: each with Delta SSE / sigma^2 from the
unsnapped fit (sigma^2 = SSE / (n - p) there), its code length in nats
(:func:`~superpos.core.constants.number_code`, 50 for a free value) and their sum code +
Delta SSE / (2 sigma^2), which the snapping minimises.

    python benchmarks/lab_truth_cost.py
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))

TRUTHS = {  # law -> {snapping call: the law's constants in that call's parameters}
    "pareto_tail": {0: [0.35, -2.16]},
    "fish_weight": {0: [0.0123, 3.05]},
    "gompertz_tumour": {0: [2100, 7.6, 0.05, 0]},
    "decay_background": {0: [15, 1200, 0.0866]},
    "gauss_spectrum": {0: [1500, 550, 12, 20]},
    "tanh_step": {0: [3, 4.4, 0.8, -1.1], 2: [1.5, 2.2, 0.8, 0.4]},
    "logistic_growth": {1: [1000, 99, 0.8, 0]},
    "arrhenius": {2: [2.6e6, -6010]},
}


def main() -> None:
    import superpos.symreg.snapping as snapping
    from lab_laws import noisy
    from superpos.core.constants import number_code
    from superpos.datasets.problems import load_problems
    from superpos.symreg.pipeline import find_formula

    original = snapping.snap_values
    for name, truths in TRUTHS.items():
        p = load_problems("lab", names=[name])[0]
        X, y = noisy(p, "noise=0.01", 0)
        calls: list = []

        def logged(predict, y, values, **kw):
            out = original(predict, y, values, **kw)
            v = np.asarray(values, dtype=float)

            def sse(c):
                return float(np.sum((y - predict(np.asarray(c, dtype=float))) ** 2))

            s0 = sse(v)
            s2 = s0 / (y.size - v.size)
            rows = [("unsnapped", v), ("returned", out)]
            if len(calls) in truths:
                rows.append(("law", np.asarray(truths[len(calls)], dtype=float)))
            for label, c in rows:
                code = sum(50.0 if number_code(float(q)) is None else number_code(float(q)) for q in c)
                d = (sse(c) - s0) / s2
                print(f"{name:17s} call {len(calls)} {label:9s} {np.array2string(np.asarray(c), precision=6):52s} "
                      f"dSSE/s2 {d:8.2f}  code {code:6.2f}  sum {code + d / 2:7.2f}")
            calls.append(1)
            return out

        snapping.snap_values = logged
        try:
            f = find_formula(X, y, None, random_state=0)
        finally:
            snapping.snap_values = original
        print(f"{name:17s} law {p.formula}  returned {f.shown([f'x{k + 1}' for k in range(X.shape[1])])}\n")


if __name__ == "__main__":
    main()
