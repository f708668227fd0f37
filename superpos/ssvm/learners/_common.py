"""What every learner shares: the objective, prediction and the per-label score."""
from __future__ import annotations

import copy
from typing import Sequence

import numpy as np
from sklearn.base import BaseEstimator

from ...exceptions import SuperposError
from ..base import StructuredModel

__all__ = ["BaseSSVM", "primal_objective", "objective_value", "per_label_accuracy"]


def objective_value(w_norm2: float, hinges, C: float) -> float:
    """The S-SVM objective from its parts: 0.5 ||w||^2 + C sum_n max(hinge_n, 0), where
    hinge_n = max_y [Delta(y_n, y) + <w, Psi(x_n, y) - Psi(x_n, y_n)>] (>= 0 when the
    maximisation includes y_n; a sum of hinges may be passed as one number)."""
    return float(0.5 * w_norm2 + C * np.maximum(np.asarray(hinges, dtype=np.float64), 0.0).sum())


def primal_objective(model: StructuredModel, X: Sequence, Y: Sequence, w: np.ndarray, C: float,
                     Y_hat=None, psi_true_sum: np.ndarray | None = None) -> float:
    """0.5 ||w||^2 + C sum_n max_y [Delta(y_n, y) + <w, Psi(x_n, y) - Psi(x_n, y_n)>], by one
    batch of loss-augmented inference (or at the given ``Y_hat``); ``psi_true_sum`` caches
    sum_n Psi(x_n, y_n)."""
    if Y_hat is None:
        Y_hat = model.batch_loss_augmented_inference(X, Y, w)
    if psi_true_sum is None:
        psi_true_sum = model.sum_joint_feature(X, Y)
    hinge = model.batch_loss(Y, Y_hat).sum() + w @ (model.sum_joint_feature(X, Y_hat) - psi_true_sum)
    return objective_value(w @ w, hinge, C)


def per_label_accuracy(Y: Sequence, Y_hat: Sequence) -> float:
    """Correct labels / all labels, over every position of every output (scalar outputs
    count as one label; a prediction of another length scores its common prefix)."""
    right = total = 0
    for y, yh in zip(Y, Y_hat):
        y = np.atleast_1d(np.asarray(y))
        yh = np.atleast_1d(np.asarray(yh))
        k = min(y.size, yh.size)
        right += int(np.sum(y[:k] == yh[:k]))
        total += y.size
    return right / max(total, 1)


class BaseSSVM(BaseEstimator):
    """fit / predict / score around a structured model; subclasses implement ``_fit``."""

    def _prepare(self, X, Y):
        if not isinstance(self.model, StructuredModel):
            raise SuperposError("model must be a superpos.ssvm.StructuredModel")
        if len(X) != len(Y) or len(X) == 0:
            raise SuperposError(f"X and Y must be non-empty with the same length, got {len(X)} and {len(Y)}")
        if getattr(self, "C", 1.0) <= 0:
            raise SuperposError("C must be > 0")
        for name in ("max_iter", "check_every", "batch_size"):
            if int(getattr(self, name, 1)) < 1:
                raise SuperposError(f"{name} must be >= 1, got {getattr(self, name)!r}")
        if not isinstance(X, np.ndarray):
            X = list(X)
        if not isinstance(Y, np.ndarray):
            Y = list(Y)
        model = copy.deepcopy(self.model).initialize(X, Y)
        return model, X, Y

    def _initial_w(self, d: int) -> np.ndarray:
        """The previous fit's w_ when ``warm_start`` is set and the sizes agree, else zeros."""
        w = getattr(self, "w_", None)
        if getattr(self, "warm_start", False) and w is not None and w.size == d:
            return w.copy()
        return np.zeros(d)

    def fit(self, X, Y):
        """Learn w from training pairs; returns self."""
        model, X, Y = self._prepare(X, Y)
        w, curve, n_iter = self._fit(model, X, Y)
        self.model_ = model
        self.w_ = w
        self.objective_curve_ = np.asarray(curve, dtype=np.float64)
        self.n_iter_ = n_iter
        # with approximate inference (loopy graphs) the duality gap that stopped the learner is approximate
        self.exact_inference_ = bool(getattr(model, "exact_inference_", True))
        self.inference_stats_ = getattr(model, "inference_stats_", None)
        return self

    def _check_fitted(self):
        if not hasattr(self, "w_"):
            raise SuperposError(f"this {type(self).__name__} is not fitted yet: call fit first")

    def predict(self, X) -> list:
        """argmax_y <w_, Psi(x, y)> for each x."""
        self._check_fitted()
        if not isinstance(X, np.ndarray):
            X = list(X)
        return self.model_.batch_inference(X, self.w_)

    def score(self, X, Y) -> float:
        """Mean per-label accuracy."""
        return per_label_accuracy(Y, self.predict(X))

    def objective(self, X, Y) -> float:
        """The S-SVM objective of w_ on (X, Y) with this learner's C."""
        self._check_fitted()
        return primal_objective(self.model_, X if isinstance(X, np.ndarray) else list(X),
                                Y if isinstance(Y, np.ndarray) else list(Y), self.w_, getattr(self, "C", 1.0))
