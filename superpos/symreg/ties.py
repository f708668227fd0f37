"""The finalists the cross-validation cannot tell apart, and how such ties are broken.

The tie rule's keys (:func:`tie_keys`: complexity, then likelihood, then decoder rank); the
test of two finalists' per-point cross-validated errors (:func:`within_noise`); and the three
rules built on it: the shortest finalist within the noise leads (:func:`within_noise_order`),
a dimensionally consistent one before an inconsistent leader (:func:`consistent_order`), and
the finalists the data cannot choose between (:func:`alike_finalists`). :mod:`.selection`
applies them.
"""
from __future__ import annotations

import numpy as np

from .candidates import Candidate
from .tuning import TUNING, Tuning

__all__ = ["tie_keys", "tie_order", "within_noise", "within_noise_order", "consistent_order", "alike_finalists"]


def tie_keys(cands: list[Candidate]) -> np.ndarray:
    """The tie rule's keys, (candidates, 3): complexity (nodes plus free constants, a fitted
    power as a product with a constant: :attr:`Candidate.complexity`), minus the log-likelihood, decoder rank. Tied candidates go simplest first, then the more likely,
    then the better ranked: every rule and the bootstrap use these keys."""
    return np.array([c.tie_key for c in cands], dtype=np.float64).reshape(len(cands), 3)


def tie_order(cands: list[Candidate]) -> np.ndarray:
    """Indices of ``cands`` under the tie rule alone (:func:`tie_keys`)."""
    k = tie_keys(cands)
    return np.lexsort((k[:, 2], k[:, 1], k[:, 0]))


def alike_finalists(cands: list[Candidate], per_point: np.ndarray, b: int, exact_below: float,
                    tuning: Tuning = TUNING) -> list[Candidate]:
    """The finalists the cross-validation cannot tell from finalist ``b``: exact too where b is
    exact, else within the noise (:func:`within_noise`), simplest first."""
    E = np.asarray(per_point, dtype=np.float64)
    with np.errstate(all="ignore"):
        mean = np.where(np.all(np.isfinite(E), axis=1), E.mean(axis=1), np.inf)
    if not np.isfinite(mean[b]) or E.shape[1] < 3:
        return []
    exact = mean[b] < exact_below
    tied = [k for k in range(len(cands)) if k != b
            and (mean[k] < exact_below if exact else within_noise(E, mean, k, b, tuning))]
    keys = tie_keys(cands)
    return [cands[k] for k in sorted(tied, key=lambda k: (keys[k, 0], mean[k]))]


def within_noise_order(cands: list[Candidate], per_point: np.ndarray, order: list[int], exact_below: float,
                       tuning: Tuning = TUNING) -> list[int]:
    """``order`` with the shortest candidate the cross-validation cannot tell from the best put
    first (the one-standard-error rule of cross-validation, Breiman et al.): where the first
    candidate b is not exact, a simpler one k (lower complexity) of mean error at most
    ``alike_times`` b's whose per-point cross-validated errors exceed b's by at most ``noise_tie_se``
    standard errors of the paired mean difference (more than one: b is the best of many). On a
    few dozen noisy points the best of thousands of candidates wins by fitting the noise with
    extra factors near 1; on clean data the differences are systematic and their standard
    error small, so a longer law keeps its place."""
    if not order:
        return order
    E = np.asarray(per_point, dtype=np.float64)
    b = order[0]
    with np.errstate(all="ignore"):
        mean = np.where(np.all(np.isfinite(E), axis=1), E.mean(axis=1), np.inf)
    if not (np.isfinite(mean[b]) and mean[b] >= exact_below) or E.shape[1] < 3:
        return order
    keys = tie_keys(cands)
    tied = [k for k in range(len(cands)) if k != b and keys[k, 0] < keys[b, 0] and within_noise(E, mean, k, b, tuning)]
    if not tied:
        return order
    k = min(tied, key=lambda k: (keys[k, 0], mean[k], keys[k, 1], keys[k, 2]))
    return [k] + [j for j in order if j != k]


def within_noise(E: np.ndarray, mean: np.ndarray, k: int, b: int, tuning: Tuning) -> bool:
    """Whether candidate k's per-point cross-validated errors E[k] cannot be told from b's: a
    mean at most ``alike_times`` b's (a practically worse fit is no tie, whatever its spread)
    and a paired mean difference within ``noise_tie_se`` of its standard errors."""
    if not mean[k] <= tuning.alike_times * mean[b]:
        return False
    with np.errstate(all="ignore"):
        d = E[k] - E[b]
        se = float(np.std(d, ddof=1)) / np.sqrt(d.size)
    return bool(d.mean() <= tuning.noise_tie_se * se)


def consistent_order(cands: list[Candidate], basis, per_point: np.ndarray, order: list[int], exact_below: float,
                     units: tuple | None, tuning: Tuning = TUNING) -> list[int]:
    """``order`` with a dimensionally consistent candidate first where the first is not
    (:func:`~superpos.core.dimensions.dimensional_constants`, every column's unit given): the
    consistent one of least mean error among those the cross-validation cannot tell from it
    (exact too where it is exact, else within the noise as :func:`within_noise_order` asks).
    Without units the order is unchanged."""
    if not order or units is None or any(u is None for u in units):
        return order
    E = np.asarray(per_point, dtype=np.float64)
    b = order[0]
    if _consistent(cands[b], basis, units) or E.shape[1] < 3:
        return order
    with np.errstate(all="ignore"):
        mean = np.where(np.all(np.isfinite(E), axis=1), E.mean(axis=1), np.inf)
    if not np.isfinite(mean[b]):
        return order
    exact = mean[b] < exact_below
    tied = [k for k in order[1:] if (mean[k] < exact_below if exact else within_noise(E, mean, k, b, tuning))]
    for k in sorted(tied, key=lambda k: mean[k])[:tuning.cv_finalists]:
        if _consistent(cands[k], basis, units):
            return [k] + [j for j in order if j != k]
    return order


def _consistent(c: Candidate, basis, units: tuple) -> bool:
    from ..core.dimensions import tree_dimensions

    d = tree_dimensions(c.tree, basis, c.constants, units)
    return d is None or d.consistent  # a tree sympy cannot write: nothing to say against it
