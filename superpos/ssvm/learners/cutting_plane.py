"""Cutting-plane S-SVM learners (seed 004): n-slack and 1-slack, with a working set.

Primal: min_w 0.5 ||w||^2 + C sum_n xi_n, xi_n >= Delta(y_n, y) - <w, Psi(x_n, y_n) - Psi(x_n, y)>.
Each iteration calls the loss-augmented oracle on every sample with the current w, adds the
most violated constraints to the working set, and solves the working-set dual
max b . alpha - ||A' alpha||^2 / 2 (alpha >= 0, per-slack budget C) by SMO; w = A' alpha.
The working-set dual is a lower bound and the primal at w an upper bound on the optimum,
so the relative duality gap certifies convergence (with exact inference; with approximate
inference on loopy graphs both bounds, and so the gap, are approximate). With ``warm_start``
the first oracle calls use the previous w_, whose primal objective also starts the record of
the best w.
"""
from __future__ import annotations

import numpy as np

from ._common import BaseSSVM, objective_value
from ._qp import WorkingSet

__all__ = ["NSlackSSVM", "OneSlackSSVM"]


class _CuttingPlane(BaseSSVM):
    def __init__(self, model, C: float = 1.0, max_iter: int = 500, tol: float = 1e-3,
                 inactive_threshold: float = 1e-5, inactive_window: int = 50, verbose: int = 0,
                 warm_start: bool = False):
        self.model = model
        self.C = C
        self.max_iter = max_iter
        self.tol = tol
        self.inactive_threshold = inactive_threshold
        self.inactive_window = inactive_window
        self.verbose = verbose
        self.warm_start = warm_start


class OneSlackSSVM(_CuttingPlane):
    """1-slack cutting plane (Joachims, Finley & Yu 2009).

    One constraint per iteration: <w, a> >= b - xi with a = sum_n Psi(x_n, y_n) - Psi(x_n, y_hat_n)
    and b = sum_n Delta(y_n, y_hat_n), one slack xi (dual budget sum alpha <= C). Stops when the
    relative duality gap (best primal - working-set dual) / best primal <= ``tol``; returns the
    w with the best primal objective. ``objective_curve_``: primal objective per iteration.
    """

    def _fit(self, model, X, Y):
        C = float(self.C)
        d = model.size_joint_feature
        psi_true = model.sum_joint_feature(X, Y)
        ws = WorkingSet(d)
        w = self._initial_w(d)
        best, w_best = np.inf, w
        dual = 0.0
        curve = []
        it = 0
        for it in range(1, self.max_iter + 1):
            Yh = model.batch_loss_augmented_inference(X, Y, w)
            a = psi_true - model.sum_joint_feature(X, Yh)
            b = float(model.batch_loss(Y, Yh).sum())
            primal = objective_value(w @ w, b - w @ a, C)
            curve.append(primal)
            if primal < best:
                best, w_best = primal, w
            if self.verbose:
                print(f"iter {it}: primal {primal:.6g} dual {dual:.6g} constraints {ws.m}")
            if best - dual <= self.tol * abs(best) or b - w @ a <= 0:
                break
            ws.add(a[None, :], np.array([b]), np.zeros(1, np.int64))
            dual = ws.solve(C, 1e-3 * self.tol * max(best, 1e-12) / C)
            w = ws.w()
            ws.prune(self.inactive_threshold, self.inactive_window)
        return w_best.copy(), curve, it


class NSlackSSVM(_CuttingPlane):
    """n-slack cutting plane (Tsochantaridis et al. 2005): one slack per sample.

    Each iteration adds, for every sample whose hinge exceeds its current slack by more than
    ``tol`` times the mean loss, the constraint of its loss-augmented output, then re-solves
    the dual (per-sample budgets sum_y alpha_ny <= C). Stops when nothing is added or the
    relative duality gap is <= ``tol``. ``objective_curve_``: primal objective per iteration.
    The working set keeps its Gram matrix: memory grows as (number of constraints)^2, so
    this learner suits small problems; prefer OneSlackSSVM or FrankWolfeSSVM at scale.
    """

    def _fit(self, model, X, Y):
        C = float(self.C)
        n = len(X)
        d = model.size_joint_feature
        psi_true = model.batch_joint_feature(X, Y)
        ws = WorkingSet(d)
        w = self._initial_w(d)
        best, w_best = np.inf, w
        dual = 0.0
        curve = []
        it = 0
        for it in range(1, self.max_iter + 1):
            Yh = model.batch_loss_augmented_inference(X, Y, w)
            delta = model.batch_loss(Y, Yh)
            A = psi_true - model.batch_joint_feature(X, Yh)
            hinge = delta - A @ w
            primal = objective_value(w @ w, hinge, C)
            curve.append(primal)
            if primal < best:
                best, w_best = primal, w
            if self.verbose:
                print(f"iter {it}: primal {primal:.6g} dual {dual:.6g} constraints {ws.m}")
            if best - dual <= self.tol * abs(best):
                break
            xi = np.zeros(n)
            if ws.m:
                m = ws.m
                margins = ws.b[:m] - ws.A[:m] @ w
                np.maximum.at(xi, ws.group[:m], margins)
            scale = max(delta.mean(), 1e-12) if delta.size else 1.0
            new = np.nonzero((hinge - xi > self.tol * scale) & (delta > 0))[0]
            if new.size == 0:
                break
            ws.add(A[new], delta[new], new.astype(np.int64))
            dual = ws.solve(C, 0.1 * self.tol * max(best, 1e-12) / (C * n))
            w = ws.w()
            ws.prune(self.inactive_threshold, self.inactive_window)
        return w_best.copy(), curve, it
