"""The edge test's numbers (superpos.symreg.edges): for each AI Feynman law, the winner's
status, whether it is the law, and its largest ratio of edge to interior error over the 2m
edges (refitted on the interior), with the largest edge error; clean or at SRBench noise.
Shows where right and wrong formulas fall against the tuning record's edge_ratio and edge_floor.

    python benchmarks/edge_ratios.py --noise 0.01 --first 40
"""
from __future__ import annotations

import argparse
import os
import warnings

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402


def main() -> None:
    from superpos.core.basis import Basis
    from superpos.datasets.problems import is_exact_recovery, load_problems, recovery_forms
    from superpos.symreg.edges import edge_errors
    from superpos.symreg.tuning import TUNING
    from superpos.symreg.pipeline import find_formula

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--noise", type=float, default=0.0)
    ap.add_argument("--first", type=int, default=120)
    args = ap.parse_args()
    print(f"edge_ratio {TUNING.edge_ratio}, edge_floor {TUNING.edge_floor:g}; noise {args.noise}")
    print("| law | status | is the law | max edge / interior | max edge error | formula |")
    print("|---|---|---|---:|---:|---|")
    rows = []
    for p in load_problems("feynman")[:args.first]:
        X, y = p.sample(random_state=0)
        rng = np.random.default_rng(sum(map(ord, p.name)))
        y = y + rng.normal(0.0, args.noise * np.sqrt(np.mean(y**2)), y.size)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            f = find_formula(X, y, None, random_state=0)
            e = edge_errors(f.tree, Basis(f.basis_names), X, y, f.constants, 40, 0)
            domain = {f"x{j + 1}": X[:, j] for j in range(X.shape[1])}
            try:
                law = any(is_exact_recovery(g, p.formula, positive=p.positive_variables, domain=domain)
                          for g in recovery_forms(f))
            except Exception:  # noqa: BLE001
                law = False
        ratio = float(np.max(e[:, 1] / np.maximum(e[:, 0], 1e-300))) if e.size else float("nan")
        rows.append((f.status, law, ratio))
        print(f"| {p.name} | {f.status} | {'yes' if law else 'no'} | {ratio:.3g} | {e[:, 1].max():.2e} | "
              f"{str(f.expr)[:60]} |", flush=True)
    for st in ("exact", "law", "approximation"):
        for law in (True, False):
            r = [x for s, lw, x in rows if s == st and lw == law]
            if r:
                print(f"status {st:13s} {'law' if law else 'not the law':12s} n={len(r):3d} "
                      f"max ratio {max(r):.3g}")


if __name__ == "__main__":
    main()
