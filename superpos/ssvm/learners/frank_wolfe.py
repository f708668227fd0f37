"""Block-coordinate Frank-Wolfe on the S-SVM dual (Lacoste-Julien, Jaggi, Schmidt & Pletscher 2013)."""
from __future__ import annotations

import numpy as np

from ... import _kernels
from ..base import take
from ._common import BaseSSVM

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
    duality gap (one batch oracle call) is compared with ``tol`` times the primal.
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
        Ln = np.zeros(n)
        w = np.zeros(d)
        L = 0.0
        w_avg = w.copy()
        k = 0
        psi_sum = model.sum_joint_feature(X, Y)
        if bs > 1:  # shuffle once, then blocks are contiguous slices (views, no copies)
            perm = rng.permutation(n)
            Xp, Yp = take(X, perm), take(Y, perm)
            psi_true = model.batch_joint_feature(Xp, Yp)
            starts = np.arange(0, n, bs)
        table = model.output_table(X, Y) if bs == 1 else None
        if table is None:
            Wn = np.zeros((n, d))  # explicit dual blocks w_n
        if table is not None:
            Psi, offsets, true_rows, losses = table
            Psi = Psi.tocsr()
            tab = (Psi.indptr.astype(np.int64), Psi.indices.astype(np.int64), Psi.data.astype(np.float64),
                   np.asarray(offsets, np.int64), np.asarray(true_rows, np.int64), np.asarray(losses, np.float64))
            tab_B = np.zeros(d)
            tab_alpha = np.zeros(Psi.shape[0])
            tab_alpha[tab[4]] = 1.0
            tab_q = np.asarray(Psi.multiply(Psi).sum(axis=1)).ravel()[tab[4]].astype(np.float64)
        curve = []
        it = 0
        for it in range(1, self.max_iter + 1):
            if table is not None:  # compiled pass on the tabulated outputs
                dL, k = _kernels.bcfw_table_pass(*tab, w, tab_alpha, Ln, tab_q, C, rng.permutation(n), tab_B,
                                                 k if self.averaging else -1)
                L += dL
                if self.averaging:
                    w_avg = w - tab_B / (0.5 * k * (k + 1.0))
                order = ()
            else:
                order = rng.permutation(n) if bs == 1 else rng.permutation(starts)
            for s in (range(n) if bs == 1 and table is None else order):
                if bs == 1:
                    i = order[s]
                    yh = model.loss_augmented_inference(X[i], Y[i], w)
                    diff = Wn[i] - C * (model.joint_feature(X[i], Y[i]) - model.joint_feature(X[i], yh))
                    Ls = C * model.loss(Y[i], yh)
                    gap = w @ diff - Ln[i] + Ls
                    den = diff @ diff
                    gamma = 1.0 if den <= 0 else min(max(gap / den, 0.0), 1.0)
                    if gamma > 0:
                        w -= gamma * diff
                        Wn[i] -= gamma * diff
                        L += gamma * (Ls - Ln[i])
                        Ln[i] += gamma * (Ls - Ln[i])
                else:
                    idx = slice(s, s + bs)
                    Xb, Yb = Xp[idx], Yp[idx]
                    Yh = model.batch_loss_augmented_inference(Xb, Yb, w)
                    Diff = Wn[idx] - C * (psi_true[idx] - model.batch_joint_feature(Xb, Yh))
                    dL = C * model.batch_loss(Yb, Yh) - Ln[idx]
                    gaps = Diff @ w + dL
                    den = np.einsum("ij,ij->i", Diff, Diff)
                    gam = np.where(den > 0, np.clip(gaps / np.where(den > 0, den, 1.0), 0.0, 1.0), 1.0)
                    gmax = gam.max()
                    if gmax <= 0:
                        continue
                    dw = -(gam @ Diff)
                    num = gam @ gaps
                    dd = dw @ dw
                    t = 1.0 / gmax if dd <= 0 else min(max(num / dd, 0.0), 1.0 / gmax)
                    if t > 0:
                        step = t * gam
                        Wn[idx] -= step[:, None] * Diff
                        Ln[idx] += step * dL
                        w += t * dw
                        L += step @ dL
                if self.averaging and table is None:
                    k += 1
                    rho = 2.0 / (k + 1.0)
                    w_avg *= 1.0 - rho
                    w_avg += rho * w
            if it % self.check_every == 0 or it == self.max_iter:
                Yh = model.batch_loss_augmented_inference(X, Y, w)
                hinge = model.batch_loss(Y, Yh).sum() + w @ (model.sum_joint_feature(X, Yh) - psi_sum)
                primal = 0.5 * w @ w + C * max(hinge, 0.0)
                dual = L - 0.5 * w @ w
                if self.averaging:
                    Yo = model.batch_loss_augmented_inference(X, Y, w_avg)
                    ho = model.batch_loss(Y, Yo).sum() + w_avg @ (model.sum_joint_feature(X, Yo) - psi_sum)
                    curve.append(0.5 * w_avg @ w_avg + C * max(ho, 0.0))
                else:
                    curve.append(primal)
                if self.verbose:
                    print(f"pass {it}: primal {primal:.6g} dual {dual:.6g}")
                if min(primal, curve[-1]) - dual <= self.tol * abs(primal):
                    break
        return (w_avg if self.averaging else w).copy(), curve, it
