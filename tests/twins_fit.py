"""The numpy twin of the compiled constant fitter (``superpos._kernels.fit``), the oracle the
tests compare :func:`superpos.symreg.fitting.fit_many` with.

A skeleton is a prefix tree whose ``c`` leaves (``basis.constant``) are free constants
c0, c1, ... in prefix order. :class:`Skeleton` compiles one tree once: constant-free
subtrees are evaluated once per point set, the rest is evaluated for a whole batch of
constant vectors in one numpy pass (shape (B, n)), so several starts, a finite-difference
Jacobian and the variable-projection columns all cost one vectorised evaluation.

Constants that enter the formula linearly (their path to the root passes only through
add, sub, neg, the factor of a mul whose other factor holds no linear constant and the
numerator of a div whose denominator holds none) are solved exactly by linear least
squares given the others (variable projection, Golub & Pereyra 1973); the remaining
ones by a Levenberg-Marquardt iteration run for all starts at once. Overflow, NaN and
domain errors give an infinite cost: the candidate loses, nothing raises.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import sympy

from superpos.core.basis import Basis
from superpos.core.numeric import MAX_CONSTANT, error_scale
from superpos.core.symbolic import to_sympy
from superpos.core.tree import check_tree, children, to_string
from superpos.exceptions import SuperposError
from superpos.symreg.fitting import start_points

__all__ = ["Skeleton", "FitResult", "fit_constants"]

_LINEAR_PARENTS = ("add", "sub", "neg")


class Skeleton:
    """One tree compiled for batched evaluation over constant vectors.

    Attributes: ``tree`` (prefix array), ``n_constants``, ``linear`` (bool per constant:
    enters the formula linearly), ``size`` (nodes), ``max_variable`` (highest input
    column used, -1 for none).
    """

    def __init__(self, tree, basis: Basis):
        t = check_tree(tree, basis.arities)
        self.tree = t
        self.basis = basis
        self.size = int(t.size)
        funcs = basis.functions
        n = t.size
        kids = children(t, basis.arities)
        parent = np.full(n, -1, dtype=np.int64)
        for k, ks in enumerate(kids):
            parent[ks] = k
        self._kids = kids
        self._parent = parent
        const_pos = [k for k in range(n) if funcs[t[k]].kind == "constant"]
        self._const_index = {k: j for j, k in enumerate(const_pos)}
        self.n_constants = len(const_pos)
        has_const = np.zeros(n, dtype=bool)
        for k in range(n - 1, -1, -1):
            has_const[k] = funcs[t[k]].kind == "constant" or any(has_const[c] for c in kids[k])
        self._dynamic = has_const
        variables = [funcs[c].index for c in t if funcs[c].kind == "variable"]
        self.max_variable = max(variables) if variables else -1
        self.linear = self._linear_constants(const_pos)

    # ------------------------------------------------------------------ structure
    def _subtree_consts(self, k: int) -> list[int]:
        out, todo = [], [k]
        while todo:
            u = todo.pop()
            if u in self._const_index:
                out.append(self._const_index[u])
            todo.extend(self._kids[u])
        return out

    def _linear_constants(self, const_pos) -> np.ndarray:
        """Greedy in prefix order: a constant is linear when every ancestor keeps the
        formula affine in it and no multiplicative sibling holds a constant already
        marked linear (so the linear set enters affinely, never as a product)."""
        funcs, t = self.basis.functions, self.tree
        linear = np.zeros(len(const_pos), dtype=bool)
        for j, k in enumerate(const_pos):
            ok, u = True, k
            siblings: list[int] = []
            while ok and self._parent[u] >= 0:
                p = int(self._parent[u])
                name = funcs[t[p]].name
                if name in _LINEAR_PARENTS:
                    pass
                elif name == "mul":
                    siblings += [s for s in self._kids[p] if s != u]
                elif name == "div" and self._kids[p][0] == u:
                    siblings.append(self._kids[p][1])
                else:
                    ok = False
                u = p
            if ok:
                # symmetric: a later constant in one of these siblings sees this one
                # in its own siblings at the same mul/div and stays nonlinear
                others = [c for s in siblings for c in self._subtree_consts(s)]
                linear[j] = not any(linear[c] for c in others)
        return linear

    # ----------------------------------------------------------------- evaluation
    def bind(self, X: np.ndarray):
        """Return f(C) -> (B, n) evaluating the tree on points X for constants C (B, K).

        Constant-free subtrees are evaluated here, once."""
        X = np.asarray(X, dtype=np.float64)
        if X.ndim == 1:
            X = X[:, None]
        if self.max_variable >= X.shape[1]:
            raise SuperposError(f"the formula uses x{self.max_variable + 1} but the data has {X.shape[1]} variables")
        n_pts = X.shape[0]
        funcs, t, kids = self.basis.functions, self.tree, self._kids
        static: dict[int, np.ndarray] = {}
        program = []  # (node, kind, payload) in reverse prefix order, dynamic nodes only
        with np.errstate(all="ignore"):
            for k in range(t.size - 1, -1, -1):
                f = funcs[t[k]]
                if not self._dynamic[k]:
                    if f.kind == "variable":
                        static[k] = X[:, f.index][None, :]
                    elif f.kind == "number":
                        static[k] = np.full((1, n_pts), f.value)
                    else:
                        static[k] = np.asarray(f.numpy(*[static[c] for c in kids[k]]), dtype=np.float64)
                elif f.kind == "constant":
                    program.append((k, None, self._const_index[k]))
                else:
                    program.append((k, f.numpy, kids[k]))
        root_static = static.get(0)
        template = [static.get(k) for k in range(t.size)]

        def f(C: np.ndarray) -> np.ndarray:
            C = np.asarray(C, dtype=np.float64)
            B = C.shape[0]
            if root_static is not None:
                return np.broadcast_to(root_static, (B, n_pts))
            vals = template.copy()
            with np.errstate(all="ignore"):
                for k, fn, payload in program:
                    if fn is None:
                        vals[k] = C[:, payload:payload + 1]
                    else:
                        vals[k] = np.asarray(fn(*[vals[c] for c in payload]), dtype=np.float64)
            out = vals[0]
            return out if out.shape == (B, n_pts) else np.broadcast_to(out, (B, n_pts))

        return f

    def evaluate(self, X, constants=None) -> np.ndarray:
        """Values on X (n,) for one constant vector."""
        c = np.zeros((1, self.n_constants)) if constants is None else np.asarray(constants, dtype=np.float64).reshape(1, -1)
        if c.shape[1] != self.n_constants:
            raise SuperposError(f"the tree has {self.n_constants} constants but {c.shape[1]} values were given")
        return np.array(self.bind(X)(c)[0])

    def sympy(self, constants=None) -> sympy.Expr:
        return to_sympy(self.tree, self.basis, constants)

    def __repr__(self) -> str:
        return f"Skeleton({to_string(self.tree, self.basis)})"


@dataclass
class FitResult:
    """Fitted constants and the training cost of one skeleton."""

    constants: np.ndarray
    nmse: float
    n_evaluations: int = 0
    pred: np.ndarray | None = field(default=None, repr=False)


def _batched_lstsq(A: np.ndarray, t: np.ndarray) -> np.ndarray:
    """a minimising ||t - a @ A|| per batch row: A (B, L, n), t (B, n) -> (B, L); rows with
    non-finite input give NaN."""
    with np.errstate(all="ignore"):
        bad = ~np.isfinite(A.sum(axis=(1, 2)) + t.sum(axis=1))
        if bad.any():
            A = np.where(np.isfinite(A), A, 0.0)
            t = np.where(np.isfinite(t), t, 0.0)
        if A.shape[1] == 1:
            den = np.einsum("bn,bn->b", A[:, 0], A[:, 0])
            a = (np.einsum("bn,bn->b", A[:, 0], t) / np.where(den > 1e-300, den, 1.0))[:, None]
        else:
            M = np.einsum("bln,bkn->blk", A, A)
            d = np.sqrt(np.einsum("bll->bl", M))
            d = np.where(d > 1e-150, d, 1.0)  # equilibrated to a unit diagonal, as the kernel
            M = M / (d[:, :, None] * d[:, None, :]) + 1e-13 * np.eye(A.shape[1])[None]
            try:
                a = np.linalg.solve(M, (np.einsum("bln,bn->bl", A, t) / d)[:, :, None])[:, :, 0] / d
            except np.linalg.LinAlgError:
                a = np.einsum("bln,bn->bl", np.linalg.pinv(np.transpose(A, (0, 2, 1)), rcond=1e-12), t)
    a[bad] = np.nan
    return a


class _Problem:
    """Variable-projection residual for one skeleton on one point set."""

    def __init__(self, sk: Skeleton, X, y):
        self.f = sk.bind(X)
        self.y = y
        self.K = sk.n_constants
        self.lin = np.flatnonzero(sk.linear)
        self.nl = np.flatnonzero(~sk.linear)
        self.n_eval = 0
        self.scale = error_scale(y)

    def project(self, b: np.ndarray):
        """b (S, K_nl) -> (full constants (S, K), predictions (S, n))."""
        S, L = b.shape[0], self.lin.size
        C = np.zeros((S, L + 1, self.K))
        C[:, :, self.nl] = b[:, None, :]
        if L:
            C[:, np.arange(1, L + 1), self.lin] = 1.0
        F = self.f(C.reshape(S * (L + 1), self.K)).reshape(S, L + 1, -1)
        self.n_eval += S * (L + 1)
        full = C[:, 0, :].copy()
        if not L:
            return full, np.array(F[:, 0])
        r0 = F[:, 0]
        with np.errstate(all="ignore"):  # inf - inf where the formula overflows
            A = F[:, 1:] - r0[:, None, :]
            a = _batched_lstsq(A, self.y[None, :] - r0)
            pred = r0 + np.einsum("bl,bln->bn", np.where(np.isfinite(a), a, 0.0), np.where(np.isfinite(A), A, 0.0))
        pred[~np.isfinite(a.sum(axis=1))] = np.nan
        full[:, self.lin] = a
        return full, pred

    def cost(self, pred: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            c = np.mean((self.y[None, :] - pred) ** 2, axis=1) / self.scale
        c[~np.isfinite(c)] = np.inf
        return c


def _starts(n_nl: int, n_starts: int, rng: np.random.Generator, init=None) -> np.ndarray:
    rows = start_points(n_nl, n_starts, rng)
    return rows if init is None else np.vstack([np.asarray(init, dtype=np.float64).reshape(1, n_nl), rows])


def fit_constants(skeleton: Skeleton, X, y, n_starts: int = 4, max_iter: int = 40, init=None,
                  random_state=None, tol: float = 1e-8) -> FitResult:
    """Least-squares constants of ``skeleton`` on (X, y).

    Linear constants are solved exactly for each value of the nonlinear ones (variable
    projection); the nonlinear ones run a Levenberg-Marquardt iteration (finite-difference
    Jacobian of the projected residual) from ``n_starts`` starts at once: all ones,
    minus ones, 0.5, 2, then uniform in [-3, 3]; ``init`` (nonlinear values or a full
    constant vector) is tried first. The best start wins. Never raises on bad numerics:
    a skeleton that cannot be evaluated gets ``nmse = inf``.
    """
    y = np.asarray(y, dtype=np.float64).ravel()
    pb = _Problem(skeleton, X, y)
    if skeleton.n_constants == 0:
        pred = np.array(pb.f(np.zeros((1, 0)))[0])
        return FitResult(np.zeros(0), float(pb.cost(pred[None])[0]), 1, pred)
    nl = pb.nl
    if init is not None:
        init = np.asarray(init, dtype=np.float64).ravel()
        if init.size == skeleton.n_constants:
            init = init[nl]
        if init.size != nl.size or not np.all(np.isfinite(init)):
            init = None
    if nl.size == 0:
        full, pred = pb.project(np.zeros((1, 0)))
        return FitResult(full[0], float(pb.cost(pred)[0]), pb.n_eval, pred[0])
    rng = np.random.default_rng(random_state)
    b = _starts(nl.size, n_starts, rng, init)
    S, P = b.shape
    full, pred = pb.project(b)
    cost = pb.cost(pred)
    mu = np.full(S, 1e-3)
    active = np.isfinite(cost)
    eye = np.eye(P)
    for _ in range(max_iter):
        if not active.any():
            break
        ia = np.flatnonzero(active)
        ba, pa = b[ia], pred[ia]
        h = 1e-6 * (1.0 + np.abs(ba))  # (s, P)
        bp = np.repeat(ba[:, None, :], P, axis=1) + h[:, :, None] * eye[None]
        cp, pj = pb.project(bp.reshape(-1, P))
        bad = ~(np.isfinite(pj).all(axis=1) & np.isfinite(cp).all(axis=1))
        back = bad.reshape(ia.size, P)  # at the domain's edge: the slope from below
        if back.any():
            h = np.where(back, -h, h)
            _, pm = pb.project((np.repeat(ba[:, None, :], P, axis=1) + h[:, :, None] * eye[None]).reshape(-1, P))
            pj = np.where(back.reshape(-1)[:, None], pm, pj)
        J = (pj.reshape(ia.size, P, -1) - pa[:, None, :]) / h[:, :, None]  # d pred / d b: (s, P, n)
        J = np.where(np.isfinite(J), J, 0.0)
        res = y[None, :] - pa
        g = np.einsum("spn,sn->sp", J, res)
        JTJ = np.einsum("spn,sqn->spq", J, J)
        diag = np.einsum("spp->sp", JTJ)
        M = JTJ + (mu[ia, None] * (diag + 1e-12 * (1.0 + diag.max(axis=1, keepdims=True))))[:, :, None] * eye[None]
        with np.errstate(all="ignore"):
            if P == 1:
                step = g / M[:, :, 0]
            else:
                try:
                    step = np.linalg.solve(M, g[:, :, None])[:, :, 0]
                except np.linalg.LinAlgError:
                    step = np.stack([np.linalg.lstsq(M[s], g[s], rcond=None)[0] for s in range(ia.size)])
        step = np.where(np.isfinite(step), step, 0.0)
        bn = ba + step
        if np.abs(bn).max() > MAX_CONSTANT:
            bn = np.clip(bn, -MAX_CONSTANT, MAX_CONSTANT)
        fn, pn = pb.project(bn)
        cn = pb.cost(pn)
        better = cn < cost[ia]
        gain = np.where(better, (cost[ia] - cn) / np.maximum(cost[ia], 1e-300), 0.0)
        acc = ia[better]
        b[acc], pred[acc], full[acc], cost[acc] = bn[better], pn[better], fn[better], cn[better]
        mu[acc] = np.maximum(mu[acc] / 3.0, 1e-12)
        rej = ia[~better]
        mu[rej] *= 4.0
        small_step = np.all(np.abs(step) <= 1e-10 * (1.0 + np.abs(ba)), axis=1)
        done = (better & (gain < tol)) | (mu[ia] > 1e8) | small_step
        active[ia[done]] = False
        if cost.min() < 1e-26:  # an exact fit: the other starts cannot beat it meaningfully
            break
    best = int(np.argmin(cost))
    return FitResult(full[best].copy(), float(cost[best]), pb.n_eval, pred[best].copy())
