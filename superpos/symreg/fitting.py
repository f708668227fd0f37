"""Constant fitting: the one path from skeletons to fitted constants.

A skeleton is a prefix tree whose ``c`` leaves are free constants c0, c1, ... in prefix
order. :func:`fit_many` fits many skeletons of one data set in a single compiled call
(``_kernels/fit.py``): constants that enter linearly are solved exactly by least squares
given the others (variable projection, Golub & Pereyra 1973), the rest by
Levenberg-Marquardt from several starts; the best start wins. Overflow, NaN and domain
errors give an infinite error: the candidate loses, nothing raises.
:func:`refit_constants` polishes a winner's constants on all points and
:func:`snap_constants` replaces near-rational constants by the rational when the fit does
not suffer. The numpy twin of the kernel (tests only) is ``tests/twins_fit.py``.
"""
from __future__ import annotations

import itertools

import numpy as np

from ..core.basis import Basis, builtin_function
from ..core.constants import simple_values
from ..core.numeric import nmse
from ..core.tree import evaluate, subtree_ends
from ..exceptions import SuperposError

__all__ = ["fit_many", "refit_constants", "snap_constants", "start_points", "noise_variance", "standard_errors"]


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
    implementation (a user-registered function)."""
    from .._kernels.program import OP_CODES, OP_CONST, OP_NUM, OP_VAR

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
    return ops, arg, val


class _Program:
    """The prefix programs of many trees over (X, Xv), with every subtree the kernel cannot
    evaluate (a user-registered function) replaced by a derived input column: its values are
    fixed when the subtree holds no free constant. A tree with such a function above a free
    constant cannot be fitted (``fittable`` False). ``ops``, ``args``, ``vals``: every program
    end to end, ``sizes`` their lengths."""

    def __init__(self, trees, basis: Basis, X: np.ndarray, Xv: np.ndarray):
        from .._kernels.program import OP_CONST, OP_VAR

        op, arg, val = _op_table(basis)
        flat = np.concatenate(trees)
        if np.all(op[flat] >= 0):  # every function compiled (the usual case): one gather, no loop
            self.ops, self.args, self.vals = op[flat], arg[flat], val[flat]
            self.sizes = np.array([t.size for t in trees], dtype=np.int64)
            self.fittable = [True] * len(trees)
            self.X, self.Xv = X, Xv
            return
        cols, cols_v = [], []
        ops, args, vals, self.fittable = [], [], [], []
        for t in trees:
            if np.all(op[t] >= 0):
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
                    k += 1
                    continue
                sub = t[k:end[k]]
                if np.any(op[sub] == OP_CONST):
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
        out[s] = (np.full(int(np.sum(trees[s] == basis.constant)), np.nan), np.inf, np.inf)
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


def snap_constants(tree, basis: Basis, X, y, constants, max_denominator: int = 12, rtol: float = 1e-5) -> np.ndarray:
    """Replace constants by simple values (small rationals, integers beyond 10, short decimals
    such as 1e-4, and 0) when the data cannot tell them apart.

    Exact data: a value within ``rtol`` (relative) that keeps the normalised error within
    0.1 % (or 1e-10). Noisy data: a likelihood-ratio test of the nested formula with that
    constant fixed, Delta SSE / sigma^2 <= 3.84 (chi-square, 1 degree of freedom, 5 %), with
    sigma^2 = SSE / (n - p) of the unsnapped fit and the value within three standard errors
    and 2 % (10 % where the formula explains 99 % of the variance; 0 needs only the three
    standard errors: an insignificant term); simpler values are tried first, multiples of pi
    only for constants known to 0.2 %. Constants that pass alone but not one at a time are then
    tried together (chi-square with as many degrees of freedom). Fixing a constant at 0 drops
    its term when sympy renders the formula (no term smaller than the noise)."""
    y = np.asarray(y, dtype=np.float64).ravel()
    c = np.asarray(constants, dtype=np.float64).copy()

    def sse(v) -> float:
        with np.errstate(all="ignore"):
            r = y - evaluate(tree, basis, X, v)
            out = float(r @ r)
        return out if np.isfinite(out) else np.inf

    cur = sse(c)
    if not np.isfinite(cur) or not c.size:
        return c
    exact_tol = max(cur * 1.001, cur + 1e-10 * y.size * max(float(np.var(y)), 1e-300))
    s2 = noise_variance(tree, basis, X, y, c)
    se = standard_errors(tree, basis, X, y, c) if np.isfinite(s2) and s2 > 0 else np.zeros(c.size)
    stat_tol = 3.84 * s2 if np.isfinite(s2) else 0.0
    # a value within three standard errors, and (but for dropping an insignificant term) within
    # 2 %: the residuals of a wrong formula would pass for noise and snap anything; 10 % where the
    # formula explains 99 % of the variance (a law measured with noise, not a noisy table)
    cap = 0.1 if cur <= 0.01 * float(np.sum((y - y.mean()) ** 2)) else 0.02
    c0 = c.copy()

    def plausible(j: int, q: float) -> bool:
        return bool(np.isfinite(se[j]) and abs(q - c0[j]) <= 3.0 * se[j]
                    and (q == 0 or abs(q - c0[j]) <= cap * abs(c0[j])))

    for j in range(c.size):
        v = c[j]
        if not np.isfinite(v):
            continue
        for q in simple_values(v, max_denominator, pi=_sharp(se[j], v)):
            close = abs(q - v) <= rtol * max(abs(v), 1e-3)
            ok = plausible(j, q)
            if q == v or not (close or ok):
                continue
            trial = c.copy()
            trial[j] = q
            e = sse(trial)
            if (close and e <= exact_tol) or (ok and e - cur <= stat_tol):
                c, cur = trial, e
                break
    if not (np.isfinite(s2) and s2 > 0):
        return c
    options = []  # per constant, the plausible values simpler than the one it has now (0.99 -> 1)
    for j, v in enumerate(c):
        simpler = []
        for q in simple_values(c0[j], max_denominator, pi=_sharp(se[j], c0[j])) if np.isfinite(v) else []:
            if q == v:
                break
            if plausible(j, q):
                simpler.append(q)
        options.append(simpler[:3])
    return _snapped_together(c, cur, sse, options, s2)


def _sharp(se: float, v: float) -> bool:
    """Whether the data pin v down to 0.2 % (one standard error), the least for a multiple of
    pi to mean more than chance: one in ten constants lies within 0.5 % of such a value, and
    on a noisy table 0.477 would become 3/(2 pi)."""
    return bool(np.isfinite(se) and se <= 0.002 * abs(v))


_CHI2_95 = (3.84, 5.99, 7.81, 9.49, 11.07, 12.59, 14.07, 15.51, 16.92, 18.31)
"""The 95 % quantiles of chi-square with 1..10 degrees of freedom."""

_MAX_JOINT = 7
"""Joint snapping moves at most this many constants (4^7 combinations at most to order, 40 ms)."""

_MAX_COMBINATIONS = 256
"""Joint snapping tries at most this many combinations, simplest first."""


def _snapped_together(c: np.ndarray, cur: float, sse, options: list[list[float]], s2: float) -> np.ndarray:
    """Noisy data: constants that each lie close enough to a simple value (``options[j]``, up
    to 3, simplest first) but could not be snapped one at a time, because their errors are
    correlated (0.99 x^4 - 0.99 x^3: either alone fixed at 1 misfits; 0.992 x^4 + 1.008 x^2
    under 0.1 % noise), snapped together: the simplest combination of at least two that the
    likelihood-ratio test with k moved constants accepts, Delta SSE / sigma^2 <= chi2_k(95 %)."""
    movable = [j for j, o in enumerate(options) if o][:_MAX_JOINT]
    if len(movable) < 2:
        return c
    choices = [[None] + options[j] for j in movable]  # None keeps the fitted value
    combos = []
    for pick in itertools.product(*[range(len(ch)) for ch in choices]):
        moved = sum(k > 0 for k in pick)
        if moved >= 2:
            combos.append((sum(k if k else len(choices[i]) for i, k in enumerate(pick)), -moved, pick))
    for _, neg_moved, pick in sorted(combos)[:_MAX_COMBINATIONS]:
        trial = c.copy()
        for i, k in enumerate(pick):
            if k:
                trial[movable[i]] = choices[i][k]
        if sse(trial) - cur <= _CHI2_95[-neg_moved - 1] * s2:
            return trial
    return c


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
    if c.size == 0:
        return np.zeros(0)
    s2 = noise_variance(tree, basis, X, y, c)
    with np.errstate(all="ignore"):
        f0 = evaluate(tree, basis, X, c)
        J = np.empty((y.size, c.size))
        for j in range(c.size):
            h = 1e-6 * (1.0 + abs(c[j]))
            d = c.copy()
            d[j] += h
            J[:, j] = (evaluate(tree, basis, X, d) - f0) / h
    if not (np.all(np.isfinite(J)) and np.isfinite(s2)):
        return np.full(c.size, np.inf)
    with np.errstate(all="ignore"):
        JTJ = J.T @ J
    if not np.all(np.isfinite(JTJ)):
        return np.full(c.size, np.inf)
    try:
        cov = s2 * np.linalg.inv(JTJ + 1e-12 * np.trace(JTJ) / c.size * np.eye(c.size))
    except np.linalg.LinAlgError:
        return np.full(c.size, np.inf)
    return np.sqrt(np.clip(np.diag(cov), 0.0, np.inf))
