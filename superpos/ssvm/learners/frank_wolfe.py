"""Block-coordinate Frank-Wolfe on the S-SVM dual (Lacoste-Julien, Jaggi, Schmidt & Pletscher 2013)."""
from __future__ import annotations

import numpy as np

from ... import _kernels
from ..base import take
from ._common import BaseSSVM, primal_objective

__all__ = ["FrankWolfeSSVM"]


class FrankWolfeSSVM(BaseSSVM):
    """BCFW with exact line search, in the units of 0.5 ||w||^2 + C sum_n H_n(w).

    Each sample n keeps its dual block (w_n, L_n) with w = sum_n w_n, L = sum_n L_n; the dual
    value is L - 0.5 ||w||^2. A step on sample n calls the loss-augmented oracle, forms the
    corner w_s = C [Psi(x_n, y_n) - Psi(x_n, y_hat)], L_s = C Delta(y_n, y_hat), the block gap
    g = <w, w_n - w_s> - L_n + L_s and moves (w_n, L_n) towards (w_s, L_s) by
    gamma = clip(g / ||w_n - w_s||^2, 0, 1) (Lacoste-Julien et al. 2013, Algorithm 4).

    With ``batch_size`` b > 1 the oracles run vectorised on b samples at once: each sample
    gets its own gamma_n as above, and the combined direction sum_n gamma_n (w_s - w_n) is
    scaled by an exact line search t in [0, 1 / max gamma_n] (so b = 1 is plain BCFW and
    the dual still increases monotonically). After every ``check_every`` passes the exact
    duality gap, primal of the returned w (one batch oracle call) minus the dual, is
    compared with ``tol`` times the primal.
    ``averaging`` returns the weighted average of the iterates (rho = 2 / (k + 2)).
    Models that tabulate their outputs (``output_table``, e.g. multiclass) run each pass
    of plain BCFW (b = 1) in one compiled kernel.
    ``objective_curve_``: primal objective of the returned w per check.
    """

    def __init__(self, model, C: float = 1.0, max_iter: int = 100, tol: float = 1e-3, batch_size: int = 1,
                 averaging: bool = False, check_every: int = 1, random_state=None, verbose: int = 0):
        self.model = model
        self.C = C
        self.max_iter = max_iter
        self.tol = tol
        self.batch_size = batch_size
        self.averaging = averaging
        self.check_every = check_every
        self.random_state = random_state
        self.verbose = verbose

    def _fit(self, model, X, Y):
        rng = np.random.default_rng(self.random_state)
        C = float(self.C)
        n = len(X)
        d = model.size_joint_feature
        bs = max(1, int(self.batch_size))
        st = {"w": np.zeros(d), "L": 0.0, "Ln": np.zeros(n), "w_avg": np.zeros(d), "k": 0}
        psi_sum = model.sum_joint_feature(X, Y)
        table = model.output_table(X, Y) if bs == 1 else None
        if table is not None:
            step = self._table_pass_factory(table, st, d)
        elif bs == 1:
            st["Wn"] = np.zeros((n, d))  # explicit dual blocks w_n
            step = self._oracle_pass
        else:  # shuffle once, then blocks are contiguous slices (views, no copies)
            st["Wn"] = np.zeros((n, d))
            perm = rng.permutation(n)
            X, Y = take(X, perm), take(Y, perm)
            st["psi_true"] = model.batch_joint_feature(X, Y)
            step = self._batch_pass
        curve = []
        it = 0
        for it in range(1, self.max_iter + 1):
            step(model, X, Y, C, st, rng)
            if it % self.check_every == 0 or it == self.max_iter:
                w = st["w"]
                # the primal of the returned w (averaged or not) bounds the optimum from above
                primal = primal_objective(model, X, Y, st["w_avg"] if self.averaging else w, C, psi_true_sum=psi_sum)
                dual = st["L"] - 0.5 * w @ w
                curve.append(primal)
                if self.verbose:
                    print(f"pass {it}: primal {primal:.6g} dual {dual:.6g}")
                if primal - dual <= self.tol * abs(primal):
                    break
        return (st["w_avg"] if self.averaging else st["w"]).copy(), curve, it

    def _average(self, st) -> None:
        if self.averaging:
            st["k"] += 1
            rho = 2.0 / (st["k"] + 1.0)
            st["w_avg"] *= 1.0 - rho
            st["w_avg"] += rho * st["w"]

    def _oracle_pass(self, model, X, Y, C, st, rng) -> None:
        """Plain BCFW through the single-sample oracles."""
        w, Wn, Ln = st["w"], st["Wn"], st["Ln"]
        for i in rng.permutation(len(X)):
            yh = model.loss_augmented_inference(X[i], Y[i], w)
            diff = Wn[i] - C * (model.joint_feature(X[i], Y[i]) - model.joint_feature(X[i], yh))
            Ls = C * model.loss(Y[i], yh)
            gap = w @ diff - Ln[i] + Ls
            den = diff @ diff
            gamma = 1.0 if den <= 0 else min(max(gap / den, 0.0), 1.0)
            if gamma > 0:
                w -= gamma * diff
                Wn[i] -= gamma * diff
                st["L"] += gamma * (Ls - Ln[i])
                Ln[i] += gamma * (Ls - Ln[i])
            self._average(st)

    def _batch_pass(self, model, X, Y, C, st, rng) -> None:
        """Blocks of ``batch_size`` samples through the batch oracles: per-sample gammas,
        one exact line search along their combined direction."""
        w, Wn, Ln, psi_true = st["w"], st["Wn"], st["Ln"], st["psi_true"]
        bs = int(self.batch_size)
        for s in rng.permutation(np.arange(0, len(X), bs)):
            idx = slice(s, s + bs)
            Xb, Yb = X[idx], Y[idx]
            Yh = model.batch_loss_augmented_inference(Xb, Yb, w)
            Diff = Wn[idx] - C * (psi_true[idx] - model.batch_joint_feature(Xb, Yh))
            dL = C * model.batch_loss(Yb, Yh) - Ln[idx]
            gaps = Diff @ w + dL
            den = np.einsum("ij,ij->i", Diff, Diff)
            gam = np.where(den > 0, np.clip(gaps / np.where(den > 0, den, 1.0), 0.0, 1.0), 1.0)
            gmax = gam.max()
            if gmax > 0:
                dw = -(gam @ Diff)
                dd = dw @ dw
                t = 1.0 / gmax if dd <= 0 else min(max((gam @ gaps) / dd, 0.0), 1.0 / gmax)
                if t > 0:
                    Wn[idx] -= (t * gam)[:, None] * Diff
                    Ln[idx] += t * gam * dL
                    w += t * dw
                    st["L"] += (t * gam) @ dL
            self._average(st)

    def _table_pass_factory(self, table, st, d):
        """Plain BCFW in one compiled pass over tabulated outputs (dual variables alpha)."""
        Psi, offsets, true_rows, losses = table
        Psi = Psi.tocsr()
        true_rows = np.asarray(true_rows, np.int64)
        tab = (Psi.indptr.astype(np.int64), Psi.indices.astype(np.int64), Psi.data.astype(np.float64),
               np.asarray(offsets, np.int64), true_rows, np.asarray(losses, np.float64))
        alpha = np.zeros(Psi.shape[0])
        alpha[true_rows] = 1.0  # w_n = C (Psi_true - sum_r alpha_r Psi_r) = 0
        q = np.asarray(Psi.multiply(Psi).sum(axis=1)).ravel()[true_rows].astype(np.float64)
        B = np.zeros(d)  # lazy weighted average: w_avg = w - B / T_k

        def step(model, X, Y, C, st, rng):
            k = st["k"] if self.averaging else -1
            dL, k = _kernels.bcfw_table_pass(*tab, st["w"], alpha, st["Ln"], q, C, rng.permutation(len(X)), B, k)
            st["L"] += dL
            if self.averaging:
                st["k"] = k
                st["w_avg"] = st["w"] - B / (0.5 * k * (k + 1.0))

        return step
