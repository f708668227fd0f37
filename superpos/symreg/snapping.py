"""Snapping: fitted values replaced by the simple values (0, integers, short fractions, short
decimals, multiples of pi and of sqrt(2)) the data cannot tell them from.

Exact data: a value within ``rtol`` (relative) that keeps the squared error within 0.1 %. Noisy
data: a likelihood-ratio test of the nested model with that value fixed and the others refitted
(the profile likelihood: an exponent 3.991 fixed at 4 moves its coefficient from 6.07e-8 to
5.67e-8), Delta SSE / sigma^2 <= 3.84 (chi-square, 1 degree of freedom, 5 %) per value fixed,
sigma^2 = SSE / (n - p) of the unsnapped fit; the value within three standard errors and 2 %
(10 % where the model explains 99 % of the variance; 0 needs only the three standard errors: an
insignificant term). Across all values the candidate of least code is tried first: the nats to
write it (:func:`~superpos.core.constants.number_code`) plus z^2 / 2 for a value z standard
errors from the fit (the data's cost of moving it; 0 first, which drops a term), so that an
exponent snaps before the coefficient it is correlated with, and 1/sqrt(2 pi) beats 0.4 when the
data pin 0.3989; the standard errors of the others are then taken with it fixed. Multiples of pi
(and of sqrt(2)) only for values known to 0.2 %, alone or with the others as snapped, or for a
phase. Then each snapped value may move to one of shorter code where all the snapped values
together pass the joint test against the unsnapped fit (chi-square with as many degrees of
freedom as values fixed, 5 %) and the codes plus Delta SSE / (2 sigma^2) go down: 0.999 becomes
1 beside another 1 when the pair is within the joint region though not within one value's. For
the winner's values (``thorough``) the greedy order is checked by restarts, each value fixed
first at a shorter candidate (:func:`_restarts`): the set of least description length within the
joint region is kept, and one factor spread over several values (1/(8 pi) in three constants) is
snapped once, as a factor and simple ratios (:func:`_common_factor`). Before all of it, a value
the others absorb (a of a sqrt(b + c z)) is fixed at 0 or +-1 where the others refit to the same
fit (:func:`_unit_scales`).

:func:`snap_constants` snaps a tree's constants; :func:`snap_parameters` a family's named
parameters (a Gaussian's sigma 12.02 -> 12, not its tree constant -1/(2 sigma^2)), through the
family's renderings (:mod:`.families`)."""
from __future__ import annotations

import numpy as np

from ..core.basis import Basis
from ..core.constants import number_code, simple_values
from ..core.tree import evaluate
from .fitting import jacobian, profile_fit, standard_errors_of
from .notation import digits_cost
from .snap_rules import SnapRun, value_code
from .tuning import TUNING, Tuning

__all__ = ["snap_values", "snap_constants", "snap_parameters", "snaps_simply"]


def snap_constants(tree, basis: Basis, X, y, constants, max_denominator: int = 12, rtol: float = 1e-5,
                   thorough: bool = False, tuning: Tuning = TUNING, keep=()) -> np.ndarray:
    """The tree's constants snapped (:func:`snap_values`). Fixing a constant at 0 drops its
    term when sympy renders the formula (no term smaller than the noise)."""
    return snap_values(lambda v: evaluate(tree, basis, X, v), y, constants, max_denominator=max_denominator, rtol=rtol,
                       thorough=thorough, tuning=tuning, keep=keep)


def snaps_simply(tree, basis: Basis, X, y, constants, tuning: Tuning = TUNING) -> bool:
    """Whether every constant of the tree snaps to a simple number (:func:`snap_constants`,
    :func:`~superpos.core.constants.number_code`): the formula as it will be shown has no free
    constant."""
    with np.errstate(all="ignore"):
        snapped = snap_constants(tree, basis, X, y, constants, tuning=tuning)
    return all(number_code(float(v)) is not None for v in snapped)


