"""Reductions: a law of many inputs as a function of a few (monomial factors, dimensionless
groups, differences and sums), for the structure model of 1-3 inputs.

Most laws of physics with many inputs are a product prod_{i in O} x_i^a_i * g(x_S) of a
monomial in some inputs O and a function g of at most three others S (q E / (m (w0^2 - w^2)),
n k T log(V2 / V1)). Taking logarithms separates them additively,

    log|y| = a_0 + sum_{i in O} a_i log|x_i| + log|g(x_S)|,

which :func:`monomial_splits` tests for every S of at most ``max_inner`` inputs: log|g| is
stood in for by a cubic polynomial in the standardised x_S and the log|x_j| of S (g may hold a
power of its own inputs), the whole fitted by least squares and refitted without the tenth of
the points it fits worst (near a pole of g, log|y| has outliers),
and the splits ranked by BIC (n log(SSE / n) + p log n; the one with fewer free columns wins
a near tie). The exponents are rounded to halves (to integers for an input with negative
values). This is AI Feynman's multiplicative separability (Udrescu & Tegmark 2020) tested on
the data by a regression instead of on a fitted surrogate.

Other laws depend on several inputs only through one dimensionless group, a monomial z =
prod x^b (x1 exp(-x2 x3 / (x4 x5)), x1 / sqrt(1 - x2^2 / x3^2)): :func:`single_index` finds b
from the rank-one Hessian of log|y| in log|x|, and where log|y| follows no such fit (sin(2 pi x1
x2 / x3)^2 has zeros), :func:`smooth_index` finds a small group by sorting y on it. Where y is
a function of such a group and of one more input taken as it is (Compton scattering: m c^2 / E
beside theta), :func:`index_beside` finds both from the same Hessian with that input's row and
column left out.

Others read a pair of inputs only through their difference or their sum (cos(x3 - x4), (x2 - x1)^2 +
(x4 - x3)^2): :func:`~superpos.symreg.translations.translations` finds such pairs from the
gradients of a polynomial surrogate, AI Feynman's translational symmetry.

Any of these gives the structure model a data set it knows, (z, y / prod w^a) with at most 3
inputs z (a :class:`Reduction`), and :meth:`Reduction.compose` writes each g it finds back as a
tree over every input; :func:`reductions` picks those worth a search. Each is proposed only
where its fit describes the data (``_EXPLAINED``; the surrogate of the translations): on noisy tables more
candidates only add chances for a spurious winner.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import combinations, combinations_with_replacement, product

import numpy as np
import sympy

from ..core.basis import Basis
from ..core.symbolic import rewritten
from .translations import translations

__all__ = ["Reduction", "monomial_splits", "single_index", "index_beside", "smooth_index", "smooth_in",
           "translations", "reductions"]

_MAX_EXPONENT = 6.0
"""An exponent beyond this is no law's: the split is not offered."""

_GRID_INPUTS = 4
"""Where log|y| is no quadratic in log|x|, the groups of exponents -1, 0, 1 over at most this
many inputs are tried instead (36 groups at 4 inputs, one or two least-squares fits each)."""

_EXPLAINED = 0.98
"""A reduction is proposed only where its fit (of log|y|, or the surrogate of y) explains this
share of the variance: laws measured cleanly, not noisy tables, where more candidates would
only add chances for a spurious winner."""

_SIGNED = 0.999
"""A split whose g changes sign is proposed only where a cubic (with 1/x and log|x|) in its
inner inputs explains this share of the variance of y / prod x_O^a: clean laws only."""

_TRIMMED = 0.9
"""Each log fit is redone on the points whose residual is below this quantile."""


def _power(x: np.ndarray, a: float) -> np.ndarray:
    """x^a, through |x| for a fractional a (only inputs of one sign get those)."""
    return x**a if a == int(a) else np.abs(x) ** a


def _monomial(v: list, exponents) -> sympy.Expr:
    return sympy.Mul(*[v[j] ** sympy.Rational(int(round(2 * a)), 2) for j, a in enumerate(exponents) if a])


