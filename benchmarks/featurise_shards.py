"""Featurise a folder of corpus shards, reporting the peak memory (as corpus_memory.py).

For a folder that ``write_corpus`` did not finish (no ``manifest.json``: the run stopped),
a manifest listing the finished ``part-*.npz`` shards is written first (``--basis-variables``
gives the basis they were generated over). Used for the 960,905-formula row of
benchmarks/README.md:

    python benchmarks/featurise_shards.py DIR/corpus --out DIR/phi.npy --jobs 2
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from corpus_memory import PeakRSS, report
from superpos import Basis
from superpos.structure.corpus import write_manifest
from superpos.structure.features import DatasetFeatures, write_features


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder", type=Path)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--basis-variables", type=int, default=1)
    args = ap.parse_args()
    if not (args.folder / "manifest.json").is_file():
        shards = []
        for f in sorted(args.folder.glob("part-*.npz")):
            with np.load(f, allow_pickle=False) as z:
                shards.append({"file": f.name, "n": len(z["tree_offsets"]) - 1})
        write_manifest(args.folder, Basis.default(args.basis_variables), shards)
        print(f"wrote a manifest for {len(shards)} finished shards, {sum(s['n'] for s in shards)} formulas",
              flush=True)
    with PeakRSS() as mem:
        t = time.perf_counter()
        phi = write_features(args.folder, args.out, DatasetFeatures(max_variables=args.basis_variables,
                                                                    n_jobs=args.jobs),
                             progress=report("featurised", mem))
        secs = time.perf_counter() - t
    print(f"featurised {phi.shape[0]} data sets ({phi.shape[1]} features) in {secs:.0f} s, "
          f"{phi.shape[0] / secs:.0f} /s; peak RSS (process + workers) {mem.peak / 2**30:.2f} GiB; "
          f"{args.out.stat().st_size / 2**30:.2f} GiB on disk", flush=True)


if __name__ == "__main__":
    main()
