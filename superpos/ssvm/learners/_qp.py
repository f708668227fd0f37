"""The small dual QP of a cutting-plane working set, solved by SMO (numba kernel).

max_alpha  b . alpha - ||A' alpha||^2 / 2   s.t. alpha >= 0, sum_{j in group g} alpha_j <= C,

with K = A A'. One group gives the 1-slack dual, one group per sample the n-slack dual.
SMO (numba) solves any number of groups; the one-group dual, whose constraints are nearly
collinear late in a 1-slack run (SMO then needs up to 10^5 steps a solve), goes to an exact
active-set method (``solve_one_simplex_qp``), warm-started from the previous support.
"""
from __future__ import annotations

import numpy as np

from ... import _kernels
from ...exceptions import SuperposError

__all__ = ["solve_simplex_qp", "solve_one_simplex_qp", "WorkingSet"]


def solve_simplex_qp(K, b, group=None, C: float = 1.0, alpha0=None, tol: float = 1e-10,
                     max_iter: int = 200_000) -> tuple[np.ndarray, int]:
    """Solve the working-set dual; returns (alpha, SMO steps). ``tol`` bounds the KKT
    violation (largest gradient gap within a group). Only K's top-left (m, m) block is read."""
    K = np.ascontiguousarray(K, dtype=np.float64)
    b = np.ascontiguousarray(b, dtype=np.float64)
    m = b.size
    if K.ndim != 2 or K.shape[0] < m or K.shape[1] < m:
        raise SuperposError(f"K must be at least ({m}, {m}), got {K.shape}")
    group = np.zeros(m, np.int64) if group is None else np.ascontiguousarray(group, dtype=np.int64)
    n_groups = int(group.max()) + 1 if m else 1
    alpha = np.zeros(m) if alpha0 is None else np.array(alpha0, dtype=np.float64)
    if m == 0:
        return alpha, 0
    steps = _kernels.simplex_qp(K, b, group, n_groups, float(C), alpha, float(tol), int(max_iter))
    return alpha, int(steps)


def solve_one_simplex_qp(K, b, C: float, alpha0=None, tol: float = 1e-10,
                         max_iter: int = 1000) -> tuple[np.ndarray, int]:
    """max b . alpha - alpha' K alpha / 2 s.t. alpha >= 0, sum alpha <= C, by a primal active set.

    With the slack s = C - sum alpha as one more variable of zero cost, the problem is
    min z' Q z / 2 - c' z over {z >= 0, 1' z = C}. On a support S the equality-constrained
    optimum solves [[Q_SS, 1], [1', 0]] [z_S; lam] = [c_S; C] (least squares when singular);
    if some z_S < 0 the step stops at the first zero and that index leaves S (Lawson-Hanson),
    else the index of most negative reduced gradient (Qz - c)_i + lam outside S enters, until
    none is below -``tol``. Only K's top-left (m, m) block is read; returns (alpha, iterations).
    """
    b = np.asarray(b, dtype=np.float64)
    m = b.size
    Q = np.zeros((m + 1, m + 1))
    Q[:m, :m] = K[:m, :m]
    c = np.append(b, 0.0)
    z = np.zeros(m + 1)
    if alpha0 is not None:
        z[:m] = np.maximum(np.asarray(alpha0, dtype=np.float64)[:m], 0.0)
        total = z[:m].sum()
        if total > C:
            z[:m] *= C / total
    z[m] = max(C - z[:m].sum(), 0.0)
    S = list(np.nonzero(z > 0)[0])
    if not S:
        S, z[m] = [m], C
    ridge = 1e-13 * max(1.0, float(np.max(np.diag(Q)))) if m else 0.0
    it = 0
    for it in range(1, max_iter + 1):
        k = len(S)
        M = np.zeros((k + 1, k + 1))
        M[:k, :k] = Q[np.ix_(S, S)] + ridge * np.eye(k)
        M[:k, k] = M[k, :k] = 1.0
        rhs = np.append(c[S], C)
        try:
            sol = np.linalg.solve(M, rhs)
        except np.linalg.LinAlgError:
            sol = np.linalg.lstsq(M, rhs, rcond=None)[0]
        target, lam = sol[:k], sol[k]
        cur = z[S]
        if np.any(target < 0):
            down = target < cur
            ratios = np.where(down & (target < 0), cur / np.where(down, cur - target, 1.0), np.inf)
            t = min(1.0, float(ratios.min()))
            new = cur + t * (target - cur)
            new[ratios <= t * (1 + 1e-12)] = 0.0
            z[S] = np.maximum(new, 0.0)
            S = [i for i in S if z[i] > 0]
            if not S:
                S, z[m] = [m], C
            continue
        z[S] = target
        grad = Q @ z - c + lam
        grad[S] = 0.0
        j = int(np.argmin(grad))
        if grad[j] >= -tol:
            break
        S.append(j)
    alpha = z[:m].copy()
    total = alpha.sum()
    if total > C:
        alpha *= C / total
    return alpha, it


