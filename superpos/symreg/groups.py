"""Dimensionless groups: y = prod x^a * g(z) with z = prod x^b one monomial of several inputs
(:func:`single_index`), such a group beside one input taken as it is (:func:`index_beside`), and
where log|y| follows no such fit, the group along which y is smoothest (:func:`smooth_index`).
The module docstring of :mod:`~superpos.symreg.decompose` says how they serve the reductions."""
from __future__ import annotations

from itertools import combinations_with_replacement, product

import numpy as np

from .reduction import Reduction, _audible, _both_signs, _cubic, _logs, _rounded, _trimmed_fit, _trimmed_lstsq
from .tuning import TUNING, Tuning

__all__ = ["single_index", "index_beside", "smooth_index", "smooth_in"]



def _sparsity(a: np.ndarray) -> tuple[int, float]:
    """Fewest exponents, then the smallest: the order a factor's exponents are chosen in."""
    return int(np.count_nonzero(a)), float(np.abs(a).sum())


def _oriented(b: np.ndarray, X: np.ndarray) -> np.ndarray:
    """The group's exponents b signed so that its inputs of both signs are in the numerator
    where they all share one side: a group with a pole inside the data is the wrong
    orientation ((x2 - x3) / x1 of a Gaussian, not x1 / (x2 - x3)); b as given otherwise."""
    mixed = _both_signs(X)
    return -b if np.any(b[mixed] < 0) and not np.any(b[mixed] > 0) else b


def _group_exponents(v: np.ndarray, X: np.ndarray, tuning: Tuning) -> list[np.ndarray]:
    """Rounded exponent vectors b for the direction v (largest entry 1) of a dimensionless
    group: v rounded to halves, and to integers (noise bends the Hessian: v/c can come out
    as (-0.7, 1)), and so v divided by each of its entries of magnitude 0.2-0.9 (a group
    whose smallest exponent is a quarter of its largest); those with at least 2 inputs and no
    exponent beyond ``max_law_exponent``, each signed so that its last exponent of largest
    magnitude is positive (v / c, not c / v by chance), but for :func:`_oriented`."""
    out: list[np.ndarray] = []
    units = [v] + [v / v[j] for j in np.argsort(-np.abs(v)) if 0.2 <= abs(v[j]) < 0.9]  # (2, 2, -1, -2, -4) / 4
    for b in [np.array([_rounded(a, X[:, j]) for j, a in enumerate(u)]) for u in units] + [np.round(u) for u in units]:
        top = np.flatnonzero(np.abs(b) == np.abs(b).max())[-1]
        b = _oriented(-b if b[top] < 0 else b, X)  # one orientation whatever the eigenvector's sign
        if (np.count_nonzero(b) >= 2 and np.max(np.abs(b)) <= tuning.max_law_exponent
                and not any(np.array_equal(b, c) for c in out)):
            out.append(b)
    return out


