"""Constant fitting: the one path from skeletons to fitted constants.

A skeleton is a prefix tree whose ``c`` leaves are free constants c0, c1, ... in prefix
order. :func:`fit_many` fits many skeletons of one data set in a single compiled call
(``_kernels/fit.py``): constants that enter linearly are solved exactly by least squares
given the others (variable projection, Golub & Pereyra 1973), the rest by
Levenberg-Marquardt from several starts; the best start wins. Overflow, NaN and domain
errors give an infinite error: the candidate loses, nothing raises.
:func:`refit_constants` polishes a winner's constants on all points (snapping them to simple
values is :mod:`.snapping`'s; :func:`profile_fit` refits some values of a model with the others
fixed, its profile likelihood). The numpy twin of the kernel (tests only) is ``tests/twins_fit.py``.
"""
from __future__ import annotations

import numpy as np

from ..core.basis import Basis, builtin_function
from ..core.numeric import nmse
from ..core.tree import evaluate, subtree_ends
from ..exceptions import SuperposError

__all__ = ["fit_many", "refit_constants", "start_points", "noise_variance", "standard_errors", "standard_errors_of",
           "jacobian", "profile_fit"]


def start_points(n_nonlinear: int, n_starts: int, rng: np.random.Generator) -> np.ndarray:
    """The Levenberg-Marquardt starts of the nonlinear constants, (n_starts, n_nonlinear):
    all ones, minus ones, 0.5, 2, then uniform in [-3, 3]."""
    base = [np.ones(n_nonlinear), -np.ones(n_nonlinear), np.full(n_nonlinear, 0.5), np.full(n_nonlinear, 2.0)]
    rows = base[:max(1, n_starts)]
    while len(rows) < n_starts:
        rows.append(rng.uniform(-3.0, 3.0, n_nonlinear))
    return np.array(rows).reshape(len(rows), n_nonlinear)


def _op_table(basis: Basis):
    """Per colour: (op code, argument, number value); op code -1 where the kernel has no
    implementation (a user-registered function). ``powc`` gets OP_POW, whose program also needs
    the node's constant as its first child (:class:`_Program` inserts it)."""
    from .._kernels.program import OP_CODES, OP_CONST, OP_NUM, OP_POW, OP_VAR

    ops = np.full(len(basis), -1, dtype=np.int64)
    arg = np.zeros(len(basis), dtype=np.int64)
    val = np.zeros(len(basis), dtype=np.float64)
    for k, f in enumerate(basis.functions):
        if f.kind == "variable":
            ops[k], arg[k] = OP_VAR, f.index
        elif f.kind == "constant":
            ops[k] = OP_CONST
        elif f.kind == "number":
            ops[k], val[k] = OP_NUM, f.value
        elif f.name in OP_CODES and builtin_function(f.name) is not None and f.numpy is builtin_function(f.name).numpy:
            ops[k] = OP_CODES[f.name]
        elif f.fitted and f.name == "powc":
            ops[k] = OP_POW
    return ops, arg, val


