"""Corpus generation rate against n_jobs (formulas per second), and the speed-up.

The worker pool is started and warmed before timing (a pool is started once per session
and reused by joblib).

    python benchmarks/corpus_rate.py --n 4000
"""
from __future__ import annotations

import argparse
import os
import time

from superpos import Basis, generate_corpus


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=4000)
    ap.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--variables", type=int, default=1)
    args = ap.parse_args()
    basis = Basis.default(args.variables)
    for j in args.jobs:  # warm imports, numba and the worker pool (loky keeps it between calls)
        generate_corpus(basis, 200 * j, random_state=0, n_jobs=j, chunk_size=100)
    print(f"{os.cpu_count()} cores; {args.n} formulas, {args.variables} variable(s)")
    print("| n_jobs | seconds | formulas / s | speed-up |")
    print("|---:|---:|---:|---:|")
    base = None
    for j in args.jobs:
        t = time.perf_counter()
        generate_corpus(basis, args.n, random_state=1, n_jobs=j, n_variables=(1, args.variables))
        s = time.perf_counter() - t
        base = base or s
        print(f"| {j} | {s:.1f} | {args.n / s:.0f} | {base / s:.2f}x |", flush=True)


if __name__ == "__main__":
    main()