def single_index(X: np.ndarray, y: np.ndarray, tuning: Tuning = TUNING) -> list[Reduction]:
    """y = prod x^a * g(z) with one monomial z = prod x^b of several inputs (x1 exp(-x2 x3 /
    (x4 x5)), x1 / sqrt(1 - x2^2 / x3^2)): b from the quadratic fit of log|y| on u = log|x|,
    whose Hessian G''(b.u) b b^T has rank one (the leading eigenvector, scaled to a largest
    entry of 1, rounded to halves); a from the fit of log|y| on u and a cubic in z, with and
    without 1/z (x1 exp(-1/z) needs it; in c (z^2 + 1) it bends a), each made as sparse as a +
    t b allows (z^t can move into g), and the one of those and a = 0 kept that leaves log|y| -
    a.u most a function of z; b rounded several ways (:func:`_group_exponents`), the one whose
    second fit has the lower BIC kept (among fits within ``group_bic_tie`` of the least, the one
    of fewest fractional exponents, then of the smallest); over at most ``group_grid_inputs`` inputs every b of
    entries -1, 0, 1 is tried the same way as well (log|y| may be no quadratic in u, as
    exp(-z^2 / 2) / x1 with z = x2 / x1 over a decade of z, or one bent by the points near a zero
    of an input of both signs: z = (x2 - x3) / x1 came out (1, -2.5)). At most one reduction;
    none when b keeps fewer than 2 inputs or an input has a zero. Quiet points left out (:func:`_audible`)."""
    quadratic = _log_quadratic(X, y, 2, tuning)
    if quadratic is None:
        return []
    X, ly, U, H = quadratic
    n, m = X.shape
    groups = []
    if H is not None:
        w, V = np.linalg.eigh(H)
        v = V[:, int(np.argmax(np.abs(w)))]
        groups = _group_exponents(v / v[int(np.argmax(np.abs(v)))], X, tuning)
    if m <= tuning.group_grid_inputs:  # log|y| no quadratic in log|x|, or one bent by points near a zero of an
        # input of both signs (exp(-z^2 / 2) / x1, z = x2 / x1): each small group as well
        groups += [_oriented(np.array(b, dtype=np.float64), X) for b in product((-1, 0, 1), repeat=m)
                   if np.count_nonzero(b) >= 2 and b[np.flatnonzero(b)[-1]] > 0]
    if not groups:
        return []
    tried = []
    for b in groups:
        z = Reduction((tuple(b),), (0.0,) * m, 0.0).inputs(X)
        if not np.all(np.isfinite(z)) or np.ptp(z) == 0:
            continue
        zs = (z - z.mean()) / np.std(z)
        inverse = [1.0 / z] if np.all(z > 0) or np.all(z < 0) else []  # exp(-1/z) as well as exp(-z)
        fits = [f for f in (_trimmed_fit(np.column_stack([np.ones(n), U] + _cubic(zs) + extra), ly, tuning)
                            for extra in ([], inverse)[:1 + bool(inverse)]) if f is not None]
        if fits:
            tried.append((b, min(f[1] for f in fits), [f[0] for f in fits], zs, inverse))
    if not tried:
        return []
    least = min(t[1] for t in tried)
    b, bic, coefs, zs, inverse = min((t for t in tried if t[1] <= least + tuning.group_bic_tie),
                                     key=lambda t: (int(np.sum(t[0] != np.round(t[0]))), float(np.abs(t[0]).sum()), t[1]))
    G = np.column_stack([np.ones(n)] + _cubic(zs) + inverse)
    options = []
    for coef in coefs:  # each fit's a, made as sparse as a + t b allows (z^t can move into g)
        raw = coef[1:1 + m]
        a = np.array([_rounded(c, X[:, j]) for j, c in enumerate(raw)])
        shifts = [0.0] + [float(np.round(-a[j] / b[j] * 2) / 2) for j in range(m) if b[j]]
        rounded = min((a + t * b for t in shifts if np.all(2 * (a + t * b) == np.round(2 * (a + t * b)))), key=_sparsity)
        # shifted before rounding where that has fewer exponents: at 1 % noise x4^2 / x1 beside
        # z = x2^0.5 x5 / (x3 x4) came out (-1, -0.2, 0.45, 2.45, -0.45), rounded (-1, 0, 0.5, 2.5, -0.5),
        # which no half-step along b makes sparse; shifted first, (-1, 0, 0, 2, 0)
        shifted = min((np.array([_rounded(c, X[:, j]) + 0.0 for j, c in enumerate(raw - raw[k] / b[k] * b)])
                       for k in range(m) if b[k]), key=_sparsity)
        options.append(shifted if np.count_nonzero(shifted) < np.count_nonzero(rounded) else rounded)
    options.append(np.zeros(m))
    # the a that leaves log|y| - a.u most a function of z alone (1/z among its columns)
    residual = [(f[2] if f is not None else np.inf) for f in (_trimmed_lstsq(G, ly - U @ a, tuning) for a in options)]
    a = options[int(np.argmin(residual))]
    if np.max(np.abs(a)) > tuning.max_law_exponent:
        return []
    return [Reduction((tuple(float(e) for e in b),), tuple(float(e) for e in a), float(bic))]


def _log_quadratic(X: np.ndarray, y: np.ndarray, min_inputs: int, tuning: Tuning):
    """(the audible rows of X (:func:`_audible`), their log|y|, centred log|x| and the Hessian
    of the quadratic fit, None where it explains too little) for the Hessian tests; None where
    :func:`_log_coordinates` is."""
    X, y = _audible(X, y, tuning)
    coords = _log_coordinates(X, y, min_inputs)
    if coords is None:
        return None
    ly, U, pairs = coords
    return X, ly, U, _log_hessian(U, ly, pairs, tuning)


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


def _log_hessian(U: np.ndarray, ly: np.ndarray, pairs: list, tuning: Tuning) -> np.ndarray | None:
    """The Hessian of the quadratic fit of log|y| on the centred log|x| (``U``); None where
    that fit explains too little (:func:`_trimmed_fit`)."""
    n, m = U.shape
    fitted = _trimmed_fit(np.column_stack([np.ones(n), U] + [U[:, i] * U[:, j] for i, j in pairs]), ly, tuning)
    if fitted is None:
        return None
    H = np.zeros((m, m))
    for (i, j), c in zip(pairs, fitted[0][1 + m:]):
        H[i, j] += c
        H[j, i] += c
    return H



def _second_ratio(H: np.ndarray) -> tuple[float, np.ndarray]:
    """(|lambda_2 / lambda_1|, the leading eigenvector scaled to a largest entry of 1)."""
    w, V = np.linalg.eigh(H)
    order = np.argsort(-np.abs(w))
    v = V[:, order[0]]
    ratio = abs(w[order[1]] / w[order[0]]) if H.shape[0] > 1 and w[order[0]] != 0 else 0.0
    return float(ratio), v / v[int(np.argmax(np.abs(v)))]