class _Program:
    """The prefix programs of many trees over (X, Xv), with every subtree the kernel cannot
    evaluate (a user-registered function) replaced by a derived input column: its values are
    fixed when the subtree holds no free constant. A tree with such a function above a free
    constant cannot be fitted (``fittable`` False). A ``powc`` node becomes OP_POW(OP_CONST, u):
    its constant first, so the slots keep the tree's prefix order. ``ops``, ``args``, ``vals``:
    every program end to end, ``sizes`` their lengths."""

    def __init__(self, trees, basis: Basis, X: np.ndarray, Xv: np.ndarray):
        from .._kernels.program import OP_CONST, OP_VAR

        op, arg, val = _op_table(basis)
        flat = np.concatenate(trees)
        fitted = basis.holds_constant & (basis.arities > 0)
        has_fitted = bool(fitted.any()) and bool(np.any(fitted[flat]))
        if np.all(op[flat] >= 0) and not has_fitted:  # the usual case: one gather, no loop
            self.ops, self.args, self.vals = op[flat], arg[flat], val[flat]
            self.sizes = np.array([t.size for t in trees], dtype=np.int64)
            self.fittable = [True] * len(trees)
            self.X, self.Xv = X, Xv
            return
        cols, cols_v = [], []
        ops, args, vals, self.fittable = [], [], [], []
        for t in trees:
            if np.all(op[t] >= 0) and not np.any(fitted[t]):
                ops.append(op[t])
                args.append(arg[t])
                vals.append(val[t])
                self.fittable.append(True)
                continue
            end = subtree_ends(t, basis.arities)
            o, a, v, k, ok = [], [], [], 0, True
            while k < t.size:
                if op[t[k]] >= 0:
                    o.append(op[t[k]]), a.append(arg[t[k]]), v.append(val[t[k]])
                    if fitted[t[k]]:
                        o.append(OP_CONST), a.append(0), v.append(0.0)
                    k += 1
                    continue
                sub = t[k:end[k]]
                if np.any(basis.holds_constant[sub]):
                    ok = False
                    break
                with np.errstate(all="ignore"):
                    cols.append(evaluate(sub, basis, X))
                    cols_v.append(evaluate(sub, basis, Xv))
                o.append(OP_VAR), a.append(X.shape[1] + len(cols) - 1), v.append(0.0)
                k = end[k]
            self.fittable.append(ok)
            if not ok:  # a placeholder program (one constant) keeps the offsets aligned
                o, a, v = [OP_CONST], [0], [0.0]
            ops.append(np.array(o, dtype=np.int64))
            args.append(np.array(a, dtype=np.int64))
            vals.append(np.array(v, dtype=np.float64))
        self.ops, self.args, self.vals = np.concatenate(ops), np.concatenate(args), np.concatenate(vals)
        self.sizes = np.array([o.size for o in ops], dtype=np.int64)
        self.X = np.ascontiguousarray(np.column_stack([X, *cols])) if cols else X
        self.Xv = np.ascontiguousarray(np.column_stack([Xv, *cols_v])) if cols else Xv


