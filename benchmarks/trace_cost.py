"""What the search trace costs: the seconds of ``find_formula`` spent building the trace (the
selection's record, :func:`superpos.symreg.pipeline._trace`, timed; the engine's per-step
bookkeeping, a StepTrace and a minimum over the pool per step, timed by
``superpos.symreg.engine._least_error``) against the whole call, on laws of every set's kind.

    python benchmarks/trace_cost.py
"""
from __future__ import annotations

import os
import time
import warnings

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

LAWS = [("hard", "sum_cos_exp"), ("hard", "gauss_peak"), ("hard", "cobb_douglas"), ("feynman", "I.6.2b"),
        ("feynman", "II.6.15a"), ("nguyen", "Nguyen-7"), ("separable", None), ("lab", None)]


def main() -> None:
    from superpos.datasets.problems import load_problems
    from superpos.symreg import engine, pipeline

    spent = {"trace": 0.0, "steps": 0.0}
    build, least = pipeline._trace, engine._least_error

    def timed_trace(*a, **k):
        t = time.perf_counter()
        try:
            return build(*a, **k)
        finally:
            spent["trace"] += time.perf_counter() - t

    def timed_least(pool):
        t = time.perf_counter()
        try:
            return least(pool)
        finally:
            spent["steps"] += time.perf_counter() - t

    pipeline._trace, engine._least_error = timed_trace, timed_least
    print("| set | law | call s | trace s | steps s | share |\n|---|---|---:|---:|---:|---:|")
    total = traced = 0.0
    for set_, name in LAWS:
        p = next(q for q in load_problems(set_) if name is None or q.name == name)
        X, y = p.sample(random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pipeline.find_formula(X, y, random_state=0)  # compile and warm
            spent.update(trace=0.0, steps=0.0)
            t = time.perf_counter()
            pipeline.find_formula(X, y, random_state=0)
            sec = time.perf_counter() - t
        cost = spent["trace"] + spent["steps"]
        total, traced = total + sec, traced + cost
        print(f"| {set_} | {p.name} | {sec:.3f} | {spent['trace']:.4f} | {spent['steps']:.4f} | {cost / sec:.2%} |")
    print(f"| all | | {total:.3f} | | | {traced / total:.2%} |")


if __name__ == "__main__":
    main()
