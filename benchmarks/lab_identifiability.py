"""Can the data tell the lab's constants? Per law of ``datasets/benchmarks/lab.tsv`` at 1 % noise
(the samples of ``benchmarks/lab_laws.py``), the law's own form refitted to the noisy sample, and:

- **Delta chi2**: (SSE at the law's written constants - SSE at the fit) / sigma^2, sigma^2 = SSE /
  (n - k) of the fit, beside the 95 % quantile of chi-square with k degrees of freedom: the law's
  constants lie in the joint 95 % region where it is smaller;
- **snapped**: the fitted constants snapped as superpos snaps a winner's
  (``snap_values(..., thorough=True)``), and whether they are the law's;
- **L law / L snapped**: the description length, in nats, of the law's constants and of the
  snapped ones (each number's code, ``number_code``, a free value as ``description.py`` counts it,
  plus Delta chi2 / 2): where the snapped set is shorter, the minimum-description-length rule
  that superpos follows prefers it to the law's three-digit constants on this sample.

This measures the data, not superpos's search: it assumes the law's form was found. A law whose
form superpos returned but whose constants it did not (``exact=0 form=1`` in lab_laws.py) is
either outside the joint region (the sample disagrees with the law's constants) or shorter to
write otherwise (9e9 for 8.99e9).

    python benchmarks/lab_identifiability.py
    python benchmarks/lab_identifiability.py --seed 1 --only coulomb arrhenius
"""
from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))


def study(p, seed: int, level: float) -> dict | None:
    from scipy.optimize import least_squares

    from lab_laws import _function, noisy, parameterised
    from superpos.symreg.snap_rules import SnapRun, chi2_95
    from superpos.symreg.snapping import snap_values

    tree, params, truth = parameterised(p.expr())
    if not params:
        return None
    g = _function(tree, params, p.n_variables)
    X, y = noisy(p, f"noise={level}", seed)
    truth = np.asarray(truth, dtype=float)

    def predict(v):
        with np.errstate(all="ignore"):
            return np.asarray(g(X, *v), dtype=float) * np.ones(y.size)

    fit = least_squares(lambda v: y - predict(v), truth, x_scale=np.maximum(np.abs(truth), 1e-300), method="lm",
                        xtol=1e-15, ftol=1e-15, gtol=1e-15, max_nfev=20000).x
    first = float(np.sum((y - predict(fit)) ** 2))
    k = len(truth)
    s2 = first / (y.size - k)
    law_sse = float(np.sum((y - predict(truth)) ** 2))
    snapped = snap_values(predict, y, fit, thorough=True)

    def sse(v) -> float:
        return float(np.sum((y - predict(v)) ** 2))

    # the description length the restarts compare (snap_rules.SnapRun.length), from the fit
    run = SnapRun(predict, sse, y, fit, first, s2, True, np.zeros(k), 0.1, 1e-5, 12, (), first)
    return dict(name=p.name, k=k, dchi2=(law_sse - first) / s2, bound=chi2_95(k),
                same=bool(np.allclose(snapped, truth, rtol=1e-9, atol=0)),
                law_length=run.length(truth, bounded=False), snapped_length=run.length(snapped, bounded=False),
                truth=truth, snapped=snapped)


def main() -> None:
    from superpos.datasets.problems import load_problems

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="+", default=None, help="these laws only (by name)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--noise", type=float, default=0.01)
    args = ap.parse_args()
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for p in load_problems("lab", names=args.only):
            r = study(p, args.seed, args.noise)
            if r is not None:
                rows.append(r)
    print(f"{'law':20s} {'k':>2s} {'dchi2':>8s} {'bound':>6s} {'in':>3s} {'L law':>7s} {'L snap':>7s} same  law -> snapped")
    for r in rows:
        law = ", ".join(f"{v:.4g}" for v in r["truth"])
        snap = ", ".join(f"{v:.4g}" for v in r["snapped"])
        print(f"{r['name']:20s} {r['k']:2d} {r['dchi2']:8.2f} {r['bound']:6.2f} {'yes' if r['dchi2'] <= r['bound'] else 'no':>3s} "
              f"{r['law_length']:7.2f} {r['snapped_length']:7.2f} {'yes' if r['same'] else 'no':>4s}  ({law}) -> ({snap})")
    inside = sum(r["dchi2"] <= r["bound"] for r in rows)
    same = sum(r["same"] for r in rows)
    shorter = sum((not r["same"]) and r["snapped_length"] < r["law_length"] for r in rows)
    print()
    print(f"{len(rows)} laws with constants; the law's constants inside the joint 95 % region: {inside}; "
          f"snapped to the law's constants: {same}; snapped elsewhere, to a set of shorter description: {shorter}")


if __name__ == "__main__":
    main()
