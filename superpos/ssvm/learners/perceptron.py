"""Structured perceptron (seed 001), with averaging."""
from __future__ import annotations

import numpy as np

from ._common import BaseSSVM

__all__ = ["StructuredPerceptron"]


class StructuredPerceptron(BaseSSVM):
    """w <- w + Psi(x_n, y_n) - Psi(x_n, y_hat) whenever y_hat = argmax_y <w, Psi(x_n, y)>
    has Delta(y_n, y_hat) > 0; stops after an epoch without mistakes.

    With ``average`` the returned w is the mean of w over all visited samples (Collins 2002).
    ``objective_curve_`` holds the training loss sum_n Delta(y_n, y_hat_n) of each epoch
    (the perceptron has no C). With ``warm_start`` a new fit starts from the previous w_.
    """

    def __init__(self, model, max_iter: int = 100, average: bool = True, shuffle: bool = True,
                 random_state=None, warm_start: bool = False):
        self.model = model
        self.max_iter = max_iter
        self.average = average
        self.shuffle = shuffle
        self.random_state = random_state
        self.warm_start = warm_start

    def _fit(self, model, X, Y):
        rng = np.random.default_rng(self.random_state)
        n = len(X)
        w = self._initial_w(model.size_joint_feature)
        # averaging trick: w_avg = w - u / c with u = sum of c_t * update_t
        u = np.zeros_like(w)
        c = 1
        curve = []
        epoch = 0
        for epoch in range(1, self.max_iter + 1):
            order = rng.permutation(n) if self.shuffle else np.arange(n)
            total = 0.0
            for i in order:
                y_hat = model.inference(X[i], w)
                loss = model.loss(Y[i], y_hat)
                if loss > 0:
                    delta = model.joint_feature(X[i], Y[i]) - model.joint_feature(X[i], y_hat)
                    w += delta
                    u += c * delta
                    total += loss
                c += 1
            curve.append(total)
            if total == 0:
                break
        w_out = w - u / c if self.average else w
        return w_out, curve, epoch
