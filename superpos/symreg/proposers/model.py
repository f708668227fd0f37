"""The structure model's candidates: decoded skeletons (proposer and source ``model``), from up
to three views of the data, and the trees local search reaches from them (proposer and source
``search``), run after the cheaper proposers of fixed forms (powers, families) so that an exact
power law or lab curve spares it; data with more inputs than the model knows are searched on
the inputs most related to y."""
from __future__ import annotations

import numpy as np

from ...exceptions import SuperposError
from ..candidates import Candidate, Points, fit_candidates, unique_trees
from ..engine import Search
from ..inputs import relabelling, select_inputs
from ..laws import baseline_trees
from ..search import local_search
from ..selection import rank_candidates
from ..settings import FormulaSettings

__all__ = ["ModelProposer", "SearchProposer", "propose_skeletons"]

class ModelProposer:
    """Decoded skeletons (:func:`model_candidates`); on data wider than the model, the model's
    and local search's candidates on the inputs most related to y
    (:func:`~superpos.symreg.inputs.select_inputs`, through :meth:`Search.solve`), the trees
    relabelled onto them."""

    name = "model"

    def propose(self, search: Search, pool: list[Candidate]) -> list[Candidate]:
        k = search.model.basis_.n_variables
        if search.n_inputs <= k:
            return model_candidates(search)
        seen = select_inputs(search.X, search.y, k)
        found = search.solve("narrowed", search.X[:, seen], search.y)
        names = tuple(search.basis.to_list())
        table = relabelling(search.model.basis_, search.basis, seen)
        return [Candidate(table[np.asarray(c.tree, dtype=np.int64)], names, c.log_likelihood, c.rank,
                          c.constants, c.nmse_fit, c.nmse_validation, c.source) for c in found]


class SearchProposer:
    """Local search around the model's decoded candidates (:func:`searched_candidates`), view
    after view, until a candidate of the pool is exact. It checks exactness itself (the plan runs
    it on a settled pool), since an exact formula of the data far from the model's decade does
    not count."""

    name = "search"

    def propose(self, search: Search, pool: list[Candidate]) -> list[Candidate]:
        return searched_candidates(search, pool)


def model_candidates(search: Search) -> list[Candidate]:
    """The structure model's decoded candidates for the search's points (over its own basis),
    best first, from up to three views of the data: rescaled by powers of ten into the decade the
    model knows (:mod:`~superpos.symreg.decades`), which do not depend on the user's units; the
    same with the inputs whose largest magnitude falls in [0.75, 1) there ten times larger
    (1-10 is as much the model's ground: c / v in [1.85, 9.3] has its law there, not in
    [0.185, 0.93]); the data as they are, where they differ. Every view's decoded candidates
    are fitted first, so that an exact formula in any of them ends the work early and its
    simpler twins compete (cos(x1), not sin(x1 + pi/2)). The rescaled views' best candidates
    are mapped back to the user's units. The views are left in ``search.views`` for local
    search (:class:`SearchProposer`)."""
    points, settings, basis = search.points, search.settings, search.model.basis_
    kx, ky = search.decade()
    top = np.abs(points.X).max(axis=0) / 10.0**kx
    scales = [(kx, ky)] + ([(kx - (top < 1.0), ky)] if np.any(top < 1.0) else [])
    if all(sx.any() or sy for sx, sy in scales):
        scales.append((np.zeros_like(kx), 0))
    views = []
    for sx, sy in scales:
        scaled = Points(points.X / 10.0**sx, points.y / 10.0**sy, points.fit, points.val, points.folds)
        views.append((sx, sy, scaled) + _decoded(search, scaled))

    cands: list[Candidate] = []
    mapped = []
    for sx, sy, _, found, _ in views:
        mapped.append(search.in_user_units(_worth_mapping(search, found) if sx.any() or sy else found, basis, sx, sy,
                                           len(cands)))
        cands = search.merge(cands, mapped[-1])
    # An exact formula of the data as they are ends the work only within a decade of the
    # normalised view (the model's ground). Further away it is often a degenerate one,
    # 1.9e11 x1 / (x1 + 3.0e6 x2 x3) for c x1 / (x2 x3), and local search of the normalised
    # views still runs: ``trusted`` holds their candidates alone.
    raw_far = not (views[-1][0].any() or views[-1][1]) and len(views) > 1 and \
        not (np.all(np.abs(kx) <= 1) and abs(ky) <= 1)
    trusted = search.merge([], [c for m in mapped[:-1] for c in m]) if raw_far else []
    search.views = (views, raw_far, trusted)
    return cands


