"""Tests for additive and multiplicative separability over any split of the inputs.

A law y = f_1(x_P1) + ... + f_k(x_Pk) over disjoint groups of inputs P_p (additive), or
y = f_1(x_P1) * ... * f_k(x_Pk) (multiplicative: additive in log|y| where y keeps one sign),
can be solved part by part (the modularity of Udrescu et al. 2020). The test here needs
no neural surrogate: it fits additive models of polynomials, each part's own polynomial in its
inputs (degree 5 for one input, 4 for two, 3 for three or four, 2 beyond), by least squares, and
searches the partition by agglomeration: start from every input alone, merge the two parts
whose merge lowers the BIC (n log(SSE / n) + p log n) most, as long as the merge also cuts the
SSE to ``merge_gain`` of itself, or gains ``merge_typical`` times the median merge's gain
and ``merge_min_gain`` of the SSE (a merge of parts that add up only buys flexibility, so its
gain is small; a true interaction is missed by orders of magnitude); where no two parts
qualify, three parts may merge the same way. The partition fires when it has two or more parts
and explains ``separable_explained`` of the variance; its fitted parts
give the starting targets of each part's search (:class:`Separation`).

Where y changes sign, log|y| has no such fit (its zeros are poles of log|y|), and a product
y = f(x_A) g(x_B) is tested directly (:func:`signed_products`): for every split A | B of the
inputs (at most ``signed_split_inputs`` inputs), the product of two polynomials, one in each
group (the degrees above), fitted by alternating least squares; the split of least error fires
where it explains ``separable_explained`` of the variance and every split nearly as good agrees with
it (the groups both name hold a product of their intersections that explains as much, and the
law is then taken as that finer product; a flexible fit of a law that is no product passes for
several incompatible splits).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations, combinations_with_replacement

import numpy as np
import sympy

from .tuning import TUNING, Tuning

__all__ = ["Separation", "separations", "partition", "signed_products", "split_parts"]


@dataclass(frozen=True)
class Separation:
    """y = sum (``kind`` "sum") or product ("product") of parts over the input groups ``parts``;
    ``components`` (n, k): each part's fitted polynomial at the rows (for products, of log|y|),
    ``offset`` the intercept (for products, ``sign`` * exp(offset) is the constant factor),
    ``explained``: the share of variance the additive model explains."""

    kind: str
    parts: tuple[tuple[int, ...], ...]
    components: np.ndarray
    offset: float
    explained: float
    sign: float = 1.0
    misfit: tuple[float, ...] = ()

    def order(self, negligible: float) -> list[int]:
        """The parts in the order to solve them: the one whose polynomial misses most of the
        target first (:func:`_misfits`), so that the others' targets hold its formula instead of
        that polynomial; the parts' own order where no misfit is recorded or none is above
        ``negligible`` (round-off: the record's ``misfit_negligible``)."""
        k = len(self.parts)
        if len(self.misfit) != k or max(self.misfit) <= negligible:
            return list(range(k))
        return sorted(range(k), key=lambda p: -self.misfit[p])

    def part_values(self, p: int) -> np.ndarray:
        """Part p's starting values at the rows: its component, with the offset (sum) or the
        constant factor (product) given to the first part; for a product of factors that
        change sign (``kind`` "signed"), the factor's fitted values."""
        if self.kind == "sum":
            return self.components[:, p] + (self.offset if p == 0 else 0.0)
        if self.kind == "signed":
            return self.components[:, p]
        scale = self.sign * np.exp(self.offset) if p == 0 else 1.0
        return scale * np.exp(self.components[:, p])


def _degree(part: tuple[int, ...], tuning: Tuning) -> int:
    """The degree of a part's polynomial: ``separable_degrees`` by its number of inputs, 2 beyond."""
    return dict(tuning.separable_degrees).get(len(part), 2)


def _columns(Z: np.ndarray, part: tuple[int, ...], tuning: Tuning) -> np.ndarray:
    """Monomials of degree 1..d of the standardised inputs of ``part`` (:func:`_degree`)."""
    d = _degree(part, tuning)
    cols = []
    for deg in range(1, d + 1):
        for idx in combinations_with_replacement(part, deg):
            cols.append(np.prod(Z[:, list(idx)], axis=1))
    return np.column_stack(cols)


def _misfits(Z: np.ndarray, r: np.ndarray, parts: list[tuple[int, ...]], rows: np.ndarray, sst: float,
             tuning: Tuning) -> tuple:
    """For each part, the share of the variance of the target that a richer polynomial in the
    part's inputs (``misfit_richer`` degrees more, at most a quarter of the points' columns)
    explains of the additive model's residuals ``r``: where the law's part is no polynomial
    (sin^2(x3 x4 / 2) / sin^2(x3 / 2)) its own polynomial leaves the most, and every other
    part's target is off by it until it is solved."""
    out = []
    for part in parts:
        degree = _degree(part, tuning) + tuning.misfit_richer
        while degree > 1 and math.comb(len(part) + degree, degree) > rows.size / 4:
            degree -= 1
        cols = [np.ones(Z.shape[0])] + [np.prod(Z[:, list(idx)], axis=1) for d in range(1, degree + 1)
                                        for idx in combinations_with_replacement(part, d)]
        A = np.column_stack(cols)[rows]
        coef, *_ = np.linalg.lstsq(A, r[rows], rcond=None)
        left = r[rows] - A @ coef
        out.append(max(float(r[rows] @ r[rows] - left @ left), 0.0) / sst)
    return tuple(out)


def _fit(Z: np.ndarray, t: np.ndarray, parts: list[tuple[int, ...]], cache: dict, rows: np.ndarray, tuning: Tuning):
    """Least squares of t[rows] on an intercept and every part's columns:
    (sse, n_params, coef, blocks at every row of Z)."""
    blocks = []
    for p in parts:
        if p not in cache:
            cache[p] = _columns(Z, p, tuning)
        blocks.append(cache[p])
    A = np.column_stack([np.ones(Z.shape[0])] + blocks)
    coef, *_ = np.linalg.lstsq(A[rows], t[rows], rcond=None)
    r = t[rows] - A[rows] @ coef
    return float(r @ r), A.shape[1], coef, blocks


def partition(X: np.ndarray, t: np.ndarray, rows=None, tuning: Tuning = TUNING) \
        -> tuple[list[tuple[int, ...]], float, np.ndarray, float, tuple] | None:
    """The finest additive partition of the inputs for target t by agglomeration (see the
    module docstring), fitted on ``rows`` (default all): (parts, explained share of variance,
    components at every row (n_rows_of_X, k), intercept, each part's misfit
    (:func:`_misfits`)); None when the points are too few or t is constant."""
    rows = np.arange(X.shape[0]) if rows is None else np.asarray(rows)
    n, m = int(rows.size), X.shape[1]
    t = np.asarray(t, dtype=np.float64)
    if m < 2 or n < tuning.separable_points_per_input * m or not np.all(np.isfinite(t[rows])) or np.ptp(t[rows]) == 0:
        return None
    sd = X[rows].std(axis=0)
    if np.any(sd == 0):
        return None
    Z = (X - X[rows].mean(axis=0)) / sd
    sst = float(np.sum((t[rows] - t[rows].mean()) ** 2))
    cache: dict = {}
    parts = [(j,) for j in range(m)]

    def bic(sse, p):
        return n * np.log(max(sse, 1e-300 * sst) / n) + p * np.log(n)

    sse, p, _, _ = _fit(Z, t, parts, cache, rows, tuning)
    while len(parts) > 1 and sse > tuning.separable_exact * sst:
        for size in [k for k in (2, 3) if k <= len(parts)]:  # three where no two interact alone (x1 x2 x3)
            trials = []
            for group in combinations(range(len(parts)), size):
                merged = tuple(sorted(sum((parts[g] for g in group), ())))
                trial = [q for k, q in enumerate(parts) if k not in group] + [merged]
                s2, p2, _, _ = _fit(Z, t, trial, cache, rows, tuning)
                if p2 < n:
                    trials.append((bic(s2, p2), trial, s2, p2))
            if not trials:
                continue
            best = min(trials, key=lambda r: r[0])
            gains = np.array([sse - r[2] for r in trials])
            typical = float(np.median(gains)) if len(trials) >= 3 else np.inf
            gain = sse - best[2]
            if best[0] < bic(sse, p) and (best[2] <= tuning.merge_gain * sse
                                          or (gain >= tuning.merge_typical * max(typical, 0.0)
                                              and gain >= tuning.merge_min_gain * sse)):
                _, parts, sse, p = best
                break
        else:
            break
    parts = sorted(parts)
    sse, _, coef, blocks = _fit(Z, t, parts, cache, rows, tuning)
    comps, k = [], 1
    for B in blocks:
        comps.append(B @ coef[k:k + B.shape[1]])
        k += B.shape[1]
    comps = np.column_stack(comps)
    misfit = _misfits(Z, t - coef[0] - comps.sum(axis=1), parts, rows, sst, tuning)
    return parts, 1.0 - sse / sst, comps, float(coef[0]), misfit


def separations(X: np.ndarray, y: np.ndarray, rows=None, signed: bool = True,
                tuning: Tuning = TUNING) -> list[Separation]:
    """The additive partition of y and, where y keeps one sign, of log|y| (the multiplicative
    one), each fitted on ``rows`` (default all; components at every row) where it has two or
    more parts and explains ``separable_explained`` of the variance; additive first. Where y changes
    sign and no additive partition fired, the product of factors that may change sign
    (:func:`signed_products`, with ``signed``) instead of the log test."""
    out = []
    found = partition(X, y, rows, tuning)
    if found is not None and len(found[0]) > 1 and found[1] >= tuning.separable_explained:
        out.append(Separation("sum", tuple(found[0]), found[2], found[3], found[1], misfit=found[4]))
    if np.all(y > 0) or np.all(y < 0):
        found = partition(X, np.log(np.abs(y)), rows, tuning)
        if found is not None and len(found[0]) > 1 and found[1] >= tuning.separable_explained:
            out.append(Separation("product", tuple(found[0]), found[2], found[3], found[1], float(np.sign(y[0])),
                                  found[4]))
    elif signed and not out:  # a sum is no product
        out += signed_products(X, y, rows, tuning)
    return out


def _factors(Z: np.ndarray, t: np.ndarray, groups: list[tuple[int, ...]], rows: np.ndarray, tuning: Tuning):
    """t ~ prod_p F_p(x_{groups[p]}), each F_p a polynomial (intercept and :func:`_columns`),
    by alternating least squares on ``rows``, from a start per factor and per target (that
    factor fitted to |t|, then to t, the others 1 and updated first; one start alone falls into
    a poor local optimum where t's mean over the other inputs is near 0): (SSE, the factors'
    values at every row of Z (n, k)); at most ``als_rounds`` rounds a start."""
    bases = [np.column_stack([np.ones(Z.shape[0]), _columns(Z, g, tuning)]) for g in groups]
    tr = t[rows]
    best = (np.inf, None)
    k = len(groups)
    for lead, start in ((lead, start) for lead in range(k) for start in (np.abs(t), t)):
        vals = [np.ones(Z.shape[0]) for _ in groups]
        coef, *_ = np.linalg.lstsq(bases[lead][rows], start[rows], rcond=None)
        vals[lead] = bases[lead] @ coef
        order = [q for q in range(k) if q != lead] + [lead]
        prev = np.inf
        for _ in range(tuning.als_rounds):
            for p in order:
                B = bases[p]
                rest = np.prod([vals[q][rows] for q in range(len(groups)) if q != p], axis=0)
                coef, *_ = np.linalg.lstsq(B[rows] * rest[:, None], tr, rcond=None)
                vals[p] = B @ coef
            r = tr - np.prod([v[rows] for v in vals], axis=0)
            sse = float(r @ r)
            if not np.isfinite(sse) or sse > prev * (1.0 - 1e-6):
                break
            prev = sse
        if np.isfinite(prev) and prev < best[0]:
            best = (prev, np.column_stack(vals))
    return best


def signed_products(X: np.ndarray, y: np.ndarray, rows=None, tuning: Tuning = TUNING) -> list[Separation]:
    """y = f(x_A) g(x_B) for a y that changes sign (see the module): [the split, refined by its
    rivals (splits within ``rival_split`` of its unexplained share, which must hold together),
    as a :class:`Separation` of ``kind`` "signed" (components: the factors' values at every
    row)], or [] where no split explains ``separable_explained`` of the variance on ``rows``
    (default all), a rival split disagrees, the inputs are more than ``signed_split_inputs`` or
    the points fewer than ``separable_points_per_input`` per input."""
    rows = np.arange(X.shape[0]) if rows is None else np.asarray(rows)
    n, m = int(rows.size), X.shape[1]
    y = np.asarray(y, dtype=np.float64)
    if (m < 2 or m > tuning.signed_split_inputs or n < tuning.separable_points_per_input * m
            or not np.all(np.isfinite(y[rows]))
            or np.ptp(y[rows]) == 0):
        return []
    sd = X[rows].std(axis=0)
    if np.any(sd == 0):
        return []
    Z = (X - X[rows].mean(axis=0)) / sd
    sst = float(np.sum((y[rows] - y[rows].mean()) ** 2))
    fits = []
    for k in range(1, m):
        for A in combinations(range(m), k):
            if 0 in A:
                B = tuple(j for j in range(m) if j not in A)
                sse, vals = _factors(Z, y, [A, B], rows, tuning)
                if vals is not None:
                    fits.append((sse / sst, A, B, vals))
    if not fits:
        return []
    fits.sort(key=lambda f: f[0])
    u, A, B, vals = fits[0]
    if u > 1.0 - tuning.separable_explained:
        return []
    parts = [A, B]
    for u2, A2, B2, _ in fits[1:]:
        if u2 > tuning.rival_split * max(u, tuning.separable_exact):
            break
        groups = sorted(g for g in (tuple(sorted(set(a) & set(b))) for a in parts for b in (A2, B2)) if g)
        if len(groups) == len(parts):  # the rival names groups the split already holds
            continue
        sse, got = _factors(Z, y, groups, rows, tuning)
        if got is None or sse / sst > 1.0 - tuning.separable_explained:
            return []
        parts, vals, u = groups, got, sse / sst
    return [Separation("signed", tuple(parts), vals, 0.0, 1.0 - u)]


def split_parts(expr: sympy.Expr, kind: str, groups) -> list[tuple[tuple[int, ...], sympy.Expr]]:
    """The terms (``kind`` "sum") or factors ("product") of ``expr`` grouped by the input
    ``groups`` (0-based; x1 is input 0): [(group, its part)], numbers joined to the first part;
    [] when a term reads inputs of two groups (simplification merged parts) or only one group
    is left."""
    args = sympy.Add.make_args(expr) if kind == "sum" else sympy.Mul.make_args(expr)
    op = sympy.Add if kind == "sum" else sympy.Mul
    buckets: dict = {tuple(g): [] for g in groups}
    loose = []
    for a in args:
        used = {int(s.name[1:]) - 1 for s in a.free_symbols if s.name[:1] == "x" and s.name[1:].isdigit()}
        if not used:
            loose.append(a)
            continue
        owner = [g for g in buckets if used <= set(g)]
        if len(owner) != 1:
            return []
        buckets[owner[0]].append(a)
    out = [(g, op(*terms)) for g, terms in buckets.items() if terms]
    if len(out) < 2:
        return []
    if loose:
        out[0] = (out[0][0], op(*loose, out[0][1]))
    return out
