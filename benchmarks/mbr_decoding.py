"""Maximum likelihood against minimum Bayes risk: which top-1 tree for seed 003's Hamming loss?

For every held-out data set, the top-1 tree of ``decode_best`` (the most likely tree, with
the model's size bonus) and of ``decode_mbr`` (the tree with the least expected Hamming loss
under the model's own distribution over trees, estimated on its ``--n-list`` most likely
trees): exact match, mean Hamming loss and tree size, overall and by true tree size.

    python benchmarks/structure_quality.py --n-train 100000 --save-model gp100k.npz --cache runs/
    python benchmarks/mbr_decoding.py --model gp100k.npz --test runs/test_1000.npz
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from superpos import Corpus, StructurePredictor
from superpos.decode import decode_mbr
from superpos.evaluate import SIZE_BUCKETS
from superpos.tree import hamming_loss


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", type=Path, required=True)
    ap.add_argument("--test", type=Path, required=True, help="held-out corpus (.npz)")
    ap.add_argument("--n-list", type=int, default=1000)
    args = ap.parse_args()
    model = StructurePredictor.load(args.model)
    test = Corpus.load(args.test)
    ar = model.basis_.arities
    L = model.log_theta(test.datasets)
    rows = []
    t = time.perf_counter()
    for b, true in enumerate(test.trees):
        best = model.decode(L[b], 1)[0][1]
        _, mbr = decode_mbr(L[b], ar, model.max_depth_, n_list=args.n_list)
        rows.append((true.size, np.array_equal(best, true), hamming_loss(best, true, ar), best.size,
                     np.array_equal(mbr, true), hamming_loss(mbr, true, ar), mbr.size))
    secs = (time.perf_counter() - t) / len(rows)
    r = np.array(rows, dtype=float)
    print(f"model {args.model} (context {model.context}, size bonus {model.size_bonus_}); "
          f"{len(rows)} test formulas; MBR over the {args.n_list} most likely trees, {1e3 * secs:.0f} ms per data set")
    print("| true nodes | formulas | ML exact | ML Hamming | ML nodes | MBR exact | MBR Hamming | MBR nodes |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, (lo, hi) in [("all", (0, 10**9))] + [(f"{lo}-{hi}", (lo, hi)) for lo, hi in SIZE_BUCKETS]:
        m = (r[:, 0] >= lo) & (r[:, 0] <= hi)
        if m.any():
            x = r[m].mean(axis=0)
            print(f"| {name} | {m.sum()} | {x[1]:.3f} | {x[2]:.2f} | {x[3]:.2f} | {x[4]:.3f} | {x[5]:.2f} | {x[6]:.2f} |")


if __name__ == "__main__":
    main()