@dataclass(frozen=True)
class Reduction:
    """y = prod_j w_j^factor_j * g(z_1..z_k) with z_i = prod_j w_j^inner_ij, where w = x, or
    w = P x for a ``linear`` map P whose rows are differences x_i - x_j, sums x_i + x_j and single inputs
    (:func:`translations`): a data set of k <= 3 inputs for the structure model. ``score``:
    the BIC of the log fit that proposed it."""

    inner: tuple[tuple[float, ...], ...]
    factor_exponents: tuple[float, ...]
    score: float
    linear: tuple[tuple[float, ...], ...] | None = None

    def base(self, X: np.ndarray) -> np.ndarray:
        """w at the rows of X."""
        return X if self.linear is None else X @ np.array(self.linear).T

    def inputs(self, X: np.ndarray) -> np.ndarray:
        """z at the rows of X, (n, k)."""
        W = self.base(X)
        with np.errstate(all="ignore"):
            return np.column_stack([np.prod([_power(W[:, j], a) for j, a in enumerate(row) if a], axis=0)
                                    for row in self.inner])

    def factor(self, X: np.ndarray) -> np.ndarray:
        """prod w_j^factor_j at the rows of X."""
        W = self.base(X)
        out = np.ones(X.shape[0])
        with np.errstate(all="ignore"):
            for j, a in enumerate(self.factor_exponents):
                if a:
                    out = out * _power(W[:, j], a)
        return out

    def compose(self, tree, constants, model_basis: Basis, basis: Basis):
        """The tree and constants of prod w^factor * g(z(x)) over ``basis`` for g (``tree``
        with ``constants`` over ``model_basis``, whose x_k stands for z_k); None when the
        result has no tree over ``basis``."""
        v = basis.variables
        if self.linear is not None:
            v = [sympy.Add(*[int(c) * v[j] for j, c in enumerate(row) if c]) for row in self.linear]
        z = {model_basis.variables[k]: _monomial(v, row) for k, row in enumerate(self.inner)}
        factor = _monomial(v, self.factor_exponents)
        return rewritten(tree, model_basis, constants, lambda e: e.xreplace(z) * factor, basis)


def _cubic(Z: np.ndarray) -> list[np.ndarray]:
    """Monomials of degree 1-3 in the columns of Z."""
    return [np.prod(Z[:, list(idx)], axis=1) for d in (1, 2, 3)
            for idx in combinations_with_replacement(range(Z.shape[1]), d)]


def _trimmed_lstsq(A: np.ndarray, ly: np.ndarray) -> tuple[np.ndarray, np.ndarray, float] | None:
    """Least squares of ly on A, refitted without the points above the ``_TRIMMED`` quantile
    of the residuals (near a pole or a zero of g, log|y| has outliers): (coefficients, the
    points kept, SSE on them); None if not finite."""
    with np.errstate(all="ignore"):
        coef, *_ = np.linalg.lstsq(A, ly, rcond=None)
        res = np.abs(ly - A @ coef)
        if not (np.all(np.isfinite(coef)) and np.all(np.isfinite(res))):
            return None
        keep = res <= np.quantile(res, _TRIMMED)
        coef, *_ = np.linalg.lstsq(A[keep], ly[keep], rcond=None)
        sse = float(np.sum((ly[keep] - A[keep] @ coef) ** 2))
    if not (np.all(np.isfinite(coef)) and np.isfinite(sse)):
        return None
    return coef, keep, sse


def _explains(sse: float, sst: float, k: int, p: int, share: float) -> bool:
    """Whether a fit of p columns to k points explains ``share`` of the variance (adjusted R^2)."""
    return k > p and sse / (k - p) <= (1.0 - share) * sst / (k - 1)


