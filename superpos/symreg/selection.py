"""The selection rule: which fitted candidate wins.

The validation error decides; errors within a tolerance of the best count as a tie, and a
tie goes to the simpler tree (nodes plus free constants), then the more likely one. The
finalists are ranked again by cross-validation over all the points, where ties are judged on
the per-point differences of the held-out errors (:func:`paired_order`). What the finalists do
beyond the data (plausibility at probe points, extrapolation as evidence) is
:mod:`.plausibility`'s, and the rules between finalists the cross-validation cannot tell
apart (the tie keys, within the noise, dimensionally consistent, alike) :mod:`.ties`'; both
re-exported here.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from .candidates import Candidate, Points
from .edges import edge_floor
from .plausibility import beyond_points, explodes, extrapolation_order, plausible, probe_points
from .ties import alike_finalists, consistent_order, tie_keys, tie_order, within_noise_order
from .tuning import TUNING, Tuning
from .unit_constants import scored_variants, unit_variants

__all__ = ["tie_keys", "tie_order", "front", "selection_order", "rank_candidates", "paired_order", "best_order", "mdl_order", "cross_validated_finalists",
           "probe_points", "plausible", "beyond_points", "explodes", "extrapolation_order", "honest_order",
           "within_noise_order", "consistent_order", "alike_finalists"]


def selection_order(cands: list[Candidate], rtol: float = 0.05, atol: float = 1e-10) -> list[int]:
    """Candidates best first. The validation error decides; errors within ``rtol`` (relative)
    or ``atol`` (absolute, normalised error) of the best count as a tie, and ties go by the
    tie rule (:func:`tie_keys`). The rest follow by validation error."""
    if not cands:
        return []
    err = np.array([c.nmse_validation for c in cands], dtype=np.float64)
    err[~np.isfinite(err)] = np.inf
    best = err.min()
    tied = err <= best * (1.0 + rtol) + atol if np.isfinite(best) else np.ones(len(cands), bool)
    size, neg_ll, rank = tie_keys(cands).T
    # (0, complexity, -log-likelihood, rank) for the tied, (1, error, complexity, rank) for the rest
    keys = (rank, np.where(tied, neg_ll, size), np.where(tied, size, err), ~tied)
    return np.lexsort(keys).tolist()


def rank_candidates(cands: list[Candidate], rtol: float) -> list[Candidate]:
    """The candidates best first under :func:`selection_order`."""
    return [cands[k] for k in selection_order(cands, rtol=rtol)]


def paired_order(cands: list[Candidate], errors: np.ndarray, rtol: float = np.inf,
                 margin: tuple[float, float] | None = None, atol: float = 1e-10,
                 tuning: Tuning = TUNING) -> list[int]:
    """Candidates best first from their per-point held-out errors ``errors`` (candidates, n).
    Against the candidate of least mean error b, candidate k ties when the data cannot call
    it worse, mean(e_k - e_b) <= min(sd(e_k - e_b) / sqrt(n), ``rtol`` mean(e_b)), or when
    it is not worse by much, mean(e_k - e_b) <= min(m_rel mean(e_b), m_abs) with ``margin``
    = (m_rel, m_abs) (``practical_margin`` by default; + ``atol``; the errors are normalised by
    the variance of y, so m_abs is in R^2); the tie goes to the simpler tree, then the more likely one, and the rest follow
    by mean error. A more complex formula must be better beyond the noise and by a margin
    worth a term; on a noisy table that margin is at most m_abs of R^2.
    The standard error of the paired difference is the right one where the difference
    spreads over the points: two formulas that err alike differ by far less than either
    error's spread (the relative tolerance alone, sqrt(2 / n), let a constant tie with a line
    that explains 10 % of a noisy table). Where a few points carry the difference (a wrong
    formula far off at the ends of the range, on 20 points) it is larger than the standard
    error of a mean squared error, ``rtol`` relative, and that one decides."""
    if not cands:
        return []
    margin = tuning.practical_margin if margin is None else margin
    E = np.asarray(errors, dtype=np.float64)
    with np.errstate(all="ignore"):
        mean = np.where(np.all(np.isfinite(E), axis=1), E.mean(axis=1), np.inf)
    best = int(np.argmin(mean))
    tied = np.zeros(len(cands), dtype=bool)
    if np.isfinite(mean[best]):
        n = E.shape[1]
        for k in np.flatnonzero(np.isfinite(mean)):
            with np.errstate(all="ignore"):
                d = E[k] - E[best]
                se = float(np.std(d, ddof=1)) / np.sqrt(n) if n > 1 else 0.0
            noise = min(se, rtol * mean[best]) if np.isfinite(rtol) else se
            tied[k] = d.mean() <= max(noise, min(margin[0] * mean[best], margin[1])) + atol
    else:
        tied[:] = True
    ties = tie_keys(cands)
    key = [((0, *ties[k]) if tied[k] else (1, mean[k], ties[k, 0], ties[k, 2])) for k in range(len(cands))]
    return sorted(range(len(cands)), key=lambda k: key[k])


def front(cands: list[Candidate], limit: int) -> list[Candidate]:
    """The accuracy-complexity front of ``cands`` (no other candidate has both a lower
    complexity and a lower validation error), simplest first, at most ``limit``."""
    out: list[Candidate] = []
    last = np.inf
    for k in tie_order(cands):
        c = cands[int(k)]
        if np.isfinite(c.nmse_validation) and c.nmse_validation < last:
            out.append(c)
            last = c.nmse_validation
            if len(out) == limit:
                break
    return out


def cross_validated_finalists(cands: list[Candidate], basis, points: Points, settings, seed: int,
                              rng: np.random.Generator, affine: list, exact_below: float = 1e-10,
                              model_scored=frozenset(), stages: list | None = None,
                              alike: list | None = None) -> list[Candidate]:
    """``cands`` with their finalists first, ranked by K-fold cross-validation on all the
    points (constants refitted on each fold's other points) under :func:`paired_order`.
    The finalists are the first ``cv_finalists`` under the tie rule, as many of least
    validation error, the ``affine`` trees (the affine formula over every input) and the
    simplest ``cv_finalists`` of the accuracy-complexity front (:func:`front`, the shorter
    alternatives an approximation is chosen among; over the pool and the written forms of its
    ``written_variants`` of least error, each scored on its own:
    :func:`~superpos.symreg.unit_constants.scored_variants`), and the forms of these written with their
    unit constants (:func:`~superpos.symreg.unit_constants.unit_variants`): one
    split's quarter of the points chooses between thousands of candidates, and on noisy
    tables it lets a simple formula tie with a better one by chance (or a lucky one win);
    the folds use every point once and the paired rule asks a better fit to be better on
    the same points. Small data (``points.folds``) keep their folds; others get 5. The
    finalists' ``nmse_validation`` becomes their cross-validated error. ``settings.selection``
    orders them: ``"validation"`` (:func:`paired_order`), ``"best"`` (:func:`best_order`) or
    ``"mdl"`` (:func:`mdl_order`, which refits and snaps them on all the points and sets their
    ``code_length``); then :func:`extrapolation_order` applies. ``stages``, where given, gets
    (stage, leader) after each ordering (the trace's record of what chose the winner);
    ``alike``, where given, the finalists the cross-validation cannot tell from the leader
    (:func:`alike_finalists`)."""
    note = (lambda stage, order: stages.append((stage, order[0]))) if stages is not None else (lambda *_: None)
    t = settings.tuning
    keys = {np.asarray(t, dtype=np.int64).tobytes() for t in affine}
    head: list[Candidate] = []
    chosen: set[int] = set()  # ids of the candidates in head
    by_error = sorted(cands, key=lambda c: c.nmse_validation)
    memo: dict = {}  # the written forms, once per candidate
    written = scored_variants(by_error[:t.written_variants], basis, points, settings, seed, memo)
    for c in (cands[:t.cv_finalists] + by_error[:t.cv_finalists] + _distinct(by_error, t.cv_finalists)
              + [c for c in cands if np.asarray(c.tree, dtype=np.int64).tobytes() in keys]
              + front(cands + written, t.cv_finalists)):
        if (np.isfinite(c.nmse_validation) or points.folds) and id(c) not in chosen:
            head.append(c)
            chosen.add(id(c))
    head += unit_variants(head, basis, memo, tuning=t)
    if len(head) < 2:
        return cands
    cv = points if points.folds else Points.k_folds(points.X, points.y, 5, rng)
    errors = cv.cross_validated([c.tree for c in head], basis, [c.constants for c in head], settings, seed,
                                per_point=True)
    with np.errstate(all="ignore"):
        means = np.where(np.all(np.isfinite(errors), axis=1), errors.mean(axis=1), np.inf)
    if not np.isfinite(means).any():  # no finalist survives its folds: keep the order as it was
        return cands
    finalists = [replace(c, nmse_validation=float(e)) for c, e in zip(head, means)]
    rest = [c for c in cands if id(c) not in chosen]
    if settings.selection == "mdl":
        finalists, order = mdl_order(finalists, basis, points, means, exact_below, model_scored, settings, seed)
    elif settings.selection == "best":
        order = best_order(finalists, means, exact_below)
    else:
        order = paired_order(finalists, errors, settings.tie_tolerance(cv.n_validation), tuning=t)
    note(f"cross-validated ({settings.selection})", [finalists[order[0]]])
    ordered = honest_order([finalists[k] for k in order], basis, points.X, points.y, exact_below, rng,
                           settings.lm_iterations, seed, edge_floor(settings.precision, exact_below, t), errors[order],
                           tuning=t)
    note("honest (a law first)", ordered)
    row = {id(c): k for k, c in enumerate(finalists)}
    ordered = [finalists[k] for k in within_noise_order(finalists, errors, [row[id(c)] for c in ordered], exact_below, t)]
    note("within the noise (the shortest)", ordered)
    row = {id(c): k for k, c in enumerate(finalists)}
    ordered = [finalists[k] for k in consistent_order(finalists, basis, errors, [row[id(c)] for c in ordered],
                                                      exact_below, settings.units, t)]
    note("dimensionally consistent", ordered)
    ordered = extrapolation_order(ordered, basis, points.X, points.y, exact_below, rng,
                                  settings.tie_tolerance(cv.n_validation), tuning=t)
    note("extrapolation", ordered)
    if alike is not None:
        alike += alike_finalists(finalists, errors, row[id(ordered[0])], exact_below, t)
    return ordered + rest


def _distinct(cands: list[Candidate], limit: int) -> list[Candidate]:
    """The first ``limit`` candidates of distinct validation error (to 6 significant digits):
    one function written as several trees fills one place (a power law with a cut-off at 1 %
    noise: the ten of least error were five trees of one rational in sqrt(x); the law's was
    not among them)."""
    out, seen = [], set()
    for c in cands:
        key = float(f"{c.nmse_validation:.6g}") if np.isfinite(c.nmse_validation) else id(c)
        if key not in seen:
            seen.add(key)
            out.append(c)
            if len(out) >= limit:
                break
    return out


def _similar(e: float, e0: float, tuning: Tuning) -> bool:
    """Normalised errors practically alike: at most ``alike_times``, or ``alike_more`` (R^2) more."""
    return e <= max(tuning.alike_times * e0, e0 + tuning.alike_more)


def honest_order(cands: list[Candidate], basis, X: np.ndarray, y: np.ndarray, exact_below: float,
                 rng: np.random.Generator, max_iter: int = 50, seed: int = 0,
                 floor: float | None = None, per_point: np.ndarray | None = None,
                 tuning: Tuning = TUNING) -> list[Candidate]:
    """A law before an approximation: the first candidate (in the rule's order) of error
    similar to the least (:func:`_similar`) whose status (:func:`~superpos.symreg.status.formula_status`
    with its constants on X, and refitted on the interior for the edge test of
    :mod:`~superpos.symreg.edges`, ``max_iter`` steps, edge ``floor``, the record's by default) is
    ``exact`` or ``law``
    goes first. When there is none, no law is claimed and the approximation :func:`_brief`
    picks goes first (the simplest the front reaches at a bounded cost of error per node,
    within ``approximation_window`` of the least error): an approximation is worth its brevity, and a
    longer sum
    that fits the sample a little better is a curve fit that fails beyond it (PySR's score,
    -d log(error) / d complexity, picked such sums: their last terms cut the error by large
    factors for a few nodes each). ``per_point``: the candidates' per-point held-out errors (rows
    in ``cands``' order); a candidate worse than a law beyond the noise claims no law
    (:func:`_worse_than_a_law`)."""
    from ..core.tree import evaluate
    from .edges import edge_errors, edge_splits
    from .status import formula_status, neighbourhoods

    errors = np.array([c.nmse_validation for c in cands], dtype=np.float64)
    if not np.isfinite(errors).any():
        return cands
    e0 = float(np.min(errors[np.isfinite(errors)]))
    hoods = splits = None
    status: dict[int, bool] = {}

    def is_law(k: int) -> bool:
        nonlocal hoods, splits
        if k not in status:
            c = cands[k]
            with np.errstate(all="ignore"):
                r = y - evaluate(c.tree, basis, X, c.constants)
            hoods = neighbourhoods(X, tuning=tuning) if hoods is None else hoods
            splits = edge_splits(X, tuning) if splits is None else splits

            def edges(c=c):
                return edge_errors(c.tree, basis, X, y, c.constants, max_iter, seed, splits, tuning)

            status[k] = formula_status(c.nmse_validation, exact_below, X, r, np.random.default_rng(rng.integers(2**31)),
                                       hoods=hoods, edges=edges, edge_floor=floor, tuning=tuning) != "approximation"
        return status[k]

    worse = _worse_than_a_law(cands, per_point, exact_below, is_law, tuning)
    for k, c in enumerate(cands):
        if not (np.isfinite(c.nmse_validation) and _similar(c.nmse_validation, e0, tuning)) or k in worse:
            continue
        if is_law(k):
            return cands if k == 0 else [c] + cands[:k] + cands[k + 1:]
    pick = _brief(cands, errors, e0, exact_below, tuning)
    return cands if pick == 0 else [cands[pick]] + cands[:pick] + cands[pick + 1:]


def _worse_than_a_law(cands: list[Candidate], per_point: np.ndarray | None, exact_below: float, is_law,
                      tuning: Tuning = TUNING) -> set[int]:
    """The candidates whose per-point held-out errors are worse than those of the candidate of
    least mean error b beyond the noise (the paired mean difference above ``law_worse_se``
    standard errors, ``law_worse_share`` of b's error and the data's precision), when b is a
    law: their residuals hold what b explains, so they are not the law however noise-like they
    look. Empty without the per-point errors."""
    if per_point is None or len(cands) < 2:
        return set()
    E = np.asarray(per_point, dtype=np.float64)
    with np.errstate(all="ignore"):
        mean = np.where(np.all(np.isfinite(E), axis=1), E.mean(axis=1), np.inf)
    b = int(np.argmin(mean))
    if not np.isfinite(mean[b]) or E.shape[1] < 3:
        return set()
    out = set()
    for k in np.flatnonzero(np.isfinite(mean)):
        with np.errstate(all="ignore"):
            d = E[k] - E[b]
            se = float(np.std(d, ddof=1)) / np.sqrt(d.size)
        if k != b and d.mean() > max(tuning.law_worse_se * se, tuning.law_worse_share * mean[b], exact_below):
            out.add(int(k))
    return out if out and is_law(b) else set()


def _brief(cands: list[Candidate], errors: np.ndarray, e0: float, exact_below: float, tuning: Tuning = TUNING) -> int:
    """The approximation to show: from the candidate of least error, step to the next simpler
    one of the accuracy-complexity front while each step costs at most ``brevity_rate`` of log
    error per unit of complexity (errors under the data's precision count as that precision)
    and the error stays within ``approximation_window`` of the least: a long sum that fits to
    round-off gives way to a formula a fraction its length that is almost as good, but a
    formula with R^2 1.0 does not give way to a much shorter one of R^2 0.987 (a flat window of
    0.01 of R^2 took that step)."""
    window = tuning.approximation_window
    limit = max(min(window[0] * e0, e0 + window[2]), e0 + window[1])
    keys = tie_keys(cands)
    front, last = [], np.inf
    for k in (int(k) for k in tie_order(cands) if np.isfinite(errors[k])):  # simplest first, each better
        if errors[k] < last:
            front.append(k)
            last = errors[k]
    floor = max(exact_below, 1e-300)
    cur = front[-1]
    for k in reversed(front[:-1]):
        if errors[k] > limit:
            break
        saved = max(keys[cur, 0] - keys[k, 0], 1.0)
        if np.log(max(errors[k], floor) / max(errors[cur], floor)) > tuning.brevity_rate * saved:
            break
        cur = k
    return cur


def best_order(cands: list[Candidate], loss: np.ndarray, floor: float = 1e-10, limit: float | None = None) -> list[int]:
    """PySR's ``model_selection="best"``: among the candidates of the accuracy-complexity front
    whose loss is at most ``limit`` (default: 1.5x the least), the one of highest score
    -d log(loss) / d complexity first (losses below ``floor``, the data's precision, count as
    ``floor``), then the others of the front within the limit by score, then the rest by loss.
    The order behind the first matters: the first law in it goes first (:func:`honest_order`),
    and by loss a 22-node formula 0.5 % better than a 17-node one came before it."""
    loss = np.maximum(np.where(np.isfinite(loss), loss, np.inf), floor)
    cx = np.array([c.complexity for c in cands], dtype=np.float64)
    by_loss = sorted(range(len(cands)), key=lambda k: (loss[k], cx[k], cands[k].rank))
    if not np.isfinite(loss).any():
        return by_loss
    front, last = [], np.inf
    for k in sorted(range(len(cands)), key=lambda k: (cx[k], loss[k], cands[k].rank)):
        if loss[k] < last:
            front.append(k)
            last = loss[k]
    scored = []
    for i, k in enumerate(front):
        score = 0.0 if i == 0 else -(np.log(loss[k]) - np.log(loss[front[i - 1]])) / max(cx[k] - cx[front[i - 1]], 1.0)
        if loss[k] <= (1.5 * loss.min() if limit is None else limit):
            scored.append((-score, i, k))
    head = [k for _, _, k in sorted(scored)] or [front[0]]
    return head + [k for k in by_loss if k not in head]


def mdl_order(cands: list[Candidate], basis, points: Points, cv_loss: np.ndarray, exact_below: float,
              model_scored, settings, seed: int) -> tuple[list[Candidate], list[int]]:
    """The candidates refitted on all of ``points`` (from their constants), snapped
    (:func:`~superpos.symreg.fitting.snap_constants`) and ordered by description length
    (:mod:`~superpos.symreg.description`; ties: the simpler, then the more likely), with
    ``code_length`` set. The noise variance is one for the data set: the least cross-validated
    error ``cv_loss`` (normalised) of the candidates, at least the data's precision."""
    from ..core.numeric import error_scale
    from .description import code_length
    from .fitting import refit_constants
    from .snapping import snap_constants

    X, y = points.X, points.y
    scale = error_scale(y)
    finite = cv_loss[np.isfinite(cv_loss)]
    s2 = max(float(finite.min()) if finite.size else 1.0, exact_below) * scale
    out, totals = [], []
    for c in cands:
        if c.constants.size and np.all(np.isfinite(c.constants)):
            fitted = refit_constants(c.tree, basis, X, y, c.constants, 0, settings.lm_iterations, seed)
            snapped = snap_constants(c.tree, basis, X, y, fitted, tuning=settings.tuning)
        else:
            fitted = snapped = c.constants
        scored = c.source in model_scored
        L = code_length(c, fitted, snapped, basis, X, y, s2, scored)
        free = code_length(c, fitted, fitted, basis, X, y, s2, scored) if snapped is not fitted else L
        L, best = (L, snapped) if L.total <= free.total else (free, fitted)
        out.append(replace(c, constants=np.asarray(best, dtype=np.float64), code_length=L.total))
        totals.append(L.total if np.isfinite(c.nmse_validation) else np.inf)
    ties = tie_keys(out)
    order = sorted(range(len(out)), key=lambda k: (totals[k], *ties[k]))
    return out, order
