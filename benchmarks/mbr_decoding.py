"""Maximum likelihood against minimum Bayes risk: which top-1 tree for seed 003's Hamming loss?

For every held-out data set, the top-1 tree of ``decode_best`` (the most likely tree, with
the model's size bonus) and of ``decode_mbr`` (the tree with the least expected Hamming loss
under the model's own distribution over trees, estimated on its 1,000 most likely
trees; ``structure_metrics(..., decision="mbr")``, ``superpos evaluate --mbr``): exact
match, mean Hamming loss and tree size, overall and by true tree size.

    python benchmarks/structure_quality.py --n-train 100000 --save-model gp100k.npz --cache runs/
    python benchmarks/mbr_decoding.py --model gp100k.npz --test runs/test_1000.npz
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

from superpos import Corpus, StructurePredictor
from superpos.evaluate import structure_metrics


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", type=Path, required=True)
    ap.add_argument("--test", type=Path, required=True, help="held-out corpus (.npz)")
    args = ap.parse_args()
    model = StructurePredictor.load(args.model)
    test = Corpus.load(args.test)
    t = time.perf_counter()
    ml = structure_metrics(model, test, k=10)
    t_ml = time.perf_counter() - t
    mbr = structure_metrics(model, test, k=10, decision="mbr")
    t_mbr = time.perf_counter() - t - t_ml
    print(f"model {args.model} (context {model.context}, size bonus {model.size_bonus_}); {len(test)} test "
          f"formulas; {1e3 * t_ml / len(test):.0f} ms (ML) and {1e3 * t_mbr / len(test):.0f} ms (MBR) per data set")
    print("| true nodes | formulas | ML exact | ML Hamming | ML nodes | MBR exact | MBR Hamming | MBR nodes |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for key, a in ml.items():
        b = mbr[key]
        if a["n"]:
            print(f"| {key} | {a['n']} | {a['top1']:.3f} | {a['hamming']:.2f} | {a['pred_size']:.2f} "
                  f"| {b['top1']:.3f} | {b['hamming']:.2f} | {b['pred_size']:.2f} |")

if __name__ == "__main__":
    main()
