"""The AI Feynman benchmark (Udrescu & Tegmark 2020; 120 equations, the paper's ranges, 200
points, noise 0) with the recovery protocol of benchmarks/recovery.py: exact recovery, R^2 on
1,000 fresh points and on 1,000 beyond the sampled ranges (each widened by a quarter, in log
space where positive), the status, seconds of `find_formula` per problem; a table by number
of variables.

    python benchmarks/feynman.py [--jobs 2]
"""
from __future__ import annotations

import argparse
import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402


def main() -> None:
    from joblib import Parallel, delayed

    from superpos.datasets.problems import load_problems, solve_problem
    from superpos.symreg.settings import FormulaSettings

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args()
    probs = load_problems("feynman")
    settings = FormulaSettings(random_state=args.seed)
    rows = Parallel(n_jobs=args.jobs)(delayed(solve_problem)(None, p, settings, args.seed) for p in probs)
    for p, r in zip(probs, rows):
        print(f"{p.name:10s} m={p.n_variables} {'EXACT' if r.exact else '     '} R2={r.r2:.5f} "
              f"beyond={r.r2_beyond:.4f} {r.status:13s} {r.seconds:6.2f}s {r.formula[:90]}")
    print("\n| variables | equations | exact | R^2 > 0.99 | median R^2 beyond | status exact / law / approximation "
          "| median s |")
    print("|---|---:|---:|---:|---:|---|---:|")
    groups = [("1", [1]), ("2", [2]), ("3", [3]), ("4-5", [4, 5]), ("6-9", [6, 7, 8, 9]), ("all", list(range(1, 21)))]
    for label, ms in groups:
        sel = [r for p, r in zip(probs, rows) if p.n_variables in ms]
        if sel:
            print(f"| {label} | {len(sel)} | {sum(r.exact for r in sel)} ({100 * np.mean([r.exact for r in sel]):.0f} %) "
                  f"| {sum(r.r2 > 0.99 for r in sel)} ({100 * np.mean([r.r2 > 0.99 for r in sel]):.0f} %) "
                  f"| {np.nanmedian([r.r2_beyond for r in sel]):.4f} "
                  f"| {' / '.join(str(sum(r.status == s for r in sel)) for s in ('exact', 'law', 'approximation'))} "
                  f"| {np.median([r.seconds for r in sel]):.2f} |")


if __name__ == "__main__":
    main()