def searched_candidates(search: Search, pool: list[Candidate]) -> list[Candidate]:
    """Local search from each view's decoded candidates (left by :func:`model_candidates`), in
    order, until the pool holds an exact formula (of the trusted views, where the data as they
    are lie far from the model's decade): the trees reached, in the user's units."""
    views, raw_far, trusted = search.views
    settings, basis = search.settings, search.model.basis_
    bonus = search.model.size_bonus_ if settings.candidate_bonus is None else settings.candidate_bonus
    # proposers of fixed forms that ran in between count for the exact test, as the model's own
    trusted = search.merge(trusted, [c for c in pool if c.source not in ("model", "search")]) if raw_far else trusted
    cands = pool
    out: list[Candidate] = []
    for sx, sy, scaled, found, L in views:
        if search.exact(trusted if raw_far else cands) or search.effort.exhausted():
            break
        grown = local_search(found, L + bonus, basis, scaled, settings, search.seed)
        search.effort.spend(max(0, len(grown) - len(found)))
        grown = [c if c.source else _sourced(c, "search") for c in grown]
        searched = search.in_user_units(grown[:settings.refit_top] if sx.any() or sy else grown, basis, sx, sy,
                                        len(cands))
        cands = search.merge(cands, searched)
        out += searched
        trusted = search.merge(trusted, searched) if raw_far else trusted
    search.clock.lap("fit_candidates")
    return out


def _worth_mapping(search: Search, found: list[Candidate]) -> list[Candidate]:
    """The candidates of a rescaled view worth writing back in the user's units (a sympy
    rewrite each): the best ``refit_top``, or only the exact ones among them when the best is
    exact (no inexact candidate can win then)."""
    top = found[:search.settings.refit_top]
    if search.exact(top):
        return [c for c in top if c.nmse_validation < search.exact_below]
    return top


def _sourced(c: Candidate, source: str) -> Candidate:
    c.source = source
    return c


def _decoded(search: Search, points: Points) -> tuple[list[Candidate], np.ndarray]:
    """Decode (on the ``shown`` points) and fit every candidate: (the candidates best first,
    in the units of ``points``; log theta)."""
    model = search.model
    L = model.log_theta_for(points.X[search.shown], points.y[search.shown])
    ranked = propose_skeletons(model, L, points.X.shape[1], search.settings)
    search.clock.lap("decode")
    search.effort.spend(len(ranked))
    cands = fit_candidates(ranked, model.basis_, points, search.settings, search.seed)
    cands = rank_candidates([_sourced(c, "model") for c in cands], search.settings.tie_tolerance(points.n_validation))
    search.clock.lap("fit_candidates")
    return cands, L


def propose_skeletons(model, L: np.ndarray, n_variables: int, settings: FormulaSettings) -> list:
    """The ``top_k`` most likely distinct skeletons under log theta ``L`` over the data's
    ``n_variables`` inputs, [(rank, log-likelihood + bonus, tree)], best first; the affine
    baselines (:func:`~superpos.symreg.laws.baseline_trees`) follow, below every decoded tree."""
    decoded = model.decode(L, settings.top_k, size_bonus=settings.candidate_bonus)
    floor = min((score for score, _ in decoded), default=0.0)
    baselines = [(floor - 1.0, t) for t in baseline_trees(model.basis_, n_variables)]
    ranked = unique_trees(decoded + baselines, model.basis_, n_variables)
    if not ranked:
        raise SuperposError("the model proposed no formula over this data's variables")
    return ranked
