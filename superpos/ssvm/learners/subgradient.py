"""Stochastic subgradient descent on the regularised structured hinge (seeds 000 / 002)."""
from __future__ import annotations

import numpy as np

from ..base import take
from ._common import BaseSSVM, primal_objective

__all__ = ["SubgradientSSVM"]


class SubgradientSSVM(BaseSSVM):
    """Pegasos-style SGD on F(w) = 0.5 ||w||^2 + C sum_n H_n(w).

    Step t on a mini-batch B: y_hat_n = loss-augmented argmax, g = w + (C n / |B|)
    sum_{n in B} [Psi(x_n, y_hat_n) - Psi(x_n, y_n)], w <- w - eta_t g with eta_t = 1 / (t + t0)
    (F is 1-strongly convex). With ``averaging`` the output is the weighted average
    w_bar <- (1 - rho) w_bar + rho w, rho = 2 / (t + 1) (Lacoste-Julien et al. 2012).
    ``objective_curve_`` holds F of the returned w after each epoch. With ``warm_start`` a new
    fit starts from the previous w_ and goes on with its step count ``t_``.
    """

    def __init__(self, model, C: float = 1.0, max_iter: int = 50, batch_size: int = 1, t0: float = 1.0,
                 averaging: bool = True, tol: float = 0.0, shuffle: bool = True, random_state=None,
                 warm_start: bool = False):
        self.model = model
        self.C = C
        self.max_iter = max_iter
        self.batch_size = batch_size
        self.t0 = t0
        self.averaging = averaging
        self.tol = tol
        self.shuffle = shuffle
        self.random_state = random_state
        self.warm_start = warm_start

    def _fit(self, model, X, Y):
        rng = np.random.default_rng(self.random_state)
        n = len(X)
        C = float(self.C)
        bs = max(1, int(self.batch_size))
        w = self._initial_w(model.size_joint_feature)
        w_bar = w.copy()
        t = getattr(self, "t_", 0) if self.warm_start and hasattr(self, "w_") else 0
        curve = []
        epoch = 0
        for epoch in range(1, self.max_iter + 1):
            order = rng.permutation(n) if self.shuffle else np.arange(n)
            for s in range(0, n, bs):
                idx = order[s:s + bs]
                t += 1
                if bs == 1:
                    i = idx[0]
                    y_hat = model.loss_augmented_inference(X[i], Y[i], w)
                    delta = model.joint_feature(X[i], y_hat) - model.joint_feature(X[i], Y[i])
                else:
                    Xb, Yb = take(X, idx), take(Y, idx)
                    Yh = model.batch_loss_augmented_inference(Xb, Yb, w)
                    delta = model.sum_joint_feature(Xb, Yh) - model.sum_joint_feature(Xb, Yb)
                eta = 1.0 / (t + self.t0)
                w *= 1.0 - eta
                w -= eta * (C * n / idx.size) * delta
                rho = 2.0 / (t + 1.0)
                w_bar *= 1.0 - rho
                w_bar += rho * w
            out = w_bar if self.averaging else w
            curve.append(primal_objective(model, X, Y, out, C))
            if self.tol > 0 and len(curve) > 1 and abs(curve[-2] - curve[-1]) <= self.tol * abs(curve[-1]):
                break
        self.t_ = t
        return (w_bar if self.averaging else w).copy(), curve, epoch
