"""Streamed, resumable training (superpos.structure.streaming): the time of a shard corpus and
of one streamed epoch on this machine, to size a large retrain.

    python benchmarks/streamed_training.py [--n 10000] [--shard-size 5000] [--jobs 2]

Writes the corpus to a temporary folder (1-3 inputs over the default 3-variable basis, as the
shipped model), trains one epoch with a checkpoint after each shard, prints both times, the
edges seen and the chosen size bonus with its held-out exact match.
"""
from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from superpos import Basis, DatasetFeatures, StructurePredictor
from superpos.structure.corpus import write_corpus
from superpos.structure.streaming import fit_streamed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--shard-size", type=int, default=5_000)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    basis = Basis.default(n_variables=3)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "corpus"
        t = time.perf_counter()
        write_corpus(folder, basis, args.n, shard_size=args.shard_size, random_state=7, n_variables=(1, 3),
                     n_jobs=args.jobs)
        corpus_s = time.perf_counter() - t
        print(f"corpus: {args.n} formulas in {corpus_s:.0f} s", flush=True)
        model = StructurePredictor(basis=basis, random_state=0, n_jobs=args.jobs,
                                   features=DatasetFeatures(max_variables=3, n_jobs=args.jobs))
        t = time.perf_counter()
        fit_streamed(model, folder, epochs=1, checkpoint=Path(tmp) / "checkpoint.npz")
        fit_s = time.perf_counter() - t
    print(f"one streamed epoch (phi included): {fit_s:.0f} s, {model.n_edges_} edges, size bonus "
          f"{model.size_bonus_}, held-out exact match {model.validation_exact_match_:.3f}")
    print(f"per 1,000 formulas: corpus {1000 * corpus_s / args.n:.1f} s, epoch {1000 * fit_s / args.n:.1f} s")


if __name__ == "__main__":
    main()
