"""Reductions of data with 2 or more inputs (source ``reduction``): a monomial times a function
of few inputs, a dimensionless group, differences (:mod:`~superpos.symreg.decompose`), each
solved by the engine on its reduced data set and written back over all inputs."""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..candidates import Candidate
from ..decompose import Reduction, reductions, smooth_in
from ..engine import Search
from ..families import fitted_families
from ..laws import fitted_laws, law_basis
from ..snapping import snaps_simply
from ..terms import transformed_sums

__all__ = ["ReductionsProposer", "solved"]


class ReductionsProposer:
    """For each reduction of the data to at most the model's number of inputs: the engine's
    best g on (z, y / prod w^a) (the plan's context ``reduced``, through :meth:`Search.solve`;
    for the differences and sums of the user's data ``reduced-nested``, over the laws' basis), then the
    sums of terms of g, 1/g, g^2 and 1/g^2 (:func:`~superpos.symreg.terms.transformed_sums`,
    small data) and, for one z, the classic laws (:func:`~superpos.symreg.laws.fitted_laws`) and
    the lab's families (:func:`~superpos.symreg.families.fitted_families`),
    written back as prod w^a * g(z(x)) over the work basis and refitted on the search's points.
    A single group z of one sign that tells y / prod w^a alone is searched again as 1/z
    (:func:`reciprocal`). The reductions stop once the law is found as it will be shown
    (:func:`_found`). At most ``reductions_searched`` reductions, each one search of the model
    (as much as the data's own), each with that fraction of the context's share."""

    name = "reductions"

    def propose(self, search: Search, pool: list[Candidate]) -> list[Candidate]:
        out: list[Candidate] = []
        points = search.points
        first = len(pool)
        found = False  # _found of the pool with ``out``, checked once each time ``out`` grows
        t = search.tuning
        for red in reductions(points.X, points.y, search.model.basis_.n_variables, t.reductions_searched, tuning=t):
            if found:
                break
            with np.errstate(all="ignore"):
                Z, rest = red.inputs(points.X), points.y / red.factor(points.X)
            if not (np.all(np.isfinite(Z)) and np.all(np.isfinite(rest)) and np.all(np.ptp(Z, axis=0) > 0)):
                continue
            out += solved(search, red, Z, rest, first + len(out))
            found = _found(search, search.merge(pool, out))
            flipped = reciprocal(red, Z)
            if flipped is not None and search.context.users_data and smooth_in(Z[:, 0], rest, t) and not found:
                # a group's orientation is arbitrary (x4 x5 / (x2 x3) or its inverse), and
                # exp(1/z) - 1 is far from the model's trees where exp(z) - 1 is one of them;
                # only where y / prod w^a is a function of z alone (a reduction that loses an
                # input would only spend the effort of the proposers after this one), and on
                # the user's data only (a part's search has a share too small for two)
                out += solved(search, flipped, 1.0 / Z, rest, first + len(out))
                # so is the split of z's power between the factor and g: x3 x4 g(z) or x1 x2 h(z)
                for other in refactored(red, t.max_law_exponent):
                    with np.errstate(all="ignore"):
                        moved = points.y / other.factor(points.X)
                    if np.all(np.isfinite(moved)):
                        pairs = [p for r, z in ((other, Z), (reciprocal(other, Z), 1.0 / Z))
                                 for p in _closed_forms(search, r, z, moved, search.floor(out))]
                        out += search.refit(pairs, search.work, first + len(out))
                found = _found(search, search.merge(pool, out))
        return out


def _found(search: Search, pool: list[Candidate]) -> bool:
    """Whether the pool's best is settled (exact, and holds at the edges: :meth:`Search.settled`)
    with every constant snapping to a simple number (:func:`~superpos.symreg.snapping.snaps_simply`):
    the law as it will be shown, which another reduction can only write again. A settled
    formula of free constants may be the law in another guise (a fitted 0.057 for (3 / (4 pi))^2,
    which a later reduction writes with 3 / (4 pi)) or a series exact to the data's digits, and
    the reductions go on."""
    if not search.settled(pool):
        return False
    c = pool[0]
    return snaps_simply(c.tree, search.work, search.X, search.y, c.constants, search.tuning)