def fit_many(trees, basis: Basis, X, y, Xv=None, yv=None, n_starts: int = 4, max_iter: int = 40, init=None,
             random_state=None, tol: float = 1e-8) -> list[tuple[np.ndarray, float, float]]:
    """Fit the constants of many trees on (X, y) in one compiled call: per tree (constants,
    normalised error on (X, y), normalised error on (Xv, yv) (the same points when not given)).

    Each tree's nonlinear constants run Levenberg-Marquardt from ``n_starts`` starts
    (:func:`start_points`) and, where given, from ``init`` (per tree None or a full constant
    vector); the best start wins. A tree whose registered function sits above a free constant
    cannot be compiled: its error is inf and its constants NaN."""
    from .._kernels.fit import fit_skeletons
    from .._kernels.program import OP_CONST, linear_mask

    X = np.ascontiguousarray(np.asarray(X, dtype=np.float64).reshape(len(X), -1))
    y = np.ascontiguousarray(np.asarray(y, dtype=np.float64).ravel())
    same = Xv is None
    Xv = X if Xv is None else np.ascontiguousarray(np.asarray(Xv, dtype=np.float64).reshape(len(Xv), -1))
    yv = y if yv is None else np.ascontiguousarray(np.asarray(yv, dtype=np.float64).ravel())
    trees = [np.asarray(t, dtype=np.int64) for t in trees]
    if not trees:
        return []
    flat = np.concatenate(trees)
    if min(t.size for t in trees) < 1 or flat.min() < 1 or flat.max() >= len(basis):
        raise SuperposError("fit_many needs non-empty trees of colour ids 1..|H|-1 of the basis")
    used = max((basis.functions[c].index for c in np.unique(flat) if basis.functions[c].kind == "variable"), default=-1)
    if used >= X.shape[1]:
        raise SuperposError(f"a formula uses x{used + 1} but the data has {X.shape[1]} variables")
    prog = _Program(trees, basis, X, Xv)
    ops = prog.ops
    offsets = np.zeros(len(trees) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum(prog.sizes)
    is_c = ops == OP_CONST
    n_c = np.add.reduceat(is_c.astype(np.int64), offsets[:-1])
    c_offsets = np.zeros(len(trees) + 1, dtype=np.int64)
    c_offsets[1:] = np.cumsum(n_c)
    args = prog.args.copy()
    args[is_c] = (np.cumsum(is_c) - 1 - np.repeat(c_offsets[:-1], np.diff(offsets)))[is_c]
    try:
        lin = linear_mask(ops, offsets, c_offsets)
    except ValueError as exc:
        raise SuperposError(f"fit_many: not an admissible tree ({exc})") from None
    n_nonlinear = np.concatenate([[0], np.cumsum(~lin)])
    n_nl_max = max(1, int(np.max(n_nonlinear[c_offsets[1:]] - n_nonlinear[c_offsets[:-1]])))
    starts = start_points(n_nl_max, n_starts, np.random.default_rng(random_state))
    init_flat = np.zeros(c_offsets[-1])
    has_init = np.zeros(len(trees), dtype=bool)
    for s in range(len(trees)) if init is not None else ():
        v = init[s]
        if v is not None and prog.fittable[s] and n_c[s] and np.size(v) == n_c[s] and np.all(np.isfinite(v)):
            init_flat[c_offsets[s]:c_offsets[s + 1]] = np.asarray(v, dtype=np.float64).ravel()
            has_init[s] = True
    consts, ef, ev = fit_skeletons(ops, args, prog.vals, offsets, lin, c_offsets, prog.X, y,
                                   prog.Xv, yv, starts, int(n_starts), init_flat, has_init, int(max_iter), float(tol))
    ev = ef if same else ev
    bounds = c_offsets.tolist()
    out = [(consts[a:b], e, v) for a, b, e, v in zip(bounds[:-1], bounds[1:], ef.tolist(), ev.tolist())]
    for s in (k for k, ok in enumerate(prog.fittable) if not ok):
        out[s] = (np.full(basis.n_constants(trees[s]), np.nan), np.inf, np.inf)
    return out


def refit_constants(tree, basis: Basis, X, y, constants, n_starts: int, max_iter: int, seed: int) -> np.ndarray:
    """The winner's constants on all points: a longer, tighter Levenberg-Marquardt run from
    ``constants`` and ``n_starts`` of the usual starts (0: from ``constants`` only, for large
    data), kept only when it does not make the fit worse."""
    constants = np.asarray(constants, dtype=np.float64)
    if not constants.size:
        return constants
    init_only = n_starts == 0
    (new, err, _), = fit_many([tree], basis, X, y, n_starts=n_starts, max_iter=max_iter if init_only else 4 * max_iter,
                              init=[constants], random_state=seed, tol=1e-10 if init_only else 1e-14)
    with np.errstate(all="ignore"):
        before = nmse(y, evaluate(tree, basis, X, constants)) if np.all(np.isfinite(constants)) else np.inf
    return new if err <= before or not np.isfinite(before) else constants


def noise_variance(tree, basis: Basis, X: np.ndarray, y: np.ndarray, constants) -> float:
    """sigma^2 = SSE / (n - p) of the formula on (X, y): the noise variance when the formula
    is right (misfit counts as noise when it is not)."""
    with np.errstate(all="ignore"):
        r = y - evaluate(tree, basis, X, constants)
        sse = float(r @ r)
    n, p = y.size, np.size(constants)
    if not np.isfinite(sse) or n <= p:
        return float("inf")
    return sse / (n - p)


def standard_errors(tree, basis: Basis, X: np.ndarray, y: np.ndarray, constants) -> np.ndarray:
    """Standard error of each constant, sqrt(diag(sigma^2 (J^T J)^-1)) with J the
    finite-difference Jacobian of the formula's values (the usual least-squares estimate;
    inf where a constant is not identified by the data)."""
    c = np.asarray(constants, dtype=np.float64)
    return standard_errors_of(lambda v: evaluate(tree, basis, X, v), y, c,
                              noise_variance(tree, basis, X, y, c) if c.size else 0.0)


def jacobian(predict, v: np.ndarray, columns=None) -> np.ndarray:
    """The forward-difference Jacobian of ``predict`` (values -> predictions) at v, in
    ``columns`` of v (all by default), step 1e-6 |v_j| (1e-6 at 0: a coefficient of 6e-8 needs
    a step of its own size, not 1e-6)."""
    v = np.asarray(v, dtype=np.float64)
    columns = range(v.size) if columns is None else columns
    with np.errstate(all="ignore"):
        f0 = predict(v)
        J = np.empty((f0.size, len(columns)))
        for k, j in enumerate(columns):
            h = 1e-6 * (abs(v[j]) or 1.0)
            d = v.copy()
            d[j] += h
            J[:, k] = (predict(d) - f0) / h
    return J


def standard_errors_of(predict, y: np.ndarray, v, s2: float, columns=None) -> np.ndarray:
    """sqrt(diag(s2 (J^T J)^-1)) of the values v (those in ``columns``, the others held fixed)
    of the model ``predict`` (values -> predictions of y); inf where not identified."""
    v = np.asarray(v, dtype=np.float64)
    k = v.size if columns is None else len(columns)
    if k == 0:
        return np.zeros(0)
    J = jacobian(predict, v, columns)
    if not (np.all(np.isfinite(J)) and np.isfinite(s2)):
        return np.full(k, np.inf)
    with np.errstate(all="ignore"):
        JTJ = J.T @ J
    if not np.all(np.isfinite(JTJ)):
        return np.full(k, np.inf)
    d = np.sqrt(np.diag(JTJ))
    return _scaled_errors(JTJ, d, s2)


def _scaled_errors(JTJ: np.ndarray, d: np.ndarray, s2: float) -> np.ndarray:
    """sqrt(diag(s2 (J^T J)^-1)) computed on the columns scaled to unit norm (a coefficient of
    6e-8 beside an exponent of 4: the regularisation 1e-12 must not depend on the units)."""
    k = d.size
    with np.errstate(all="ignore"):
        safe = np.where(d > 0, d, 1.0)
        C = JTJ / np.outer(safe, safe)
    try:
        inv = np.linalg.inv(C + 1e-12 * np.eye(k))
    except np.linalg.LinAlgError:
        return np.full(k, np.inf)
    se = np.sqrt(np.clip(s2 * np.diag(inv), 0.0, np.inf)) / safe
    return np.where(d > 0, se, np.inf)


def profile_fit(predict, y: np.ndarray, c: np.ndarray, free: list[int], sse, max_iter: int = 20):
    """(values, SSE) of the model ``predict`` (values -> predictions) with the values ``free``
    refitted by Levenberg-Marquardt from c and the others fixed (a profile likelihood's fit), ``sse``
    the squared error of values."""
    c = c.copy()
    e = sse(c)
    lam = 1e-3
    for _ in range(max_iter):
        J = jacobian(predict, c, free)
        with np.errstate(all="ignore"):
            r = y - predict(c)
            A = J.T @ J
            g = J.T @ r
        if not (np.all(np.isfinite(A)) and np.all(np.isfinite(g))):
            break
        improved = False
        while lam < 1e8:
            try:
                step = np.linalg.solve(A + lam * np.diag(np.diag(A) + 1e-300), g)
            except np.linalg.LinAlgError:
                lam *= 10.0
                continue
            trial = c.copy()
            trial[free] += step
            et = sse(trial)
            if et < e:
                lam = max(lam / 3.0, 1e-9)
                improved = e - et > 1e-12 * e
                c, e = trial, et
                break
            lam *= 4.0
        if not improved:
            break
    return c, e