def _trimmed_fit(A: np.ndarray, ly: np.ndarray) -> tuple[np.ndarray, float] | None:
    """:func:`_trimmed_lstsq` as (coefficients, BIC); None if not finite or if the fit explains
    less than ``_EXPLAINED`` of the variance of ly."""
    fitted = _trimmed_lstsq(A, ly)
    if fitted is None:
        return None
    coef, keep, sse = fitted
    k = int(keep.sum())
    if not _explains(sse, float(np.sum((ly[keep] - ly[keep].mean()) ** 2)), k, A.shape[1], _EXPLAINED):
        return None  # log|y| is not this shape (adjusted R^2): noise or another law, not a reduction
    return coef, k * np.log(max(sse, 1e-300) / k) + A.shape[1] * np.log(k)


def _rounded(a: float, x: np.ndarray) -> float:
    """An exponent of input x rounded to a half (to an integer when x takes negative values)."""
    step = 0.5 if np.all(x > 0) else 1.0
    return float(np.round(a / step) * step)


_QUIET = 0.05
"""The log fits leave out the points where |y| is under this share of the root mean square of
y: additive noise of 1 % of it puts log|y| there off by 0.2 or more and can flip the sign of a
value near 0, while the louder points pin the exponents as well."""


def _audible(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(X, y) without the rows where |y| is under :data:`_QUIET` of its root mean square; all
    rows where fewer than 20 would be left, y is not finite, or an input takes both signs (its
    zero is where y is quiet, and the fit of the louder points nearby, still noisy, passed on
    a curvature that was the noise's: y = x1 at 1 % noise became x1 g(x1 x2^2))."""
    with np.errstate(all="ignore"):
        keep = np.abs(y) >= _QUIET * np.sqrt(np.mean(y * y))
    if not np.all(np.isfinite(y)) or keep.sum() < 20 or np.any((X.min(axis=0) < 0) & (X.max(axis=0) > 0)):
        return X, y
    return X[keep], y[keep]


def _logs(X: np.ndarray, y: np.ndarray):
    """(log|y|, {column: log|x|} of the nonconstant inputs without a zero); None when y has a zero."""
    if X.shape[0] < 20 or not np.all(np.isfinite(y)) or np.any(y == 0):
        return None
    with np.errstate(all="ignore"):
        return np.log(np.abs(y)), {j: np.log(np.abs(X[:, j])) for j in range(X.shape[1])
                                   if np.all(X[:, j] != 0) and np.ptp(X[:, j]) > 0}


def _oriented(b: np.ndarray, X: np.ndarray) -> np.ndarray:
    """The group's exponents b signed so that its inputs of both signs are in the numerator
    where they all share one side: a group with a pole inside the data is the wrong
    orientation ((x2 - x3) / x1 of a Gaussian, not x1 / (x2 - x3)); b as given otherwise."""
    mixed = (X.min(axis=0) < 0) & (X.max(axis=0) > 0)
    return -b if np.any(b[mixed] < 0) and not np.any(b[mixed] > 0) else b


def _group_exponents(v: np.ndarray, X: np.ndarray) -> list[np.ndarray]:
    """Rounded exponent vectors b for the direction v (largest entry 1) of a dimensionless
    group: v rounded to halves, and to integers (noise bends the Hessian: v/c can come out
    as (-0.7, 1)), and so v divided by each of its entries of magnitude 0.2-0.9 (a group
    whose smallest exponent is a quarter of its largest); those with at least 2 inputs and no
    exponent beyond ``_MAX_EXPONENT``, each signed so that its last exponent of largest
    magnitude is positive (v / c, not c / v by chance), but for :func:`_oriented`."""
    out: list[np.ndarray] = []
    units = [v] + [v / v[j] for j in np.argsort(-np.abs(v)) if 0.2 <= abs(v[j]) < 0.9]  # (2, 2, -1, -2, -4) / 4
    for b in [np.array([_rounded(a, X[:, j]) for j, a in enumerate(u)]) for u in units] + [np.round(u) for u in units]:
        top = np.flatnonzero(np.abs(b) == np.abs(b).max())[-1]
        b = _oriented(-b if b[top] < 0 else b, X)  # one orientation whatever the eigenvector's sign
        if (np.count_nonzero(b) >= 2 and np.max(np.abs(b)) <= _MAX_EXPONENT
                and not any(np.array_equal(b, c) for c in out)):
            out.append(b)
    return out


def single_index(X: np.ndarray, y: np.ndarray) -> list[Reduction]:
    """y = prod x^a * g(z) with one monomial z = prod x^b of several inputs (x1 exp(-x2 x3 /
    (x4 x5)), x1 / sqrt(1 - x2^2 / x3^2)): b from the quadratic fit of log|y| on u = log|x|,
    whose Hessian G''(b.u) b b^T has rank one (the leading eigenvector, scaled to a largest
    entry of 1, rounded to halves); a from the fit of log|y| on u and a cubic in z, with and
    without 1/z (x1 exp(-1/z) needs it; in c (z^2 + 1) it bends a), each made as sparse as a +
    t b allows (z^t can move into g), and the one of those and a = 0 kept that leaves log|y| -
    a.u most a function of z; b rounded several ways (:func:`_group_exponents`), the one whose
    second fit has the lower BIC kept; where log|y| is no quadratic in u (exp(-z^2 / 2) / x1
    with z = x2 / x1 over a decade of z), every b of entries -1, 0, 1 over at most
    :data:`_GRID_INPUTS` inputs is tried the same way. At most one reduction; none when b keeps
    fewer than 2 inputs or an input has a zero. Quiet points left out (:func:`_audible`)."""
    X, y = _audible(X, y)
    coords = _log_coordinates(X, y, 2)
    if coords is None:
        return []
    ly, U, pairs = coords
    n, m = X.shape
    H = _log_hessian(U, ly, pairs)
    if H is not None:
        w, V = np.linalg.eigh(H)
        v = V[:, int(np.argmax(np.abs(w)))]
        groups = _group_exponents(v / v[int(np.argmax(np.abs(v)))], X)
    elif m <= _GRID_INPUTS:  # log|y| no quadratic in log|x| (exp(-z^2 / 2) / x1, z = x2 / x1): each small group
        groups = [_oriented(np.array(b, dtype=np.float64), X) for b in product((-1, 0, 1), repeat=m)
                  if np.count_nonzero(b) >= 2 and b[np.flatnonzero(b)[-1]] > 0]
    else:
        return []
    best = None
    for b in groups:
        z = Reduction((tuple(b),), (0.0,) * m, 0.0).inputs(X)
        if not np.all(np.isfinite(z)) or np.ptp(z) == 0:
            continue
        zs = (z - z.mean()) / np.std(z)
        inverse = [1.0 / z] if np.all(z > 0) or np.all(z < 0) else []  # exp(-1/z) as well as exp(-z)
        fits = [f for f in (_trimmed_fit(np.column_stack([np.ones(n), U] + _cubic(zs) + extra), ly)
                            for extra in ([], inverse)[:1 + bool(inverse)]) if f is not None]
        if fits and (best is None or min(f[1] for f in fits) < best[1]):
            best = (b, min(f[1] for f in fits), [f[0] for f in fits], zs, inverse)
    if best is None:
        return []
    b, bic, coefs, zs, inverse = best
    G = np.column_stack([np.ones(n)] + _cubic(zs) + inverse)
    options = []
    for coef in coefs:  # each fit's a, made as sparse as a + t b allows (z^t can move into g)
        a = np.array([_rounded(c, X[:, j]) for j, c in enumerate(coef[1:1 + m])])
        shifts = [0.0] + [float(np.round(-a[j] / b[j] * 2) / 2) for j in range(m) if b[j]]
        options.append(min((a + t * b for t in shifts if np.all(2 * (a + t * b) == np.round(2 * (a + t * b)))),
                           key=lambda c: (np.count_nonzero(c), float(np.abs(c).sum()))))
    options.append(np.zeros(m))
    # the a that leaves log|y| - a.u most a function of z alone (1/z among its columns)
    residual = [(f[2] if f is not None else np.inf) for f in (_trimmed_lstsq(G, ly - U @ a) for a in options)]
    a = options[int(np.argmin(residual))]
    if np.max(np.abs(a)) > _MAX_EXPONENT:
        return []
    return [Reduction((tuple(float(e) for e in b),), tuple(float(e) for e in a), float(bic))]


def _log_coordinates(X: np.ndarray, y: np.ndarray, min_inputs: int):
    """(log|y|, the centred log|x| (n, m), the index pairs of the quadratic fit) for the
    Hessian tests; None with fewer than ``min_inputs`` inputs, a zero in y or an input, or too
    few points for the quadratic fit (half of them)."""
    logs = _logs(X, y)
    n, m = X.shape
    if logs is None or m < min_inputs or len(logs[1]) < m:
        return None
    ly, lx = logs
    U = np.column_stack([lx[j] for j in range(m)])
    pairs = list(combinations_with_replacement(range(m), 2))
    if 1 + m + len(pairs) >= n // 2:
        return None
    return ly, U - U.mean(axis=0), pairs


def _log_hessian(U: np.ndarray, ly: np.ndarray, pairs: list) -> np.ndarray | None:
    """The Hessian of the quadratic fit of log|y| on the centred log|x| (``U``); None where
    that fit explains too little (:func:`_trimmed_fit`)."""
    n, m = U.shape
    fitted = _trimmed_fit(np.column_stack([np.ones(n), U] + [U[:, i] * U[:, j] for i, j in pairs]), ly)
    if fitted is None:
        return None
    H = np.zeros((m, m))
    for (i, j), c in zip(pairs, fitted[0][1 + m:]):
        H[i, j] += c
        H[j, i] += c
    return H


_RANK_ONE = 0.05
"""A Hessian is taken for rank one where its second eigenvalue is below this share of its
first (in magnitude)."""


def _second_ratio(H: np.ndarray) -> tuple[float, np.ndarray]:
    """(|lambda_2 / lambda_1|, the leading eigenvector scaled to a largest entry of 1)."""
    w, V = np.linalg.eigh(H)
    order = np.argsort(-np.abs(w))
    v = V[:, order[0]]
    ratio = abs(w[order[1]] / w[order[0]]) if H.shape[0] > 1 and w[order[0]] != 0 else 0.0
    return float(ratio), v / v[int(np.argmax(np.abs(v)))]


def index_beside(X: np.ndarray, y: np.ndarray) -> list[Reduction]:
    """y = prod x^a * g(z, x_k): one dimensionless group z of the other inputs beside one input
    x_k taken as it is (Compton scattering, E / (1 + E (1 - cos theta) / (m c^2)): z = m c^2 /
    E beside theta). The Hessian of the quadratic fit of log|y| in log|x| then has rank one
    once x_k's row and column are left out: the k whose block is nearest rank one is taken
    where that block is rank one (:data:`_RANK_ONE`), the whole Hessian is not (its ratio
    above three times that, and five times the block's: a law of one group is
    :func:`single_index`'s); b from the block's leading eigenvector,
    rounded as there, a from the fit of log|y| on log|x| and a cubic in (z, x_k), made as
    sparse as a + t b allows. At most one reduction, for 3 or more inputs without a zero; quiet
    points left out (:func:`_audible`)."""
    X, y = _audible(X, y)
    coords = _log_coordinates(X, y, 3)
    if coords is None:
        return []
    ly, U, pairs = coords
    n, m = X.shape
    H = _log_hessian(U, ly, pairs)
    if H is None:
        return []
    whole, _ = _second_ratio(H)
    blocks = [(*_second_ratio(np.delete(np.delete(H, k, 0), k, 1)), k) for k in range(m)]
    ratio, v, k = min(blocks, key=lambda t: t[0])
    if not (ratio < _RANK_ONE and whole > 3 * _RANK_ONE and ratio < whole / 5):
        return []
    others = [j for j in range(m) if j != k]
    xk = X[:, k]
    xks = (xk - xk.mean()) / np.std(xk)
    found = []
    for g in _group_exponents(v, X[:, others]):
        b = np.zeros(m)
        b[others] = g
        z = Reduction((tuple(b),), (0.0,) * m, 0.0).inputs(X)[:, 0]
        if not np.all(np.isfinite(z)) or np.ptp(z) == 0:
            continue
        lz = np.log(np.abs(z))
        zs = (lz - lz.mean()) / np.std(lz)  # in log|z|: z and sqrt(z) fit alike, as they should
        G = np.column_stack([np.ones(n)] + _cubic(np.column_stack([zs, xks])))
        fit = _trimmed_fit(np.column_stack([G, U[:, others]]), ly)
        if fit is not None:
            found.append((b, fit[1], fit[0][G.shape[1]:], G))
    if not found:
        return []
    # integer exponents where their fit is within 2 log n of the best (the model knows
    # m c^2 / E better than its root)
    least = min(f[1] for f in found)
    b, bic, coef, G = min(found, key=lambda f: (not (np.all(f[0] == np.round(f[0])) and f[1] <= least + 2 * np.log(n)),
                                               f[1]))
    # a is known up to a multiple of b (a power of z moves into g, and the cubic in log|z| takes
    # it): every rounding of coef + t b, and none, kept by how well log|y| - a.u is a function
    # of (z, x_k) alone, then the fewest and smallest exponents
    options = {(0.0,) * m}
    for t in np.arange(-3.0, 3.0 + 1e-9, 1.0 / 12.0):
        a = np.zeros(m)
        a[others] = [_rounded(c + t * b[j], X[:, j]) for j, c in zip(others, coef)]
        options.add(tuple(float(e) + 0.0 for e in a))
    scored = []
    for a in options:
        f = _trimmed_lstsq(G, ly - U @ np.array(a))
        scored.append((f[2] if f is not None else np.inf, a))
    floor = min(r for r, _ in scored)
    a = np.array(min(scored, key=lambda t: (t[0] > 1.01 * floor + 1e-12, np.count_nonzero(t[1]),
                                            float(np.abs(t[1]).sum())))[1])
    if not np.isfinite(floor) or np.max(np.abs(a)) > _MAX_EXPONENT:
        return []
    unit = tuple(float(j == k) for j in range(m))
    return [Reduction((tuple(float(e) for e in b), unit), tuple(float(e) for e in a), float(bic))]


_SMOOTH = 0.05
"""A group z is taken for y = g(z) (:func:`smooth_index`) where y sorted by z has a von Neumann
ratio below this (a smooth g over 200 points: about 1e-3; 1 % noise adds 1e-4; no function of
z: about 1)."""


def _von_neumann(z: np.ndarray, y: np.ndarray) -> float:
    """sum (y_(k+1) - y_(k))^2 / (2 sum (y - mean y)^2) over y sorted by z: near 0 where y is a
    smooth function of z, near 1 where z does not tell y."""
    d = np.diff(y[np.argsort(z, kind="stable")])
    sst = float(np.sum((y - y.mean()) ** 2))
    return float(d @ d) / (2.0 * sst) if sst > 0 else np.inf


_INTERPOLATED = 0.005
"""y is taken for a function of z alone (:func:`smooth_in`) where each value, interpolated from
its neighbours in z, is off by less than this share of the variance of y (in the sum; a g of
one group over 200 points: 1e-9 to 3e-3; y that depends on another input as well: 8e-3 and
more on the AI Feynman, separable and composed laws)."""


def smooth_in(z: np.ndarray, y: np.ndarray) -> bool:
    """Whether y is a smooth function of z alone: with y sorted by z, each inner value against
    the straight line through its two neighbours, sum of squared misses below
    :data:`_INTERPOLATED` times sum (y - mean y)^2 (a line in z, not in rank: exp(z) - 1 over
    unevenly spread z is steep, yet a function of z)."""
    o = np.argsort(z, kind="stable")
    zs, ys = z[o], y[o]
    with np.errstate(all="ignore"):
        w = (zs[1:-1] - zs[:-2]) / (zs[2:] - zs[:-2])
    w = np.where(np.isfinite(w), w, 0.5)
    miss = ys[1:-1] - (ys[:-2] + w * (ys[2:] - ys[:-2]))
    sst = float(np.sum((y - y.mean()) ** 2))
    return sst > 0 and float(miss @ miss) < _INTERPOLATED * sst


def smooth_index(X: np.ndarray, y: np.ndarray) -> list[Reduction]:
    """y = g(z) for one monomial z = prod x^b with entries -1, 0, 1 over at least 2 of at most
    :data:`_GRID_INPUTS` inputs (none with a zero), found without any model of g: y sorted by
    z must be smooth (:func:`_von_neumann` below :data:`_SMOOTH`) and twice as smooth as y
    sorted by any one input. For the g that the log fits of :func:`single_index` cannot
    follow: sin(2 pi x1 x2 / x3)^2 over seven periods has zeros, and log|y| is no cubic in z.
    At most one reduction."""
    n, m = X.shape
    if not (2 <= m <= _GRID_INPUTS and n >= 20 and np.all(np.isfinite(y)) and np.ptp(y) > 0
            and np.all(X != 0)):
        return []
    single = min(_von_neumann(X[:, j], y) for j in range(m))
    best = None
    for b in product((-1, 0, 1), repeat=m):
        if np.count_nonzero(b) < 2 or b[np.flatnonzero(b)[-1]] < 0:
            continue
        with np.errstate(all="ignore"):
            z = np.prod([X[:, j] ** float(a) for j, a in enumerate(b) if a], axis=0)
        if not (np.all(np.isfinite(z)) and np.ptp(z) > 0):
            continue
        r = _von_neumann(z, y)
        if best is None or r < best[0]:
            best = (r, b)
    if best is None or best[0] >= _SMOOTH or best[0] >= 0.5 * single:
        return []
    return [Reduction((tuple(float(a) for a in best[1]),), (0.0,) * m, 0.0)]


def _signed_fit(X: np.ndarray, Z: np.ndarray, inner: tuple[int, ...], r: np.ndarray) -> float | None:
    """BIC of r = y / prod x_O^a fitted in its own units by a cubic in the standardised x_S,
    1/x_j (inputs of one sign) and log|x_j| (no zero) of S; None unless it explains
    ``_SIGNED`` of the variance of r."""
    n = X.shape[0]
    cols = [np.ones(n)] + _cubic(Z[:, list(inner)])
    with np.errstate(all="ignore"):
        cols += [1.0 / X[:, j] for j in inner if np.all(X[:, j] > 0) or np.all(X[:, j] < 0)]
        cols += [np.log(np.abs(X[:, j])) for j in inner if np.all(X[:, j] != 0)]
    B = np.column_stack(cols)
    if not (np.all(np.isfinite(B)) and np.all(np.isfinite(r)) and np.ptp(r) > 0):
        return None
    rs = (r - r.mean()) / np.std(r)
    coef, *_ = np.linalg.lstsq(B, rs, rcond=None)
    sse = float(np.sum((rs - B @ coef) ** 2))
    if not (np.isfinite(sse) and _explains(sse, float(n), n, B.shape[1], _SIGNED)):
        return None
    return n * np.log(max(sse, 1e-300) / n) + B.shape[1] * np.log(n)


def monomial_splits(X: np.ndarray, y: np.ndarray, max_inner: int = 3, limit: int = 2) -> list[Reduction]:
    """The ``limit`` best splits of y into a monomial of some inputs times a function of at
    most ``max_inner`` others, best (lowest BIC) first, on the points where |y| is not quiet
    (:func:`_audible`); none with fewer than 20 points. An input with a zero can only be
    inner. Splits with no outer input, or whose rounded exponents are all 0, are left out (the
    power law and the plain search cover them).

    A g that changes sign (sin x4, log(x5 / x4), 1/x4 - 1/x3) leaves log|y| with a tail of
    outliers at its zeros that fails the test on log|y|; where no split passes it, the
    exponents of the trimmed log fit are kept and the split is tested on y / prod x_O^a in
    its own units instead (:func:`_signed_fit`, a stricter ``_SIGNED``), and those splits
    are ranked by that fit's BIC."""
    X, y = _audible(X, y)
    n, m = X.shape
    found_logs = _logs(X, y)
    if found_logs is None or m <= 1:
        return []
    ly, logs = found_logs
    sd = X.std(axis=0)
    Z = (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    must_inner = [j for j in range(m) if j not in logs]
    if len(must_inner) > max_inner:
        return []
    found, signed = [], []
    for size in range(max(1, len(must_inner)), min(max_inner, m - 1) + 1):
        for inner in combinations(range(m), size):
            if any(j not in inner for j in must_inner):
                continue
            outer = [j for j in range(m) if j not in inner and j in logs]
            A = np.column_stack([np.ones(n)] + [logs[j] for j in outer] + _cubic(Z[:, list(inner)])
                                + [logs[j] for j in inner if j in logs])
            fitted = _trimmed_lstsq(A, ly)
            if fitted is None:
                continue
            coef, keep, sse = fitted
            factor = np.zeros(m)
            factor[outer] = [_rounded(a, X[:, j]) for j, a in zip(outer, coef[1:1 + len(outer)])]
            if not factor.any() or np.max(np.abs(factor)) > _MAX_EXPONENT:
                continue
            unit = tuple(tuple(float(j == i) for j in range(m)) for i in inner)
            k = int(keep.sum())
            if _explains(sse, float(np.sum((ly[keep] - ly[keep].mean()) ** 2)), k, A.shape[1], _EXPLAINED):
                bic = k * np.log(max(sse, 1e-300) / k) + A.shape[1] * np.log(k)
                found.append(Reduction(unit, tuple(float(a) for a in factor), float(bic)))
            elif not found:
                split = Reduction(unit, tuple(float(a) for a in factor), 0.0)
                with np.errstate(all="ignore"):
                    bic = _signed_fit(X, Z, inner, y / split.factor(X))
                if bic is not None:
                    signed.append(replace(split, score=float(bic)))
    found.sort(key=lambda r: (r.score, len(r.inner)))
    out, seen = [], set()
    for r in found or sorted(signed, key=lambda r: (r.score, len(r.inner))):
        if (r.inner, r.factor_exponents) not in seen:
            seen.add((r.inner, r.factor_exponents))
            out.append(r)
    return out[:limit]


def reductions(X: np.ndarray, y: np.ndarray, max_inner: int = 3, limit: int = 3) -> list[Reduction]:
    """The reductions worth a search of the structure model, at most ``limit``, in this
    order: the best monomial split, a group beside one input (else the single-index
    reduction, else the smooth index), the data in the differences (or sums) of the inputs
    that enter only through them (:func:`translations`; as they are when few enough, else
    their best monomial split), the second monomial split."""
    splits = monomial_splits(X, y, max_inner, limit=2)
    out = splits[:1] + (index_beside(X, y) or single_index(X, y) or smooth_index(X, y))
    P = translations(X, y)
    if P is not None:
        W = X @ np.array(P).T
        if W.shape[1] <= max_inner:
            out.append(Reduction(tuple(tuple(float(k == j) for k in range(W.shape[1])) for j in range(W.shape[1])),
                                 (0.0,) * W.shape[1], 0.0, P))
        else:
            out += [replace(r, linear=P) for r in monomial_splits(W, y, max_inner, limit=1)]
    return (out + splits[1:])[:limit]
