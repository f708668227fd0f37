"""Decoding time per data set on the AI Feynman benchmark (200 points, noise 0): the seconds of
the structure model's part of `find_formula` -- log theta for the shown points and the k-best
decoding with its candidate list (`proposers.model.propose_skeletons`) -- summed over every view of the
data and every reduction the pipeline decodes, with the number of such decodes.

    python benchmarks/decode_time.py [--jobs 2]
"""
from __future__ import annotations

import argparse
import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402


def one(problem) -> tuple[int, float, int]:
    """(variables, seconds decoding, decodes) for one equation."""
    import time
    import warnings

    import superpos.symreg.pipeline as pipeline
    import superpos.symreg.proposers.model as proposer
    from superpos.structure.shipped import load_predictor

    model = load_predictor(None)
    spent = [0.0, 0]
    theta, propose = model.log_theta_for, proposer.propose_skeletons

    def timed(f, count):
        def g(*a, **k):
            t = time.perf_counter()
            try:
                return f(*a, **k)
            finally:
                spent[0] += time.perf_counter() - t
                spent[1] += count
        return g

    model.log_theta_for = timed(theta, 1)
    proposer.propose_skeletons = timed(propose, 0)
    X, y = problem.sample(random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pipeline.find_formula(X, y, model, random_state=0)
    proposer.propose_skeletons = propose
    return problem.n_variables, spent[0], spent[1]


def main() -> None:
    from joblib import Parallel, delayed

    from superpos.datasets.problems import load_problems

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args()
    probs = load_problems("feynman")
    one(probs[0])  # compile the kernels once per process before timing
    rows = Parallel(n_jobs=args.jobs)(delayed(one)(p) for p in probs)
    print("| variables | equations | decoding ms per data set: median | max | decodes: median | max | ms per decode: median |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for label, ms in (("1-3", (1, 2, 3)), ("4-9", tuple(range(4, 10))), ("all", tuple(range(1, 10)))):
        sel = [r for r in rows if r[0] in ms]
        d = 1e3 * np.array([r[1] for r in sel])
        c = np.array([r[2] for r in sel])
        print(f"| {label} | {len(sel)} | {np.median(d):.0f} | {d.max():.0f} | {np.median(c):.0f} | {c.max()} | "
              f"{np.median(d / np.maximum(c, 1)):.1f} |")


if __name__ == "__main__":
    main()
