"""Corpus generation rate against n_jobs (formulas per second), and the speed-up.

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
    generate_corpus(basis, 50, random_state=0)  # warm imports and numba
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
