"""The rules of one snapping call (:mod:`.snapping`): the greedy pass of one value at a time
under the likelihood-ratio test, the joint pass under chi-square's joint region, and the
description length that compares whole sets of snapped values."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..core.constants import number_code, simple_values
from .fitting import jacobian, profile_fit, standard_errors_of
from .tuning import TUNING, Tuning

__all__ = ["SnapRun", "chi2_95", "value_code"]

_CHI2 = (3.841, 5.991, 7.815, 9.488, 11.070, 12.592, 14.067, 15.507, 16.919, 18.307)
"""The 95 % quantiles of chi-square with 1-10 degrees of freedom."""


def chi2_95(k: int) -> float:
    """The 95 % quantile of chi-square with k degrees of freedom (Wilson-Hilferty beyond 10)."""
    if k <= len(_CHI2):
        return _CHI2[k - 1]
    h = 2.0 / (9.0 * k)
    return float(k * (1.0 - h + 1.6449 * np.sqrt(h)) ** 3)


def value_code(q: float) -> float:
    """Nats to write a snapped value q: 0 nothing (its term is dropped), a number that is not
    simple 50 (:func:`~superpos.core.constants.number_code`)."""
    return 0.0 if q == 0 else (number_code(q) or 50.0)


@dataclass
class SnapRun:
    """One call's data and rules: the unsnapped fit ``start`` (SSE ``first``, standard errors
    ``se``), the noise variance ``s2``, the tolerances."""

    predict: Callable
    sse: Callable
    y: np.ndarray
    start: np.ndarray
    first: float
    s2: float
    noisy: bool
    se: np.ndarray
    cap: float
    rtol: float
    max_denominator: int
    phases: tuple
    exact_tol: float
    tuning: Tuning = TUNING
    keep: tuple = ()
    """Values that carry a physical unit: a simple number is no simpler in other units, so they
    snap only where the data cannot tell them from it at all (within ``rtol``), not within
    their uncertainty alone; 0 (the term dropped) is 0 in every unit and stays open to them."""

    def greedy(self, c, cur, open_, se, snap=None, accept=None):
        """Across the open values (those in ``snap``, where given), the candidate of least code
        first (those ``accept(j, q)`` allows, where given), each fixed where the likelihood-ratio
        test passes (the others refitted): (values, the values left open)."""
        c, open_, se = c.copy(), list(open_), se.copy()
        tried: set = set()
        profiles = 0
        while open_:
            trials = []
            for j in open_:
                if snap is not None and j not in snap:
                    continue
                v = c[j]
                sharp = j in self.phases or bool(np.isfinite(se[j]) and se[j] <= self.tuning.snap_sharp * abs(v))
                for q in simple_values(v, self.max_denominator, pi=sharp):
                    if q == v or (j, q) in tried or (accept is not None and not accept(j, q)):
                        continue
                    # 0 is always tried against the exact tolerance: a term of no effect is dropped
                    # however small its constant (1.3e-8 is not within rtol of 0, yet does nothing)
                    close = q == 0 or abs(q - v) <= self.rtol * max(abs(v), 1e-3)
                    ok = self.noisy and (q == 0 or j not in self.keep) and bool(np.isfinite(se[j]) and abs(q - v) <= self.tuning.snap_se * se[j]
                                             and (q == 0 or abs(q - v) <= self.cap * abs(v)))
                    if close or ok:
                        z = abs(q - v) / se[j] if se[j] > 0 else 0.0
                        trials.append((0.0 if q == 0 else (number_code(q) or 50.0) + 0.5 * z * z, j, q, close, ok))
            moved = None
            for _, j, q, close, ok in sorted(trials, key=lambda t: t[0]):
                tried.add((j, q))
                trial = c.copy()
                trial[j] = q
                e = self.sse(trial)
                if close and e <= self.exact_tol:
                    moved = (j, trial, e, False)
                    break
                if not ok:
                    continue
                rest = [i for i in open_ if i != j]
                if e - cur > self.tuning.profile_chi2 * self.s2 and rest and profiles < self.tuning.max_profiles:
                    profiles += 1
                    trial, e = profile_fit(self.predict, self.y, trial, rest, self.sse)
                if e - cur <= self.tuning.profile_chi2 * self.s2:
                    moved = (j, trial, e, True)
                    break
            if moved is None:
                break
            j, c, cur, refitted = moved
            open_.remove(j)
            if refitted and open_:  # the others at their best and their errors with j fixed
                c, cur = profile_fit(self.predict, self.y, c, open_, self.sse)
                se[open_] = standard_errors_of(self.predict, self.y, c, self.s2, open_)
        return c, open_

    def joint(self, c, open_):
        """The snapped values revisited: each moved to a value of shorter code (the others as
        snapped, the open ones refitted) where the whole set still passes the joint test against
        the unsnapped fit, Delta SSE / sigma^2 <= the 95 % quantile of chi-square with as many
        degrees of freedom as values fixed (their joint confidence region), and the sum of their
        codes and Delta SSE / (2 sigma^2) goes down (99 stays 99 where 100, 1.2 nats shorter,
        costs the data 2.2). What the one-at-a-time test cannot see: x1 x2 tanh(z) at 1 % noise
        fits (0.9992, 0.9980); the second snaps to 1 first, the first then refits to 0.9985 and 1
        fails 3.84 from there, yet (1, 1) is 4.6 from the fit, within 5.99."""
        start, first, s2, se = self.start, self.first, self.s2, self.se
        fixed = [j for j in range(c.size) if j not in open_ and np.isfinite(c[j]) and np.isfinite(start[j])]
        if len(fixed) < 2:
            return c
        bound = chi2_95(len(fixed)) * s2

        def total(v, e) -> float:  # nats: the values' code plus the data's cost of them
            return sum(value_code(v[j]) for j in fixed) + 0.5 * (e - first) / s2

        now = total(c, self.sse(c))
        sharp = {j: self.sharp(j, c, open_) for j in fixed}
        profiles = 0
        for _ in range(2 * len(fixed)):
            moves = []
            for j in fixed:
                for q in simple_values(start[j], self.max_denominator, pi=sharp[j]):
                    if ((q == 0 or j not in self.keep) and q != c[j] and value_code(q) < value_code(c[j])
                            and abs(q - start[j]) <= self.tuning.snap_se * se[j]
                            and (q == 0 or abs(q - start[j]) <= self.cap * abs(start[j]))):
                        moves.append((value_code(q) - value_code(c[j]), j, q))
            done = True
            for _, j, q in sorted(moves, key=lambda m: m[0]):
                trial = c.copy()
                trial[j] = q
                e = self.sse(trial)
                if e - first > bound and open_ and profiles < self.tuning.max_profiles:
                    profiles += 1
                    trial, e = profile_fit(self.predict, self.y, trial, open_, self.sse)
                if e - first <= bound and total(trial, e) < now:
                    c, now, done = trial, total(trial, e), False
                    break
            if done:
                break
        return c

    def sharp(self, j: int, c: np.ndarray, open_: list[int]) -> bool:
        """Whether the snapped value j may be a multiple of pi or of sqrt(2): a phase, or a value
        the data pin to ``snap_sharp``, either in the unsnapped fit or with the other snapped
        values as snapped (the formula as it will be written): a value known loosely beside an
        unsnapped one may be known well once that one is snapped."""
        if j in self.phases or bool(self.se[j] <= self.tuning.snap_sharp * abs(self.start[j])):
            return True
        se_j = standard_errors_of(self.predict, self.y, c, self.s2, [*open_, j])[-1]
        return bool(se_j <= self.tuning.snap_sharp * abs(c[j]))

    def length(self, v, bounded: bool) -> float:
        """Nats: each snapped value's code, each free one's at the precision the data give it
        (log(|v| sqrt(I_jj / 3)), I = J^T J / sigma^2, as :mod:`.description` counts it), and
        Delta SSE / (2 sigma^2); inf where ``bounded`` and the snapped values fail the joint test."""
        e = self.sse(v)
        snapped = [j for j in range(v.size) if v[j] != self.start[j] and number_code(v[j]) is not None]
        if not np.isfinite(e) or (bounded and snapped and e - self.first > chi2_95(len(snapped)) * self.s2):
            return np.inf
        free = [j for j in range(v.size) if j not in snapped and np.isfinite(v[j]) and v[j] != 0]
        out = sum(value_code(v[j]) for j in snapped) + 0.5 * (e - self.first) / self.s2
        if free:
            with np.errstate(all="ignore"):
                info = np.sum(jacobian(self.predict, v, free) ** 2, axis=0) / self.s2
                out += float(np.sum(np.maximum(0.0, np.nan_to_num(np.log(np.abs(v[free]) * np.sqrt(info / 3.0))))))
        return out
