"""Structure-prediction quality on held-out generated formulas (issue 2's measure).

Trains StructurePredictor on corpora of growing size and evaluates on 1,000 held-out
formulas of the same prior (1 variable, depth <= 5, <= 12 nodes): skeleton exact match
at top-1 and top-10, the seed's edge Hamming loss, tree size, by true tree size and per
context mode. Prints markdown tables.

    python benchmarks/structure_quality.py                       # the README's figures
    python benchmarks/structure_quality.py --n-train 2000 5000   # a quick look
"""
from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path

import numpy as np

from superpos import Basis, Corpus, DatasetFeatures, StructurePredictor, generate_corpus
from superpos.structure.metrics import structure_metrics


def corpus(path: Path | None, basis, n, seed, jobs):
    if path is not None and path.exists():
        c = Corpus.load(path)
        if len(c) >= n:
            return c.subset(slice(0, n)) if len(c) > n else c
    t = time.perf_counter()
    c = generate_corpus(basis, n, random_state=seed, n_jobs=jobs)
    print(f"generated {n} formulas (seed {seed}) in {time.perf_counter() - t:.1f} s on {jobs} jobs", flush=True)
    if path is not None:
        c.save(path)
    return c


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n-train", type=int, nargs="+", default=[5000, 20000, 100000])
    ap.add_argument("--n-test", type=int, default=1000)
    ap.add_argument("--contexts", nargs="+", default=["grandparent+parent+position+depth", "parent",
                                                       "parent+position+depth"],
                    help="context modes at the largest corpus; the first one runs first")
    ap.add_argument("--curve-context", default="grandparent+parent+position+depth",
                    help="context mode for the learning curve (smaller corpora)")
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--cache", type=Path, default=None, help="folder to keep the generated corpora in")
    ap.add_argument("--save-model", type=Path, default=None, help="save the largest curve-context model here")
    args = ap.parse_args()

    basis = Basis.default(n_variables=1)
    if args.cache:
        args.cache.mkdir(parents=True, exist_ok=True)
    n_max = max(args.n_train)
    train = corpus(args.cache / f"train_{n_max}.npz" if args.cache else None, basis, n_max, 1, args.jobs)
    test = corpus(args.cache / f"test_{args.n_test}.npz" if args.cache else None, basis, args.n_test, 2, args.jobs)
    print(f"\nmachine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"test: {len(test)} formulas, mean size {np.mean([t.size for t in test.trees]):.2f} nodes\n")

    runs = [(n_max, args.contexts[0])] + [(n, args.curve_context) for n in sorted(args.n_train) if n < n_max]
    runs += [(n_max, c) for c in args.contexts[1:]]
    results = []
    for n, ctx in runs:
        t = time.perf_counter()
        model = StructurePredictor(basis=basis, context=ctx, random_state=0, n_jobs=args.jobs,
                                   features=DatasetFeatures(max_variables=1, n_jobs=args.jobs))
        model.fit(train.subset(slice(0, n)) if n < len(train) else train)
        fit_s = time.perf_counter() - t
        t = time.perf_counter()
        m = structure_metrics(model, test, k=args.k)
        eval_s = time.perf_counter() - t
        results.append((n, ctx, fit_s, eval_s, model.size_bonus_, m))
        a = m["all"]
        print(f"{ctx:36s} n={n:7d} fit {fit_s:7.1f} s  top1 {a['top1']:.3f}  top{args.k} {a['topk']:.3f}  "
              f"hamming {a['hamming']:.2f}  size {a['pred_size']:.2f}/{a['true_size']:.2f}  "
              f"bonus {model.size_bonus_}", flush=True)
        if args.save_model and n == n_max and ctx == args.curve_context:
            model.save(args.save_model)

    print(f"\n| context | train formulas | fit s | size bonus | top-1 | top-{args.k} | Hamming | pred/true size |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for n, ctx, fit_s, _, bonus, m in results:
        a = m["all"]
        print(f"| {ctx} | {n} | {fit_s:.0f} | {bonus} | {a['top1']:.3f} | {a['topk']:.3f} | {a['hamming']:.2f} | "
              f"{a['pred_size']:.2f}/{a['true_size']:.2f} |")
    print(f"\nBy true tree size (train {n_max}):\n")
    print(f"| context | nodes | formulas | top-1 | top-{args.k} | Hamming | size error |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for n, ctx, _, _, _, m in results:
        if n != n_max:
            continue
        for key in ("1-4", "5-7", "8-12"):
            b = m[key]
            if b["n"]:
                print(f"| {ctx} | {key} | {b['n']} | {b['top1']:.3f} | {b['topk']:.3f} | {b['hamming']:.2f} | "
                      f"{b['size_error']:+.2f} |")


if __name__ == "__main__":
    main()