def index_beside(X: np.ndarray, y: np.ndarray, tuning: Tuning = TUNING) -> list[Reduction]:
    """y = prod x^a * g(z, x_k): one dimensionless group z of the other inputs beside one input
    x_k taken as it is (Compton scattering, E / (1 + E (1 - cos theta) / (m c^2)): z = m c^2 /
    E beside theta). The Hessian of the quadratic fit of log|y| in log|x| then has rank one
    once x_k's row and column are left out: the k whose block is nearest rank one is taken
    where that block is rank one (``hessian_rank_one``), the whole Hessian is not (its ratio
    above three times that, and five times the block's: a law of one group is
    :func:`single_index`'s); b from the block's leading eigenvector,
    rounded as there, a from the fit of log|y| on log|x| and a cubic in (z, x_k), made as
    sparse as a + t b allows. At most one reduction, for 3 or more inputs without a zero; quiet
    points left out (:func:`_audible`)."""
    quadratic = _log_quadratic(X, y, 3, tuning)
    if quadratic is None:
        return []
    X, ly, U, H = quadratic
    n, m = X.shape
    if H is None:
        return []
    whole, _ = _second_ratio(H)
    blocks = [(*_second_ratio(np.delete(np.delete(H, k, 0), k, 1)), k) for k in range(m)]
    ratio, v, k = min(blocks, key=lambda t: t[0])
    if not (ratio < tuning.hessian_rank_one and whole > 3 * tuning.hessian_rank_one and ratio < whole / 5):
        return []
    others = [j for j in range(m) if j != k]
    xk = X[:, k]
    xks = (xk - xk.mean()) / np.std(xk)
    found = []
    for g in _group_exponents(v, X[:, others], tuning):
        b = np.zeros(m)
        b[others] = g
        z = Reduction((tuple(b),), (0.0,) * m, 0.0).inputs(X)[:, 0]
        if not np.all(np.isfinite(z)) or np.ptp(z) == 0:
            continue
        lz = np.log(np.abs(z))
        zs = (lz - lz.mean()) / np.std(lz)  # in log|z|: z and sqrt(z) fit alike, as they should
        G = np.column_stack([np.ones(n)] + _cubic(np.column_stack([zs, xks])))
        fit = _trimmed_fit(np.column_stack([G, U[:, others]]), ly, tuning)
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
        f = _trimmed_lstsq(G, ly - U @ np.array(a), tuning)
        scored.append((f[2] if f is not None else np.inf, a))
    floor = min(r for r, _ in scored)
    a = np.array(min(scored, key=lambda t: (t[0] > 1.01 * floor + 1e-12, np.count_nonzero(t[1]),
                                            float(np.abs(t[1]).sum())))[1])
    if not np.isfinite(floor) or np.max(np.abs(a)) > tuning.max_law_exponent:
        return []
    unit = tuple(float(j == k) for j in range(m))
    return [Reduction((tuple(float(e) for e in b), unit), tuple(float(e) for e in a), float(bic))]



def _von_neumann(z: np.ndarray, y: np.ndarray) -> float:
    """sum (y_(k+1) - y_(k))^2 / (2 sum (y - mean y)^2) over y sorted by z: near 0 where y is a
    smooth function of z, near 1 where z does not tell y."""
    d = np.diff(y[np.argsort(z, kind="stable")])
    sst = float(np.sum((y - y.mean()) ** 2))
    return float(d @ d) / (2.0 * sst) if sst > 0 else np.inf



def smooth_in(z: np.ndarray, y: np.ndarray, tuning: Tuning = TUNING) -> bool:
    """Whether y is a smooth function of z alone: with y sorted by z, each inner value against
    the straight line through its two neighbours, sum of squared misses below
    ``index_interpolated`` times sum (y - mean y)^2 (a line in z, not in rank: exp(z) - 1 over
    unevenly spread z is steep, yet a function of z)."""
    o = np.argsort(z, kind="stable")
    zs, ys = z[o], y[o]
    with np.errstate(all="ignore"):
        w = (zs[1:-1] - zs[:-2]) / (zs[2:] - zs[:-2])
    w = np.where(np.isfinite(w), w, 0.5)
    miss = ys[1:-1] - (ys[:-2] + w * (ys[2:] - ys[:-2]))
    sst = float(np.sum((y - y.mean()) ** 2))
    return sst > 0 and float(miss @ miss) < tuning.index_interpolated * sst


def smooth_index(X: np.ndarray, y: np.ndarray, tuning: Tuning = TUNING) -> list[Reduction]:
    """y = g(z) for one monomial z = prod x^b with entries -1, 0, 1 over at least 2 of at most
    ``group_grid_inputs`` inputs (none with a zero), found without any model of g: y sorted by
    z must be smooth (:func:`_von_neumann` below ``index_smooth``) and twice as smooth as y
    sorted by any one input. For the g that the log fits of :func:`single_index` cannot
    follow: sin(2 pi x1 x2 / x3)^2 over seven periods has zeros, and log|y| is no cubic in z.
    At most one reduction."""
    n, m = X.shape
    if not (2 <= m <= tuning.group_grid_inputs and n >= 20 and np.all(np.isfinite(y)) and np.ptp(y) > 0
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
    if best is None or best[0] >= tuning.index_smooth or best[0] >= 0.5 * single:
        return []
    return [Reduction((tuple(float(a) for a in best[1]),), (0.0,) * m, 0.0)]
