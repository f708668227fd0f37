"""Rational laws y = P(x) / Q(x), P and Q sparse polynomials of low degree in the inputs
(weighted means, saturations, (x1 + x2 x3) / (x1 + x4), 1 + n a / (1 - n a / 3)).

Such a law makes y Q(x) - P(x) vanish at every point: the coefficients of P and Q are a null
vector of the matrix [M_P, -y M_Q] of monomials. It is taken with P solved out (y Q projected
on P's columns) and Q of unit mean square (:func:`_fit`), so that no combination of P's
collinear monomials that nearly vanishes passes for a fit. Degrees are tried from the lowest,
(1, 1), (2, 1), (1, 2), (2, 2), (3, 1), (1, 3), (3, 2), (2, 3), (3, 3), while the columns stay
under half the points and 60 (a larger pair also holds every smaller law times a common factor;
the relativistic sum of velocities (u + v) / (1 + u v / c^2) is (3, 2)); each fit is made
sparse by backward elimination (:func:`_sparse`) and proposed with at most 6 terms. numpy
only: the fits are starts for the engine, which refits, snaps and compares them like any
candidate.

Over few inputs the same null vector is sought over trigonometric columns
(:func:`trig_rational_fits`): cos x_j, sin x_j and cos(x_i x_j), in P also times each input,
in Q beside the monomials. sin(x2 x3 / 2)^2 / sin(x2 / 2)^2 (N slits)
is (1 - cos(x2 x3)) / (1 - cos x2), a ratio of sparse sums that no tree of the structure model
holds and no polynomial describes.
"""
from __future__ import annotations

import itertools

import numpy as np
import sympy

from .template import monomials
from .terms import _price
from .tuning import TUNING, Tuning

__all__ = ["rational_fits", "trig_rational_fits", "DEGREES"]

DEGREES = ((1, 1), (2, 1), (1, 2), (2, 2), (3, 1), (1, 3), (3, 2), (2, 3), (3, 3), (4, 3))
"""(degree of P, degree of Q) in the order tried; (4, 3) over ``rational_quartic_inputs``
inputs only (35 + 20 columns over three, under the cap; over fewer it costs more time than the
degree-3 fits it follows ever needed)."""


def _exponents(m: int, degree: int) -> list[tuple[int, ...]]:
    """Exponent vectors of the monomials of m inputs up to total ``degree``, the constant first."""
    out = [(0,) * m]
    for d in range(1, degree + 1):
        for combo in itertools.combinations_with_replacement(range(m), d):
            e = [0] * m
            for j in combo:
                e[j] += 1
            out.append(tuple(e))
    return out


