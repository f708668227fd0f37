"""Multiclass model: Psi(x, y) = x (x) e_y, so <w, Psi(x, y)> = w_y . x with w = (K, F) rows."""
from __future__ import annotations

import numpy as np

from ...exceptions import SuperposError
from ..base import StructuredModel

__all__ = ["MulticlassModel"]


class MulticlassModel(StructuredModel):
    """Crammer-Singer multiclass as a structured model.

    Psi(x, y) = x (x) e_y (w reshaped (K, F) holds one weight row per class); the loss is
    0-1 or ``cost[y, y_hat]`` from a user matrix (zero diagonal). Both oracles are closed
    form: argmax_k w_k . x and argmax_k cost[y, k] + w_k . x. With the 0-1 loss the S-SVM
    objective is the one of ``LinearSVC(multi_class="crammer_singer", fit_intercept=False)``.

    Parameters
    ----------
    n_classes : number of classes (default: max label + 1 of the training data).
    cost : optional (K, K) cost matrix, cost[y, y_hat] >= 0, cost[y, y] = 0.
    """

    def __init__(self, n_classes: int | None = None, cost=None):
        self.n_classes = n_classes
        self.cost = cost

    def initialize(self, X, Y) -> "MulticlassModel":
        X = np.asarray(X, dtype=np.float64)
        Y = np.asarray(Y)
        if X.ndim != 2 or Y.ndim != 1 or X.shape[0] != Y.shape[0]:
            raise SuperposError(f"X must be (n, F) and Y (n,), got {X.shape} and {Y.shape}")
        if Y.size and (Y.min() < 0 or not np.issubdtype(Y.dtype, np.integer)):
            raise SuperposError("class labels must be integers 0..K-1")
        K = self.n_classes if self.n_classes is not None else int(Y.max()) + 1
        if self.cost is not None:
            cost = np.asarray(self.cost, dtype=np.float64)
            if cost.ndim != 2 or cost.shape[0] != cost.shape[1] or np.any(np.diag(cost) != 0) or np.any(cost < 0):
                raise SuperposError("cost must be a square matrix >= 0 with a zero diagonal")
            K = max(K, cost.shape[0]) if self.n_classes is None else K
            if cost.shape[0] != K:
                raise SuperposError(f"cost matrix is {cost.shape}, expected ({K}, {K})")
        else:
            cost = 1.0 - np.eye(K)
        if Y.size and Y.max() >= K:
            raise SuperposError(f"label {Y.max()} out of range for {K} classes")
        self.n_classes_ = K
        self.n_features_ = X.shape[1]
        self.cost_ = cost
        self.size_joint_feature = K * X.shape[1]
        return self

    def _W(self, w) -> np.ndarray:
        return np.asarray(w, dtype=np.float64).reshape(self.n_classes_, self.n_features_)

    def joint_feature(self, x, y) -> np.ndarray:
        out = np.zeros((self.n_classes_, self.n_features_))
        out[int(y)] = x
        return out.ravel()

    def inference(self, x, w) -> int:
        return int(np.argmax(self._W(w) @ np.asarray(x, dtype=np.float64)))

    def loss(self, y, y_hat) -> float:
        return float(self.cost_[int(y), int(y_hat)])

    def loss_augmented_inference(self, x, y, w) -> int:
        return int(np.argmax(self._W(w) @ np.asarray(x, dtype=np.float64) + self.cost_[int(y)]))

    # --- vectorised batch oracles ---------------------------------------------------------
    def batch_joint_feature(self, X, Y) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        out = np.zeros((X.shape[0], self.n_classes_, self.n_features_))
        out[np.arange(X.shape[0]), np.asarray(Y, dtype=np.int64)] = X
        return out.reshape(X.shape[0], -1)

    def sum_joint_feature(self, X, Y) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        E = np.zeros((X.shape[0], self.n_classes_))
        E[np.arange(X.shape[0]), np.asarray(Y, dtype=np.int64)] = 1.0
        return (E.T @ X).ravel()

    def batch_inference(self, X, w) -> np.ndarray:
        return np.argmax(np.asarray(X, dtype=np.float64) @ self._W(w).T, axis=1)

    def batch_loss(self, Y, Y_hat) -> np.ndarray:
        return self.cost_[np.asarray(Y, dtype=np.int64), np.asarray(Y_hat, dtype=np.int64)]

    def batch_loss_augmented_inference(self, X, Y, w) -> np.ndarray:
        scores = np.asarray(X, dtype=np.float64) @ self._W(w).T
        scores += self.cost_[np.asarray(Y, dtype=np.int64)]
        return np.argmax(scores, axis=1)

    def output_table(self, X, Y):
        """Rows Psi(x_n, k) = x_n in block k for every class k (CSR), with the losses cost[y_n, k]."""
        from scipy.sparse import csr_matrix

        X = np.asarray(X, dtype=np.float64)
        Y = np.asarray(Y, dtype=np.int64)
        n, F = X.shape
        K = self.n_classes_
        data = np.repeat(X[:, None, :], K, axis=1).ravel()
        indices = np.tile(np.arange(K * F), n)
        indptr = np.arange(0, n * K * F + 1, F)
        Psi = csr_matrix((data, indices, indptr), shape=(n * K, K * F))
        offsets = np.arange(0, n * K + 1, K)
        return Psi, offsets, offsets[:-1] + Y, self.cost_[Y].ravel().copy()

    def enumerate_outputs(self, x):
        return range(self.n_classes_)