def solved(search: Search, red: Reduction, Z: np.ndarray, rest: np.ndarray, rank: int) -> list[Candidate]:
    """The candidates of one reduced data set (Z, rest), written back over every input."""
    model_basis = search.model.basis_
    points = search.points
    # inputs read through a difference or a sum may still hide a group: (x2 - x3) / x1 of a
    # Gaussian; on the user's data those are reduced again
    nested = red.linear is not None and search.context.users_data
    over = law_basis(model_basis) if nested else model_basis
    found = search.solve("reduced-nested" if nested else "reduced", Z, rest, pieces=search.tuning.reductions_searched,
                         work=over, rows=_steady_rows(search, red))[:search.settings.refit_top]
    pairs = [(_as(c, "reduction"), red.compose(c.tree, c.constants, over, search.work)) for c in found
             if np.all(np.isfinite(c.constants))]
    floor = search.floor(found)
    names = tuple(model_basis.to_list())
    if not points.folds:  # small data: a few dozen points cannot choose among so many sums
        pairs += [(Candidate(t, names, floor, 0, c, np.inf, np.inf, "reduction+sums"),
                   red.compose(t, c, model_basis, search.work))
                  for t, c in transformed_sums(Z[points.fit], rest[points.fit], model_basis, keep=1,
                                               tuning=search.tuning)]
    return search.refit(pairs + _closed_forms(search, red, Z, rest, floor), search.work, rank)


def _steady_rows(search: Search, red: Reduction) -> np.ndarray | None:
    """On the user's data, where the factor prod w^a spans more than a decade, the rows where
    it is at least its median: y / prod w^a carries the noise of y divided by the factor, so
    where the factor is small the reduced target is mostly noise, and a look-alike fits it as
    well as the law. The candidates found there are refitted and scored on all the points."""
    if not search.context.users_data:
        return None
    with np.errstate(all="ignore"):
        F = np.abs(red.factor(search.points.X))
    if not (np.all(np.isfinite(F)) and np.all(F > 0)) or np.log10(F.max() / F.min()) <= 1.0:
        return None
    return F >= np.median(F)


def _closed_forms(search: Search, red: Reduction, Z: np.ndarray, rest: np.ndarray, floor: float) -> list:
    """(candidate, composed) of the classic laws and the lab's families fitted to (Z, rest)."""
    laws = law_basis(search.model.basis_)
    names = tuple(laws.to_list())
    points = search.points
    return ([(Candidate(t, names, floor, 0, c, np.inf, np.inf, "reduction+laws"), red.compose(t, c, laws, search.work))
             for t, c in fitted_laws(Z, rest, laws, points, search.settings, search.seed)]
            + [(Candidate(t, names, floor, 0, c, np.inf, np.inf, "reduction+families"),
                red.compose(t, c, laws, search.work))
               for t, c in fitted_families(Z, rest, laws, points.fit, search.settings, search.seed)])


def refactored(red: Reduction, max_exponent: float) -> list[Reduction]:
    """The reduction with z's power moved between the factor and g (factor prod w^(a + t b),
    t = -1, 1) where that factor has no more inputs than a and no exponent beyond
    ``max_exponent`` (the record's ``max_law_exponent``): one group only."""
    if len(red.inner) != 1:
        return []
    a, b = np.array(red.factor_exponents), np.array(red.inner[0])
    out = []
    for t in (-1.0, 1.0):
        c = a + t * b
        if np.count_nonzero(c) <= np.count_nonzero(a) and np.max(np.abs(c)) <= max_exponent:
            out.append(replace(red, factor_exponents=tuple(float(e) + 0.0 for e in c)))
    return out


def reciprocal(red: Reduction, Z: np.ndarray) -> Reduction | None:
    """The reduction to 1/z where it has one group z of one sign, else None."""
    if Z.shape[1] != 1 or not (np.all(Z > 0) or np.all(Z < 0)):
        return None
    return replace(red, inner=(tuple(-a for a in red.inner[0]),))


def _as(c: Candidate, source: str) -> Candidate:
    c.source = source
    return c
