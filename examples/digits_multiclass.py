"""Multiclass S-SVM on scikit-learn's digits, against LinearSVC(crammer_singer).

The S-SVM objective with the 0-1 loss, 0.5 ||w||^2 + C sum_n max_y [1(y != y_n) + w_y x_n - w_{y_n} x_n],
is exactly LinearSVC(multi_class="crammer_singer", fit_intercept=False)'s, so both reach the same
optimum: the table shows each learner's objective relative to LinearSVC's, its test accuracy and
fit time (numba warmed; best of 3 runs, one BLAS thread). The perceptron has no C: its
"objective" is the S-SVM objective of its w, shown for completeness.

Run:  python examples/digits_multiclass.py
"""
from __future__ import annotations

import time

from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from sklearn.svm import LinearSVC
from threadpoolctl import threadpool_limits

from superpos.ssvm import (FrankWolfeSSVM, KernelSSVM, MulticlassModel, NSlackSSVM, OneSlackSSVM,
                           StructuredPerceptron, SubgradientSSVM, primal_objective)


def _best_time(fit, repeats=3):
    best, est = float("inf"), None
    for _ in range(repeats):
        t0 = time.perf_counter()
        est = fit()
        best = min(best, time.perf_counter() - t0)
    return best, est


def main(C: float = 0.1, repeats: int = 3) -> dict:
    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, random_state=0)
    model = MulticlassModel().initialize(Xtr, ytr)
    learners = {
        "OneSlackSSVM": lambda: OneSlackSSVM(MulticlassModel(), C=C, tol=1e-2),
        "FrankWolfeSSVM": lambda: FrankWolfeSSVM(MulticlassModel(), C=C, tol=1e-2, averaging=True, check_every=3,
                                                 random_state=0),
        "NSlackSSVM": lambda: NSlackSSVM(MulticlassModel(), C=C, tol=1e-2),
        "SubgradientSSVM": lambda: SubgradientSSVM(MulticlassModel(), C=C, max_iter=30, batch_size=32, random_state=0),
        "StructuredPerceptron": lambda: StructuredPerceptron(MulticlassModel(), max_iter=10, random_state=0),
    }
    out = {}
    with threadpool_limits(1):
        for name, make in learners.items():  # warm numba and caches
            make().fit(Xtr[:40], ytr[:40])
        t_ref, svc = _best_time(lambda: LinearSVC(multi_class="crammer_singer", fit_intercept=False, C=C).fit(Xtr, ytr),
                                repeats)
        obj_ref = primal_objective(model, Xtr, ytr, svc.coef_.ravel(), C)
        print(f"digits: {len(Xtr)} train / {len(Xte)} test, C = {C}")
        print(f"{'learner':<22} {'objective':>10} {'/ LinearSVC':>11} {'test acc':>9} {'fit (s)':>8} "
              f"{'x LinearSVC':>11}")
        acc_ref = svc.score(Xte, yte)
        print(f"{'LinearSVC(cs)':<22} {obj_ref:>10.4f} {1.0:>11.4f} {acc_ref:>9.4f} {t_ref:>8.4f} {1.0:>11.2f}")
        out["LinearSVC"] = (obj_ref, 1.0, svc.score(Xte, yte), t_ref, 1.0)
        for name, make in learners.items():
            t, est = _best_time(lambda: make().fit(Xtr, ytr), 1 if name == "NSlackSSVM" else repeats)
            obj = primal_objective(model, Xtr, ytr, est.w_, C)
            acc = est.score(Xte, yte)
            out[name] = (obj, obj / obj_ref, acc, t, t / t_ref)
            print(f"{name:<22} {obj:>10.4f} {obj / obj_ref:>11.4f} {acc:>9.4f} {t:>8.4f} {t / t_ref:>11.2f}")
        t, kd = _best_time(lambda: KernelSSVM(MulticlassModel(), C=10.0, kernel="rbf", kernel_params={"gamma": 0.05},
                                              tol=1e-2, random_state=0).fit(Xtr, ytr), 1)
        out["KernelSSVM(rbf)"] = (None, None, kd.score(Xte, yte), t, t / t_ref)
        print(f"{'KernelSSVM rbf C=10':<22} {'':>10} {'':>11} {kd.score(Xte, yte):>9.4f} {t:>8.4f} {t / t_ref:>11.2f}")
    return out


if __name__ == "__main__":
    main()