def snap_parameters(tree, basis: Basis, X, y, constants, family, thorough: bool = False,
                    tuning: Tuning = TUNING) -> np.ndarray:
    """The tree's constants with the family's textbook parameters snapped instead: per
    rendering with an inverse, its parameters snapped (:func:`snap_values`; a phase may snap to
    a multiple of pi), mapped back to constants; the rendering whose snapped parameters take
    the fewest digits wins (the textbook's own choice, :func:`~superpos.symreg.families.textbook`);
    among equals, for a law (the fit leaves at most ``snap_law_unexplained`` of the variance) the one whose numbers have
    the shorter code (:func:`~superpos.core.constants.number_code`, a free value 50 nats: a
    logistic of the year with its midpoint 1950, 9.0 nats, not with B = exp(k x0) = 2.54e25,
    10.9; a culture's with B = 15, 3.5, not with x0 = 4.5, 3.7), for an approximation the
    smaller error. ``constants`` unchanged when no rendering applies."""
    c = np.asarray(constants, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64).ravel()
    with np.errstate(all="ignore"):
        f0 = evaluate(tree, basis, X, c)
        law = float(np.sum((y - f0) ** 2)) <= tuning.snap_law_unexplained * float(np.sum((y - y.mean()) ** 2))
    best = None
    for r in family.renderings:
        if r.inverse is None:
            continue
        p = r.real_params([float(v) for v in c])
        if p is None:
            continue
        keys = r.free
        v0 = np.array([p[k] for k in keys], dtype=np.float64)

        def to_constants(u, r=r, keys=keys):
            try:  # a power of a negative number is complex in Python: no constants there
                return np.asarray(r.inverse(dict(zip(keys, (float(a) for a in u)))), dtype=np.float64)
            except (ValueError, ZeroDivisionError, OverflowError, TypeError):
                return np.full(c.size, np.nan)

        def predict(u, to_constants=to_constants):
            return evaluate(tree, basis, X, to_constants(u))

        with np.errstate(all="ignore"):
            if not (np.all(np.isfinite(v0)) and np.allclose(predict(v0), f0, rtol=1e-7, atol=1e-12 * np.max(np.abs(f0)))):
                continue
        u = snap_values(predict, y, v0, phases=[k for k, name in enumerate(keys) if name == "phase"],
                        thorough=thorough, tuning=tuning)
        new = to_constants(u)
        with np.errstate(all="ignore"):
            r_ = y - evaluate(tree, basis, X, new)
            sse = float(r_ @ r_)
        if not np.isfinite(sse):
            continue
        key = (digits_cost(u), sum(number_code(float(v)) or 50.0 for v in u) if law else sse)
        if best is None or key < best[0]:
            best = (key, new)
    return c if best is None else best[1]


def snap_values(predict, y, values, *, max_denominator: int = 12, rtol: float = 1e-5, phases=(),
                thorough: bool = False, tuning: Tuning = TUNING, keep=()) -> np.ndarray:
    """``values`` of the model ``predict`` (values -> predictions of y) snapped to simple values
    where the data cannot tell them apart (the module's rules); ``phases``: the indices of
    values that may snap to multiples of pi however loosely the data pin them; ``keep``: the
    indices of values that carry a physical unit (:attr:`SnapRun.keep`). ``thorough``
    (noisy data the model explains to all but ``snap_law_unexplained`` of the variance, at most
    ``restart_rows`` rows):
    the greedy order's result is also compared with restarts that fix one value first
    (:func:`_restarts`), and the set of least description length within the joint region is
    kept. Not for an approximation: its residuals are not noise, and its values' "errors" no
    licence to round them."""
    y = np.asarray(y, dtype=np.float64).ravel()
    c = np.asarray(values, dtype=np.float64).copy()

    def sse(v) -> float:
        with np.errstate(all="ignore"):
            r = y - predict(v)
            out = float(r @ r)
        return out if np.isfinite(out) else np.inf

    cur = sse(c)
    if not np.isfinite(cur) or not c.size:
        return c
    n = y.size
    s2 = cur / (n - c.size) if n > c.size else np.inf
    noisy = bool(np.isfinite(s2) and s2 > 0)
    # within snap_se standard errors, and (but for dropping an insignificant term) within
    # snap_cap: the residuals of a wrong formula would pass for noise and snap anything;
    # snap_cap_law where the formula is a law measured with noise, not a noisy table
    law = cur <= tuning.snap_law_unexplained * float(np.sum((y - y.mean()) ** 2))
    cap = tuning.snap_cap_law if law else tuning.snap_cap
    open_ = [j for j in range(c.size) if np.isfinite(c[j])]
    se = np.zeros(c.size)
    if noisy:
        se[open_] = standard_errors_of(predict, y, c, s2, open_)
    run = SnapRun(predict, sse, y, c.copy(), cur, s2, noisy, se.copy(), cap, rtol, max_denominator, tuple(phases),
                    exact_tol=max(cur * 1.001, cur + 1e-10 * n * max(float(np.var(y)), 1e-300)), tuning=tuning,
                    keep=tuple(int(j) for j in keep))
    c, open_, cur = _unit_scales(run, c, cur, open_)
    if noisy and len(open_) < c.size:
        se[open_] = standard_errors_of(predict, y, c, s2, open_)
    c, open_ = run.greedy(c, cur, open_, se)
    if noisy:
        c = run.joint(c, open_)
        if thorough and law and n <= tuning.restart_rows:
            c = _restarts(run, c)
            c = _common_factor(run, c)
    return c


