"""OneSlackSSVM against LinearSVC(crammer_singer) on digits: time to a relative primal gap of 1e-4.

Protocol: scikit-learn digits, pixels / 16, the 75/25 split of examples/digits_multiclass.py
(random_state=0), C = 0.1 (``--C``), one BLAS thread. The optimum p* is the S-SVM objective of
LinearSVC(multi_class="crammer_singer", fit_intercept=False, tol=1e-8). OneSlackSSVM runs with
tol=1e-4 (its certified relative duality gap) and its primal gap (p - p*) / p* is reported.
Both are warmed, then timed interleaved (LinearSVC, OneSlack, LinearSVC, ...) ``--runs`` times;
the table gives the medians and their ratio.

Run:  python benchmarks/oneslack_speed.py [--runs 11] [--C 0.1]
"""
from __future__ import annotations

import argparse
import platform
import time

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from sklearn.svm import LinearSVC
from threadpoolctl import threadpool_limits

from superpos.ssvm import MulticlassModel, OneSlackSSVM, primal_objective


def main(runs: int, C: float) -> None:
    X, y = load_digits(return_X_y=True)
    Xtr, _, ytr, _ = train_test_split(X / 16.0, y, test_size=0.25, random_state=0)
    model = MulticlassModel().initialize(Xtr, ytr)

    def svc():
        return LinearSVC(multi_class="crammer_singer", fit_intercept=False, C=C, tol=1e-8,
                         max_iter=100_000).fit(Xtr, ytr)

    def ssvm():
        return OneSlackSSVM(MulticlassModel(), C=C, tol=1e-4, max_iter=10_000).fit(Xtr, ytr)

    p_star = primal_objective(model, Xtr, ytr, svc().coef_.ravel(), C)
    est = ssvm()
    p = primal_objective(model, Xtr, ytr, est.w_, C)
    times = {"LinearSVC": [], "OneSlackSSVM": []}
    for _ in range(runs):
        for name, fit in (("LinearSVC", svc), ("OneSlackSSVM", ssvm)):
            t0 = time.perf_counter()
            fit()
            times[name].append(time.perf_counter() - t0)
    med = {k: float(np.median(v)) for k, v in times.items()}
    print(f"machine: {platform.processor() or platform.machine()}, python {platform.python_version()}")
    print(f"\ndigits train split ({len(ytr)} samples), C = {C}, {runs} interleaved warm runs, one BLAS thread\n")
    print("| learner | objective | relative gap to p* | iterations | median fit (s) | min (s) | x LinearSVC |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    print(f"| LinearSVC(crammer_singer, tol=1e-8) | {p_star:.6f} | 0 | - | {med['LinearSVC']:.4f} "
          f"| {min(times['LinearSVC']):.4f} | 1.00 |")
    print(f"| OneSlackSSVM(tol=1e-4) | {p:.6f} | {(p - p_star) / p_star:.2e} | {est.n_iter_} "
          f"| {med['OneSlackSSVM']:.4f} | {min(times['OneSlackSSVM']):.4f} "
          f"| {med['OneSlackSSVM'] / med['LinearSVC']:.2f} |")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--C", type=float, default=0.1)
    args = ap.parse_args()
    with threadpool_limits(1):
        main(args.runs, args.C)