def _fit(MP: np.ndarray, MQ: np.ndarray, v: np.ndarray, weight: np.ndarray | None = None) \
        -> tuple[float, np.ndarray, np.ndarray] | None:
    """(lambda, a, b): the Q of unit mean square (Q = MQ b) and the P = MP a that minimise the
    mean square of (v Q - P) (rows times ``weight``), lambda that minimum. P is solved out (v Q
    projected on P's columns), so b is the least singular vector of the projected v MQ over
    MQ's own scale: no direction of P alone (a combination of collinear monomials that nearly
    vanishes) can pass for a fit."""
    w = np.ones(v.size) if weight is None else weight
    P, Z, Q = MP * w[:, None], (v * w)[:, None] * MQ, MQ * w[:, None]
    try:
        qp, _ = np.linalg.qr(P)
        rq = np.linalg.qr(Q, mode="r")
        R = Z - qp @ (qp.T @ Z)
        M = np.linalg.solve(rq.T, R.T).T  # R rq^-1: b = rq^-1 u with |u| = 1 gives |Q b| = 1
        _, sv, vt = np.linalg.svd(M, full_matrices=False)
        b = np.linalg.solve(rq, vt[-1])
        a, *_ = np.linalg.lstsq(P, Z @ b, rcond=None)
    except np.linalg.LinAlgError:
        return None
    lam = float(sv[-1]) ** 2 / v.size
    if not (np.isfinite(lam) and np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        return None
    return lam, a, b


def _error(MP: np.ndarray, MQ: np.ndarray, a: np.ndarray, b: np.ndarray, v: np.ndarray) -> float:
    """Normalised squared error of P / Q against v (inf where Q vanishes)."""
    q = MQ @ b
    if np.any(np.abs(q) <= 1e-12 * np.max(np.abs(q), initial=0.0)):
        return np.inf
    with np.errstate(all="ignore"):
        r = v - (MP @ a) / q
    e = float(r @ r) / float(np.sum((v - v.mean()) ** 2))
    return e if np.isfinite(e) else np.inf


def _least(K: dict, pc: list[int], qc: list[int]) -> float:
    """:func:`_fit`'s lambda from the Gram blocks ``K`` (columns of unit norm): the least
    generalised eigenvalue of (C, D), C = Z'Z - Z'P (P'P)^-1 P'Z, D = Q'Q, on small matrices
    whatever the number of points (squared, so good to about 1e-13: enough to rank drops)."""
    try:
        B = K["pz"][np.ix_(pc, qc)]
        C = K["zz"][np.ix_(qc, qc)] - B.T @ np.linalg.solve(K["pp"][np.ix_(pc, pc)], B)
        L = np.linalg.cholesky(K["qq"][np.ix_(qc, qc)])
        M = np.linalg.solve(L, np.linalg.solve(L, C).T)
        return float(np.linalg.eigvalsh((M + M.T) / 2.0)[0])
    except np.linalg.LinAlgError:
        return np.inf


def _least_many(K: dict, pcs: list[list[int]], qcs: list[list[int]]) -> np.ndarray:
    """:func:`_least` for many column sets at once (all of ``pcs`` of one length, all of
    ``qcs`` of one length; one of them may hold a single set, shared): the same matrices
    stacked through numpy's batched solvers, set by set where one of them is singular."""
    k = max(len(pcs), len(qcs))
    P = np.broadcast_to(np.asarray(pcs, dtype=np.int64), (k, len(pcs[0])))
    Q = np.broadcast_to(np.asarray(qcs, dtype=np.int64), (k, len(qcs[0])))
    try:
        B = K["pz"][P[:, :, None], Q[:, None, :]]
        BT = np.swapaxes(B, -1, -2)
        C = K["zz"][Q[:, :, None], Q[:, None, :]] - BT @ np.linalg.solve(K["pp"][P[:, :, None], P[:, None, :]], B)
        L = np.linalg.cholesky(K["qq"][Q[:, :, None], Q[:, None, :]])
        M = np.linalg.solve(L, np.swapaxes(np.linalg.solve(L, C), -1, -2))
        return np.linalg.eigvalsh((M + np.swapaxes(M, -1, -2)) / 2.0)[:, 0]
    except np.linalg.LinAlgError:
        return np.array([_least(K, list(p), list(q)) for p, q in zip(P, Q)])


def _polynomial_error(MP: np.ndarray, v: np.ndarray) -> float:
    """Normalised squared error of the least-squares polynomial on P's monomials (Q = 1)."""
    coef, *_ = np.linalg.lstsq(MP, v, rcond=None)
    r = v - MP @ coef
    return float(r @ r) / float(np.sum((v - v.mean()) ** 2))


def _least_drop(drops: list, MP: np.ndarray, MQ: np.ndarray, v: np.ndarray, pc: list[int], qc: list[int],
                on_points: bool, floor: float):
    """The drop (lambda, side, rest) of least lambda, the first of equal values; with
    ``on_points``, where several fall below the Gram matrices' round-off (``floor``, exact
    data), the one of them whose fit on the points (:func:`_fit`, not squared) has the least
    lambda: among the trigonometric columns of 2 (1 - cos x) / x^2 the Gram values of dropping
    x^2 and of dropping x^3 are both round-off, and which came first depended on the points
    (found on 120 and 200 of them, not on 150). Not for the monomial ratios: there every
    multiple (x2 + a) of a polynomial is exact too, and the ranking on the points kept
    x1 (x2^2 - a^2) / (x2 + a) where the Gram order lost it and the model found x1 (x2 - a)."""
    if not drops:
        return None
    best = min(drops, key=lambda d: d[0])
    ties = [d for d in drops if d[0] < floor] if on_points else []
    if len(ties) < 2:
        return best

    def accurate(d) -> float:
        got = _fit(MP[:, d[2] if d[1] == 0 else pc], MQ[:, d[2] if d[1] == 1 else qc], v)
        return np.inf if got is None else got[0]

    return min(ties, key=accurate)


def _sparse(MP: np.ndarray, MQ: np.ndarray, v: np.ndarray, tuning: Tuning, searched: bool = False,
            ties_on_points: bool = False) \
        -> tuple[list[int], list[int], np.ndarray, np.ndarray, float] | None:
    """Backward elimination over the columns of P and Q: (P's kept, Q's kept, a, b, error of
    P / Q). Each step drops the column whose loss raises :func:`_fit`'s lambda the least
    (:func:`_least`), while the information criterion n log(lambda) + k log n falls (lambda
    floored at the Gram matrices' round-off, ``rational_gram_floor``); the kept columns are then
    fitted on the points (:func:`_fit`) with rows over |Q| (Sanathanan-Koerner,
    ``rational_reweights`` steps), which turns the error of v Q - P
    into that of v - P / Q. ``ties_on_points``: round-off ties ranked on the points
    (:func:`_least_drop`). ``searched``: a column costs :func:`~superpos.symreg.terms._price`
    of the p columns (log n + 2 log p, as chosen among them) instead of log n."""
    n = v.size
    MP_in, MQ_in = MP, MQ
    MP = MP / np.linalg.norm(MP, axis=0)
    MQ = MQ / np.linalg.norm(MQ, axis=0)
    Z = v[:, None] * MQ
    K = {"pp": MP.T @ MP, "pz": MP.T @ Z, "zz": Z.T @ Z, "qq": MQ.T @ MQ}
    pc, qc = list(range(MP.shape[1])), list(range(MQ.shape[1]))
    price = _price(n, MP.shape[1] + MQ.shape[1]) if searched else np.log(n)
    floor = tuning.rational_gram_floor
    score = lambda lam, k: n * np.log(max(lam, floor)) + k * price  # noqa: E731
    cur = _least(K, pc, qc)
    if not np.isfinite(cur):
        return None
    while len(pc) + len(qc) > 2:
        drops = []
        for side, cols in ((0, pc), (1, qc)):
            if len(cols) < 2:
                continue
            rests = [cols[:i] + cols[i + 1:] for i in range(len(cols))]
            lams = _least_many(K, rests, [qc]) if side == 0 else _least_many(K, [pc], rests)
            drops += [(float(lam), side, rest) for lam, rest in zip(np.where(np.isnan(lams), np.inf, lams), rests)]
        best = _least_drop(drops, MP, MQ, v, pc, qc, ties_on_points, floor)
        if best is None or score(best[0], len(pc) + len(qc) - 1) >= score(cur, len(pc) + len(qc)):
            break
        cur = best[0]
        if best[1] == 0:
            pc = best[2]
        else:
            qc = best[2]
    got = _fit(MP[:, pc], MQ[:, qc], v)
    for _ in range(tuning.rational_reweights):
        if got is None:
            return None
        q = np.abs(MQ[:, qc] @ got[2])
        if np.any(q <= 1e-12 * np.max(q, initial=0.0)):
            break
        got = _fit(MP[:, pc], MQ[:, qc], v, 1.0 / q) or got
    _, a, b = got
    # back to the unscaled monomials of the caller
    return pc, qc, a / np.linalg.norm(MP_in[:, pc], axis=0), b / np.linalg.norm(MQ_in[:, qc], axis=0), \
        _error(MP[:, pc], MQ[:, qc], a, b, v)


def _arrays(X, y) -> tuple[np.ndarray, np.ndarray]:
    return np.asarray(X, dtype=np.float64), np.asarray(y, dtype=np.float64).ravel()


def _usable(X, y, max_inputs: int) -> bool:
    """Whether (X, y) can hold a rational fit: 20 points or more, 1 to ``max_inputs`` inputs,
    finite values and a y that is not constant."""
    X, y = _arrays(X, y)
    n, m = X.shape
    return (n >= 20 and 1 <= m <= max_inputs and bool(np.all(np.isfinite(X))) and bool(np.all(np.isfinite(y)))
            and np.ptp(y) > 0)


def rational_fits(X: np.ndarray, y: np.ndarray, max_inputs: int = 8,
                  tuning: Tuning = TUNING) -> list[tuple[sympy.Expr, float]]:
    """Sparse rational fits P / Q of y on X, as (sympy expression over x1..xm with float
    coefficients, normalised error), the ``rational_keep`` least errors first. Q has two terms
    or more (a polynomial over a monomial is the library sums' or the power laws' to find), P / Q
    leaves at most ``rational_gain`` of what P's polynomial alone leaves (a denominator that
    explains nothing is no rational law), P and Q hold at most ``rational_max_terms`` terms
    together (more fit a smooth curve closely, a curve fit and no law), and Q's largest term (its
    constant where that one is at least a tenth of the largest) is written with the coefficient
    1. Pairs of degrees with more monomials than ``rational_max_columns`` (or than half the
    points) are not tried: the elimination's cost grows with the square of the columns. Empty
    below 20 points, above ``max_inputs`` inputs, or where no fit explains
    ``rational_explained`` of y."""
    if not _usable(X, y, max_inputs):
        return []
    X, y = _arrays(X, y)
    n, m = X.shape
    sx = np.sqrt(np.mean(X**2, axis=0))
    sy = float(np.sqrt(np.mean(y**2)))
    if np.any(sx == 0) or sy == 0:
        return []
    U, v = X / sx, y / sy
    found: dict = {}
    for dp, dq in DEGREES:
        ep, eq = _exponents(m, dp), _exponents(m, dq)
        if len(ep) + len(eq) > min(n // 2, tuning.rational_max_columns) or (dp == 4 and m != tuning.rational_quartic_inputs):
            continue
        MP, MQ = monomials(U, dp), monomials(U, dq)  # columns in the order of ep, eq
        got = _sparse(MP, MQ, v, tuning)
        if got is None:
            continue
        pc, qc, a, b, e = got
        if (e > 1.0 - tuning.rational_explained or len(pc) + len(qc) > tuning.rational_max_terms or len(qc) < 2
                or e > tuning.rational_gain * _polynomial_error(MP, v)):
            continue
        key = (tuple(ep[c] for c in pc), tuple(eq[c] for c in qc))
        if key not in found or e < found[key][2]:
            found[key] = (a, b, e, [ep[c] for c in pc], [eq[c] for c in qc])
        if e <= 1e-12:  # exact: a larger pair of degrees holds only this law times common factors
            break
    out = []
    xs = sympy.symbols(f"x1:{m + 1}", real=True)
    for a, b, e, ep, eq in sorted(found.values(), key=lambda t: t[2])[:tuning.rational_keep]:
        weights = np.abs(b)
        # coefficients in the user's units: a monomial of U is that of X over prod sx^e
        a = a * sy / np.array([np.prod(sx ** np.array(t)) for t in ep])
        b = b / np.array([np.prod(sx ** np.array(t)) for t in eq])
        lead = int(np.argmax(weights))
        if not any(eq[0]) and weights[0] >= 0.1 * weights[lead]:
            lead = 0
        a, b = a / b[lead], b / b[lead]

        def poly(coef, exps, fixed=None):
            terms = []
            for i, (c, t) in enumerate(zip(coef, exps)):
                mono = sympy.Mul(*[x**p for x, p in zip(xs, t)])
                terms.append(mono if i == fixed else sympy.Float(float(c)) * mono)
            return sympy.Add(*terms)

        out.append((poly(a, ep) / poly(b, eq, fixed=lead), e))
        shared = [i for i, t in enumerate(ep) if t in eq]
        if len(shared) == len(eq) < len(ep):  # P holds c Q: c + (P - c Q) / Q, one term shorter
            c = float(np.median([a[i] / b[eq.index(ep[i])] for i in shared]))
            rest = [i for i in range(len(ep)) if i not in shared]
            out.append((sympy.Float(c) + poly(a[rest], [ep[i] for i in rest]) / poly(b, eq, fixed=lead), e))
    return out


def _trig_columns(X: np.ndarray) -> tuple[list[sympy.Expr], np.ndarray, list[sympy.Expr], np.ndarray]:
    """(P's expressions and values, Q's expressions and values): Q's are the monomials up to
    degree 3 (2 for three inputs), cos x_j, sin x_j and cos(x_i x_j); P's are 1 and the
    trigonometric ones, each also times every x_j. Columns that are not finite or constant
    (but 1) are left out."""
    n, m = X.shape
    xs = sympy.symbols(f"x1:{m + 1}", real=True)
    trig = []
    for j in range(m):
        trig += [(sympy.cos(xs[j]), np.cos(X[:, j])), (sympy.sin(xs[j]), np.sin(X[:, j]))]
    for i, j in itertools.combinations(range(m), 2):
        trig.append((sympy.cos(xs[i] * xs[j]), np.cos(X[:, i] * X[:, j])))
    one = [(sympy.Integer(1), np.ones(n))]
    linear = [(xs[j], X[:, j]) for j in range(m)]
    powers = [(sympy.Mul(*[xs[j] for j in combo]), np.prod(X[:, list(combo)], axis=1))
              for d in range(1, (3 if m <= 2 else 2) + 1)
              for combo in itertools.combinations_with_replacement(range(m), d)]
    p = one + trig + [(x * e, xv * v) for x, xv in linear for e, v in one + trig]
    q = one + powers + trig

    def kept(cols):
        cols = [(e, v) for e, v in cols if np.all(np.isfinite(v)) and (e == 1 or np.ptp(v) > 0)]
        return [e for e, _ in cols], np.column_stack([v for _, v in cols])

    return (*kept(p), *kept(q))


def trig_rational_fits(X: np.ndarray, y: np.ndarray, tuning: Tuning = TUNING) -> list[tuple[sympy.Expr, float]]:
    """Sparse ratios P / Q over the trigonometric columns of :func:`_trig_columns` (the same
    null vector and backward elimination as :func:`rational_fits`) that describe y to
    ``trig_exact`` (among some fifty columns a sparse ratio of noisy data fits the noise), or
    keep at most ``trig_short`` columns that explain ``trig_noisy_explained`` of y (on noisy data
    the information criterion stops a ratio that fits the noise at twenty columns or more, and
    keeps the few of a law), Q not the constant (a monomial is a Q here: (1 - cos(x1 x2)) /
    (x1 x2^2) is no sum of the library's terms) and P and Q of at most ``rational_max_terms``
    together, as (sympy expression over x1..xm, normalised error); Q's largest term written with
    the coefficient 1. Empty above ``trig_inputs`` inputs (the columns grow as m^3), below 20
    points or where the columns reach half the points."""
    if not _usable(X, y, tuning.trig_inputs):
        return []
    X, y = _arrays(X, y)
    n = X.shape[0]
    ep, MP, eq, MQ = _trig_columns(X)
    if MP.shape[1] + MQ.shape[1] > n // 2:
        return []
    sy = float(np.sqrt(np.mean(y**2)))
    got = _sparse(MP, MQ, y / sy, tuning, searched=True, ties_on_points=True)
    if got is None:
        return []
    pc, qc, a, b, e = got
    short = len(pc) + len(qc) <= tuning.trig_short and e <= 1.0 - tuning.trig_noisy_explained
    if (not (e <= tuning.trig_exact or short) or len(pc) + len(qc) > tuning.rational_max_terms
            or [eq[k] for k in qc] == [1]):
        return []
    a = a * sy
    lead = int(np.argmax(np.abs(b) * np.linalg.norm(MQ[:, qc], axis=0)))
    a, b = a / b[lead], b / b[lead]
    num = sympy.Add(*[sympy.Float(float(c)) * ep[k] for c, k in zip(a, pc)])
    den = sympy.Add(*[(1 if i == lead else sympy.Float(float(c))) * eq[k] for i, (c, k) in enumerate(zip(b, qc))])
    return [(num / den, e)]