def _unit_scales(run: SnapRun, c: np.ndarray, cur: float, open_: list[int]):
    """Values the others absorb fixed first, at 0 or +-1 with the others refitted where the
    fit stays as good (within the exact tolerance): a sqrt(b + c z) is sqrt(a^2 b + a^2 c z),
    and a fitted (a, b, c) may hold no value simple together with the others while a = 1 does.
    The value fixed is the one that moves most along the Jacobian's null direction, where the
    fit does not change along it (the smallest singular value of the Jacobian, columns scaled
    to unit norm, under ``redundant_singular`` of the largest). (values, the values left open, SSE)."""
    if len(open_) < 2:
        return c, open_, cur
    with np.errstate(all="ignore"):
        J = jacobian(run.predict, c, open_)
        norms = np.linalg.norm(J, axis=0)
    if not (np.all(np.isfinite(J)) and np.all(norms > 0)):
        return c, open_, cur
    _, sv, vt = np.linalg.svd(J / norms, full_matrices=False)
    if not sv[-1] < run.tuning.redundant_singular * sv[0]:
        return c, open_, cur
    move = np.abs(vt[-1])
    for k in np.argsort(-move):
        j = open_[int(k)]
        if move[k] < 0.1 * move.max() or c[j] == 0:
            break
        rest = [i for i in open_ if i != j]
        for q in (0.0, float(np.sign(c[j]))):
            trial = c.copy()
            trial[j] = q
            trial, e = profile_fit(run.predict, run.y, trial, rest, run.sse)
            if e <= run.exact_tol:
                return trial, rest, e
    return c, open_, cur



def _restarts(run: SnapRun, c: np.ndarray) -> np.ndarray:
    """The greedy order fixes the value of least code first and may then lose the set the data
    favour: a logistic of the year at 1 % noise fits (322.0, 0.02956, 1950.4, -0.4); the offset
    snaps to 0, L refits and snaps to 321, and k = 0.03 then fails, though (320, 0.03, 1950, 0)
    is 8.5 from the fit, within chi-square's 9.49 for four values. Restarts: each value fixed
    first at a candidate of shorter code than the greedy gave it (within ``snap_se`` standard
    errors of the fit and the cap; the most likely first, at most ``max_restarts``), the
    others refitted, then the greedy and joint passes; the result of least description length
    (:meth:`SnapRun.length`) among those within the joint region wins over the greedy's."""
    start, se = run.start, run.se
    best, now = c, run.length(c, bounded=False)
    moves = []
    for j in range(c.size):
        if j in run.keep or not (np.isfinite(start[j]) and np.isfinite(se[j]) and se[j] > 0):
            continue
        sharp = j in run.phases or bool(se[j] <= run.tuning.snap_sharp * abs(start[j]))
        for q in simple_values(start[j], run.max_denominator, pi=sharp):
            if (q != c[j] and value_code(q) < (value_code(c[j]) if number_code(c[j]) is not None else np.inf)
                    and abs(q - start[j]) <= run.tuning.snap_se * se[j] and (q == 0 or abs(q - start[j]) <= run.cap * abs(start[j]))):
                z = (q - start[j]) / se[j]
                moves.append((value_code(q) + 0.5 * z * z, j, q))
    for _, j, q in sorted(moves, key=lambda m: m[0])[:run.tuning.max_restarts]:
        trial = start.copy()
        trial[j] = q
        rest = [i for i in range(c.size) if i != j and np.isfinite(start[i])]
        e = run.sse(trial)
        se_t = se.copy()
        if rest:
            trial, e = profile_fit(run.predict, run.y, trial, rest, run.sse)
            se_t[rest] = standard_errors_of(run.predict, run.y, trial, run.s2, rest)
        if not np.isfinite(e):
            continue
        trial, open_ = run.greedy(trial, e, rest, se_t)
        trial = run.joint(trial, open_)
        length = run.length(trial, bounded=True)
        if length < now:
            best, now = trial, length
    return best


