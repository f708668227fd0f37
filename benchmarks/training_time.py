"""Training time of StructurePredictor against corpus size, by stage.

Generates (or reads from --cache) a 1-variable corpus of the largest size and trains the
default predictor on its first N formulas for each N: seconds for the feature map phi,
the classifier (the default MLP) and the choice of the size bonus, and the total.

    python benchmarks/training_time.py --sizes 5000 20000 50000 100000 --jobs 2 --cache runs/
"""
from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from superpos import Basis, Corpus, DatasetFeatures, StructurePredictor, generate_corpus


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[2000, 5000, 20000])
    ap.add_argument("--jobs", type=int, default=1, help="workers for corpus generation and features")
    ap.add_argument("--cache", type=Path, default=None, help="folder to keep the generated corpus in")
    args = ap.parse_args()
    n = max(args.sizes)
    path = args.cache / f"train_{n}.npz" if args.cache else None
    if path is not None and path.is_file():
        corpus = Corpus.load(path)
    else:
        corpus = generate_corpus(Basis.default(1), n, random_state=1, n_jobs=args.jobs)
        if path is not None:
            corpus.save(path)
    print(f"{os.cpu_count()} cores; default context and classifier; features on {args.jobs} job(s)")
    print("| formulas | edges | features s | classifier s | size bonus s | total s |")
    print("|---:|---:|---:|---:|---:|---:|")
    for size in sorted(args.sizes):
        part = corpus.subset(slice(0, size))
        marks: dict[str, float] = {}

        def progress(stage: str, done: int, total) -> None:
            marks.setdefault(stage.split(" (")[0], time.perf_counter())

        t0 = time.perf_counter()
        m = StructurePredictor(random_state=0, features=DatasetFeatures(max_variables=1, n_jobs=args.jobs))
        m.fit(part, progress=progress)
        t1 = time.perf_counter()
        feat = marks["classifier"] - t0
        clf = marks["size bonus"] - marks["classifier"]
        bonus = t1 - marks["size bonus"]
        print(f"| {size} | {m.n_edges_} | {feat:.1f} | {clf:.1f} | {bonus:.1f} | {t1 - t0:.1f} |", flush=True)


if __name__ == "__main__":
    main()
