"""Kernelised S-SVM dual (seed 004) for multiclass models, Psi(x, y) = x (x) e_y.

max_alpha sum_{n,y} alpha_ny Delta(y_n, y) - 1/2 sum alpha_ny alpha_my' Kbar^{nm}_{yy'}
s.t. alpha >= 0, sum_y alpha_ny <= C, with Kbar from k((x, y), (x', y')) = k(x, x') [y = y'].
In terms of beta_nk = [k = y_n] sum_y alpha_ny - alpha_nk the decision function is
f(x)_k = sum_n beta_nk k(x_n, x). Solved by exact block-coordinate ascent over samples
(one small simplex QP per sample, SMO kernel) with duality-gap stopping.
"""
from __future__ import annotations

import copy

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.metrics.pairwise import pairwise_kernels

from ...exceptions import SuperposError
from ..base import StructuredModel
from ._common import objective_value, per_label_accuracy
from ._qp import solve_simplex_qp

__all__ = ["KernelSSVM"]


class KernelSSVM(BaseEstimator):
    """Multiclass S-SVM in the dual with any scikit-learn pairwise kernel.

    The model must have Psi(x, y) = x (x) e_y over classes 0..K-1 (``MulticlassModel``);
    the learner uses it for the loss Delta(y, k) only. ``kernel`` is a name accepted by
    ``sklearn.metrics.pairwise.pairwise_kernels`` ("linear", "rbf", "poly", ...) or a callable;
    ``kernel_params`` are passed on. Fitted: ``dual_coef_`` (beta, (n, K)), ``X_fit_``,
    ``objective_curve_`` (primal per pass), ``n_iter_``.
    """

    def __init__(self, model, C: float = 1.0, kernel="rbf", kernel_params=None, max_iter: int = 100,
                 tol: float = 1e-3, random_state=None):
        self.model = model
        self.C = C
        self.kernel = kernel
        self.kernel_params = kernel_params
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def _kernel(self, A, B):
        return pairwise_kernels(A, B, metric=self.kernel, filter_params=True, **(self.kernel_params or {}))

    def fit(self, X, Y):
        if not isinstance(self.model, StructuredModel):
            raise SuperposError("model must be a superpos.ssvm.StructuredModel")
        if self.C <= 0:
            raise SuperposError("C must be > 0")
        if int(self.max_iter) < 1:
            raise SuperposError(f"max_iter must be >= 1, got {self.max_iter!r}")
        X = np.asarray(X, dtype=np.float64)
        Y = np.asarray(Y, dtype=np.int64)
        model = copy.deepcopy(self.model).initialize(X, Y)
        n, F = X.shape
        K = model.size_joint_feature // F
        if K * F != model.size_joint_feature:
            raise SuperposError("KernelSSVM needs a model with Psi(x, y) = x (x) e_y (MulticlassModel)")
        Delta = np.array([[model.loss(a, b) for b in range(K)] for a in range(K)])
        G = self._kernel(X, X)
        C = float(self.C)
        rng = np.random.default_rng(self.random_state)
        alpha = np.zeros((n, K))
        f = np.zeros((n, K))  # f[n, k] = sum_m beta_mk G[m, n]
        curve = []
        it = 0
        block = np.ones((K - 1, K - 1)) + np.eye(K - 1)
        for it in range(1, self.max_iter + 1):
            for i in rng.permutation(n):
                yi = Y[i]
                others = np.r_[0:yi, yi + 1:K]
                old = alpha[i, others]
                g = Delta[yi, others] + f[i, others] - f[i, yi]
                Kb = G[i, i] * block
                new, _ = solve_simplex_qp(Kb, g + Kb @ old, None, C, old, 1e-10 * max(1.0, C))
                d = new - old
                if not np.any(d):
                    continue
                alpha[i, others] = new
                dbeta = np.zeros(K)
                dbeta[others] = -d
                dbeta[yi] = d.sum()
                f += np.outer(G[:, i], dbeta)
            beta = -alpha
            beta[np.arange(n), Y] = alpha.sum(1)
            wnorm2 = float(np.sum(beta * f))
            hinge = np.max(Delta[Y] + f - f[np.arange(n), Y][:, None], axis=1)
            primal = objective_value(wnorm2, hinge, C)
            dual = float(np.sum(alpha * Delta[Y])) - 0.5 * wnorm2
            curve.append(primal)
            if primal - dual <= self.tol * abs(primal):
                break
        self.model_ = model
        self.X_fit_ = X
        self.dual_coef_ = beta
        self.objective_curve_ = np.array(curve)
        self.n_iter_ = it
        return self

    def decision_function(self, X) -> np.ndarray:
        if not hasattr(self, "dual_coef_"):
            raise SuperposError("this KernelSSVM is not fitted yet: call fit first")
        return self._kernel(np.asarray(X, dtype=np.float64), self.X_fit_) @ self.dual_coef_

    def predict(self, X) -> np.ndarray:
        return np.argmax(self.decision_function(X), axis=1)

    def score(self, X, Y) -> float:
        return per_label_accuracy(Y, self.predict(X))