def _common_factor(run: SnapRun, c: np.ndarray) -> np.ndarray:
    """One factor spread over several values, snapped once: a law's -(a + b (1 - 2 z)) / (8 pi)
    comes out with 1/(8 pi) in three constants, each known to 0.4-1 % at 1 % noise (fitted
    0.0799, 0.0406, 0.0400, written 0.08, 0.041, 0.04). The values neither 0 nor a small integer
    (an exponent, a count) as snapped are rewritten k (1, r_2, ...), k the one the data pin best:
    the ratios are snapped first, k refitted with them (:meth:`SnapRun.greedy`,
    :meth:`SnapRun.joint`), then k, known now from all of them, to a value that leaves every
    value as written a simple number (2180 (x - 1000), not 2181 (x - 1000): 2181000 is not
    simple). Kept where k and every ratio snap and the description length, k's code and the
    ratios' (1/(4 pi), 1/2, 1/2: 7.6 nats, against 14.6 for the three decimals) plus the data's
    cost, is the shorter, within the joint region."""
    fac = [j for j in range(c.size) if j not in run.keep and np.isfinite(c[j]) and c[j] != 0 and not _small_integer(c[j])
           and np.isfinite(run.start[j]) and run.start[j] != 0 and np.isfinite(run.se[j])]
    if len(fac) < 2:
        return c
    p = min(fac, key=lambda j: run.se[j] / abs(run.start[j]))
    others = [j for j in fac if j != p]

    def values(u):
        v = c.copy()
        v[p] = u[0]
        v[others] = u[0] * np.asarray(u[1:])
        return v

    def predict(u):
        return run.predict(values(u))

    u0 = np.array([run.start[p], *(run.start[others] / run.start[p])])
    every = list(range(u0.size))
    se = standard_errors_of(predict, run.y, u0, run.s2, every)
    first = run.sse(values(u0))  # the other values as snapped: their cost is added at the end
    sub = SnapRun(predict, lambda u: run.sse(values(u)), run.y, u0, first, run.s2, True, se, run.cap, run.rtol,
                  run.max_denominator, (), run.exact_tol, run.tuning)
    u, open_ = sub.greedy(u0, first, every, se, snap=every[1:])
    u = sub.joint(u, open_)
    if open_ != [0] or any(number_code(float(r)) is None for r in u[1:]):
        return c
    u, _ = profile_fit(predict, run.y, u, [0], sub.sse)
    se[0] = standard_errors_of(predict, run.y, u, run.s2, [0])[0]
    ratios = u[1:].copy()

    def written(u):
        v = values(u)
        v[fac] = [_as_written(float(a)) for a in v[fac]]
        return v

    def simple(_, k) -> bool:  # every value as written simple with the factor at k
        return all(number_code(float(a)) is not None for a in written(np.array([k, *ratios]))[fac])

    u, open_ = sub.greedy(u, sub.sse(u), [0], se, accept=simple)
    if open_:
        return c
    new = written(u)
    rest = sum(value_code(c[j]) for j in range(c.size) if j not in fac and c[j] != run.start[j])
    mine = sub.length(u, bounded=True) + rest + 0.5 * (first - run.first) / run.s2
    return new if mine < run.length(c, bounded=False) else c


def _small_integer(v: float) -> bool:
    """An integer of at most 10 in size: an exponent or a count, not a scale."""
    return v == round(v) and abs(v) <= 10


def _as_written(v: float) -> float:
    """v as the simple value it is up to round-off (0.8 * 1.5 is 1.2, not 1.2000000000000002),
    else v."""
    near = [q for q in simple_values(v, pi=True) if abs(q - v) <= 1e-12 * abs(v)]
    return near[0] if near else v
