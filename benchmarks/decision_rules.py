"""Which top-1 tree for seed 003's Hamming loss? The decision rules side by side.

For every held-out data set the top-1 tree is, by decision rule
(``structure_metrics(..., decision=...)``, ``superpos evaluate --decision ...``):

- ``ml``: the most likely tree under theta (``decode_best``, with the model's size bonus);
- ``mbr``: the tree of least expected Hamming loss under the model's own distribution over
  trees, estimated on its 1,000 most likely trees (``decode_mbr``);
- ``fit``: the formula ``superpos predict`` finds: the ``--top-k`` most likely skeletons
  (and, with ``--search-rounds``, their single-edit neighbours) get their constants fitted
  to the data, the best on held-out points wins; its canonical tree is compared.

Prints exact match, mean Hamming loss and tree size, overall and by true tree size, and the
milliseconds per data set of each rule.

    python benchmarks/structure_quality.py --n-train 100000 --save-model gp100k.npz --cache runs/
    python benchmarks/decision_rules.py --model gp100k.npz --test runs/test_1000.npz --search-rounds 0 2
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

from superpos import Corpus, StructurePredictor
from superpos.structure.metrics import structure_metrics


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", type=Path, required=True)
    ap.add_argument("--test", type=Path, required=True, help="held-out corpus (.npz)")
    ap.add_argument("--n", type=int, default=None, help="only the first n test formulas")
    ap.add_argument("--top-k", type=int, default=200, help="fit: candidate skeletons per data set")
    ap.add_argument("--search-rounds", type=int, nargs="+", default=[0], help="fit: rounds of local search (one row each)")
    ap.add_argument("--skip", nargs="*", default=[], choices=["ml", "mbr", "fit"])
    args = ap.parse_args()
    model = StructurePredictor.load(args.model)
    test = Corpus.load(args.test)
    if args.n:
        test = test.subset(slice(0, args.n))
    rules = [("ml", "ml", None), ("mbr", "mbr", None)]
    rules += [(f"fit (k = {args.top_k}, search {r})", "fit", dict(top_k=args.top_k, search_rounds=r))
              for r in args.search_rounds]
    print(f"model {args.model} (context {model.context}, size bonus {model.size_bonus_}); {len(test)} test formulas")
    print("| decision | true nodes | formulas | exact | Hamming | predicted nodes | ms per data set |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for name, decision, opts in rules:
        if decision in args.skip:
            continue
        t = time.perf_counter()
        res = structure_metrics(model, test, k=1, decision=decision, fit_options=opts)
        ms = 1e3 * (time.perf_counter() - t) / len(test)
        for key, a in res.items():
            if a["n"]:
                print(f"| {name} | {key} | {a['n']} | {a['top1']:.3f} | {a['hamming']:.2f} | {a['pred_size']:.2f} "
                      f"| {ms:.0f} |", flush=True)


if __name__ == "__main__":
    main()