class WorkingSet:
    """Constraints w . a_j >= b_j - xi_{group_j} with their Gram matrix and dual alpha.

    Rows are stored in arrays with doubling capacity; ``prune`` drops constraints whose
    alpha stayed below ``threshold`` times the largest for ``window`` solves in a row.
    """

    def __init__(self, dim: int, capacity: int = 64):
        self.A = np.empty((capacity, dim))
        self.G = np.empty((capacity, capacity))
        self.b = np.empty(capacity)
        self.group = np.empty(capacity, np.int64)
        self.alpha = np.empty(capacity)
        self.idle = np.empty(capacity, np.int64)
        self.m = 0

    def _grow(self, need: int) -> None:
        cap = self.b.size
        if need <= cap:
            return
        new = max(need, 2 * cap)
        A = np.empty((new, self.A.shape[1]))
        A[:self.m] = self.A[:self.m]
        G = np.empty((new, new))
        G[:self.m, :self.m] = self.G[:self.m, :self.m]
        self.A, self.G = A, G
        for name in ("b", "group", "alpha", "idle"):
            old = getattr(self, name)
            arr = np.empty(new, old.dtype)
            arr[:self.m] = old[:self.m]
            setattr(self, name, arr)

    def add(self, rows: np.ndarray, b: np.ndarray, group: np.ndarray) -> None:
        """Append constraints (rows (k, dim), b (k,), group (k,)) with alpha = 0."""
        rows = np.atleast_2d(rows)
        k = rows.shape[0]
        if k == 0:
            return
        m = self.m
        self._grow(m + k)
        self.A[m:m + k] = rows
        cross = rows @ self.A[:m + k].T
        self.G[m:m + k, :m + k] = cross
        self.G[:m + k, m:m + k] = cross.T
        self.b[m:m + k] = b
        self.group[m:m + k] = group
        self.alpha[m:m + k] = 0.0
        self.idle[m:m + k] = 0
        self.m = m + k

    def solve(self, C: float, tol: float) -> float:
        """Re-solve the dual from the current alpha (warm start); returns the dual value."""
        m = self.m
        if m == 0:
            return 0.0
        grp = self.group[:m]
        if np.all(grp == grp[0]):
            alpha, _ = solve_one_simplex_qp(self.G, self.b[:m], C, self.alpha[:m], tol)
        else:
            alpha, _ = solve_simplex_qp(self.G, self.b[:m], grp, C, self.alpha[:m], tol)  # no copy of G
        self.alpha[:m] = alpha
        return float(self.b[:m] @ alpha - 0.5 * alpha @ (self.G[:m, :m] @ alpha))

    def w(self) -> np.ndarray:
        return self.alpha[:self.m] @ self.A[:self.m]

    def prune(self, threshold: float, window: int) -> None:
        m = self.m
        if m == 0:
            return
        a = self.alpha[:m]
        small = a <= threshold * max(a.max(), 1e-300)
        self.idle[:m] = np.where(small, self.idle[:m] + 1, 0)
        keep = np.nonzero(self.idle[:m] < window)[0]
        if keep.size == m:
            return
        k = keep.size
        self.A[:k] = self.A[keep]
        self.G[:k, :k] = self.G[np.ix_(keep, keep)]
        for name in ("b", "group", "alpha", "idle"):
            arr = getattr(self, name)
            arr[:k] = arr[keep]
        self.m = k
