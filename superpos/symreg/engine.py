"""The search engine: one pool of candidates, filled by the proposers of
:mod:`superpos.symreg.proposers` in the order the search plan (:mod:`.plan`) gives for the
search's context, merged and ranked in one place, and traced (:mod:`.trace`).

A proposer sees one :class:`Search`: the data in the units the engine chose (the selection
sample), its split into fitting and validation points (or folds), the structure model, the
bases, the settings, the seed and the effort left. It returns fitted candidates, built with the
engine's services: :meth:`Search.fit` (trees with start constants, optionally found on the data
rescaled by powers of ten and mapped back to the user's units: the only units round trip),
:meth:`Search.refit` (trees rewritten from other candidates), :meth:`Search.merge` (rank and
drop duplicates: the only merge) and :meth:`Search.solve`, which runs the engine again on data
of the proposer's own (a reduction, a part of a sum: a context of the plan) with the same split of
the points and the context's share of the effort. The engine stops early when the best candidate
is exact to the data's precision and holds at the edges of the data (the plan names the steps
that still run then) or when the effort is spent: a deterministic number of fitted trees (``max_fits``), and
optionally seconds (``time_limit``).
Nothing is kept between calls or shared between searches but the arrays they are given.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Protocol, Sequence, runtime_checkable

import numpy as np

from ..core.basis import Basis
from ..core.symbolic import from_sympy
from ..exceptions import NotRepresentable, SuperposError
from .candidates import Candidate, Points, fit_candidates, kept_rows, selection_sample, structural_hashes
from .edges import edge_errors, edge_floor, holds_at_edges
from .fitting import fit_many
from .laws import law_basis
from .selection import rank_candidates
from .settings import FormulaSettings
from .trace import ContextTrace, StepTrace
from .decades import decade_scales, to_data_scale

__all__ = ["Search", "Effort", "Clock", "Proposer", "StructureModel", "run_proposers", "model_basis_over", "MODEL_SCORED"]

MODEL_SCORED = frozenset({"model", "search", "reduction"})
# what a proposer may raise on data it cannot handle numerically (an SVD that does not converge,
# a NaN into scipy): the step is recorded as failed and the search goes on without it
NUMERICAL_FAILURES = (ArithmeticError, ValueError)
"""Sources whose candidates carry the structure model's log-likelihood (the others get a floor
below every model candidate, so that they win only on the data)."""


@runtime_checkable
class StructureModel(Protocol):
    """What the engine needs from a structure model (a fitted
    :class:`~superpos.structure.predictor.StructurePredictor`)."""

    basis_: Basis
    size_bonus_: float

    def log_theta_for(self, X: np.ndarray, y: np.ndarray) -> np.ndarray: ...

    def decode(self, L: np.ndarray, k: int, size_bonus: float | None = None) -> list: ...


@runtime_checkable
class Proposer(Protocol):
    """One source of candidates: ``name`` (unique; ``FormulaSettings.proposers`` chooses by it)
    and ``propose``. Where and when it runs (its gates, order, share of the effort, and whether
    an exact candidate or a spent effort stops it) is the search plan's (:mod:`.plan`)."""

    name: str

    def propose(self, search: "Search", pool: list[Candidate]) -> list[Candidate]: ...


class Clock:
    """Seconds per named stage, each lap measured from the previous one (a stage run twice adds up)."""

    def __init__(self):
        self.laps: dict[str, float] = {}
        self._t = time.perf_counter()

    def lap(self, name: str) -> None:
        t = time.perf_counter()
        self.laps[name] = self.laps.get(name, 0.0) + t - self._t
        self._t = t


@dataclass
class Effort:
    """The effort budget of one search: trees fitted (deterministic) and an optional deadline
    (``time.perf_counter()`` seconds). A share of it (:meth:`share`) charges its parent too."""

    max_fits: int
    deadline: float | None = None
    spent: int = 0
    parent: "Effort | None" = field(default=None, repr=False)

    def spend(self, n: int) -> None:
        e = self
        while e is not None:
            e.spent += int(n)
            e = e.parent

    @property
    def left(self) -> int:
        return max(0, self.max_fits - self.spent)

    def exhausted(self) -> bool:
        e = self
        while e is not None:
            if e.spent >= e.max_fits or (e.deadline is not None and time.perf_counter() > e.deadline):
                return True
            e = e.parent
        return False

    def share(self, fraction: float) -> "Effort":
        return Effort(max(1, int(fraction * self.left)), self.deadline, 0, self)


def model_basis_over(model: StructureModel, n_inputs: int) -> Basis:
    """The model's basis, widened to ``n_inputs`` variables where the data have more inputs."""
    k = model.basis_.n_variables
    return model.basis_ if n_inputs <= k else Basis(model.basis_.to_list(), n_inputs)


@dataclass
class Search:
    """One search's context: ``X``, ``y`` (the points the formula is chosen on, in the engine's
    units), ``points`` (their split), ``shown`` (the rows the structure model reads), ``model``,
    ``basis`` (the model's functions over the data's inputs), ``work`` (``basis`` and the
    functions of the laws: every pooled tree is over it), ``settings``, ``seed``, ``effort``,
    ``clock``, ``plan`` (the search plan, :class:`~superpos.symreg.plan.SearchPlan`), ``context``
    (the plan's row for these data, :class:`~superpos.symreg.plan.Context`),
    ``only`` (the proposers the user chose, on the user's data; None: all), ``depth`` (0 for the
    user's data, +1 per :meth:`solve`), ``views`` (the structure model's decoded views of these
    data, left by the model proposer for local search), ``held`` (whether a candidate holds at
    the edges, by tree and constants: :meth:`settled`'s memo) and ``trace`` (this search's
    :class:`~superpos.symreg.trace.ContextTrace`)."""

    points: Points
    shown: np.ndarray
    model: StructureModel
    basis: Basis
    work: Basis
    settings: FormulaSettings
    seed: int
    effort: Effort
    clock: Clock
    plan: object
    context: object
    only: frozenset | None = None
    depth: int = 0
    views: tuple | None = field(default=None, repr=False)
    held: dict = field(default_factory=dict, repr=False)
    trace: ContextTrace | None = field(default=None, repr=False)

    @classmethod
    def start(cls, X: np.ndarray, y: np.ndarray, model: StructureModel, settings: FormulaSettings,
              rng: np.random.Generator, seed: int, plan, context: str | None = None) -> "Search":
        """The search of the user's points (X, y) (already the selection sample) under ``plan``
        (:data:`superpos.symreg.plan.PLAN`), in ``context`` (default: the plan's context of the
        user's data), by the proposers ``settings.proposers`` names (all when None): the model's
        basis over the data's inputs, the laws' work basis, the rows the model reads, the split
        of the points (``rng``) and the effort budget of ``settings``."""
        if not isinstance(model, StructureModel):
            raise SuperposError(f"the structure model {type(model).__name__} lacks basis_, size_bonus_, "
                                "log_theta_for or decode")
        plan.check_names(settings.proposers)
        ctx = plan.top(settings.template) if context is None else plan.contexts[context]
        only = None if settings.proposers is None or settings.template is not None else frozenset(settings.proposers)
        basis = model_basis_over(model, X.shape[1])
        # the size of data set the model was trained on: its features (log n, the curve's smoothing window) depend on n
        shown = selection_sample(X, y, settings.tuning.model_points, rng)
        points = Points.split(X, y, settings.validation_fraction, rng, settings.cross_validate_below)
        deadline = None if settings.time_limit is None else time.perf_counter() + float(settings.time_limit)
        effort = Effort(settings.max_fits, deadline)
        return cls(points, shown, model, basis, law_basis(basis), settings, seed, effort, Clock(), plan, ctx, only, 0,
                   trace=ContextTrace(ctx.name, 0, int(y.size), int(X.shape[1]), effort.max_fits))

    @property
    def X(self) -> np.ndarray:
        return self.points.X

    @property
    def y(self) -> np.ndarray:
        return self.points.y

    @property
    def n_inputs(self) -> int:
        return int(self.points.X.shape[1])

    @property
    def tuning(self):
        """The thresholds of the search (:class:`~superpos.symreg.tuning.Tuning`), the settings'."""
        return self.settings.tuning

    @property
    def rtol(self) -> float:
        return self.settings.tie_tolerance(self.points.n_validation)

    @property
    def exact_below(self) -> float:
        """The normalised validation error under which a candidate is exact to the data's precision."""
        return self.settings.exact_threshold(self.points.y, self.n_inputs)

    def exact(self, cands: Sequence[Candidate]) -> bool:
        """Whether the best-ranked of ``cands`` is exact to the data's precision."""
        return bool(cands) and cands[0].nmse_validation < self.exact_below

    def settled(self, cands: Sequence[Candidate]) -> bool:
        """Whether the best-ranked of ``cands`` is exact (:meth:`exact`) and holds at the edges of
        the data when refitted on their interior (:func:`~superpos.symreg.edges.holds_at_edges`):
        the search may stop there. A series can be exact to 1e-10 of the variance inside the
        range (a polynomial of degree 6 for exp(x3) on [1, 3]) and stop the proposers that would
        find the law; on the edges it misses by far more than its interior error."""
        if not self.exact(cands):
            return False
        c = cands[0]
        key = (np.asarray(c.tree).tobytes(), np.asarray(c.constants, dtype=np.float64).tobytes())
        held = self.held
        if key not in held:
            s = self.settings
            held[key] = holds_at_edges(edge_errors(c.tree, self.work, self.X, self.y, c.constants, s.lm_iterations,
                                                   self.seed, tuning=s.tuning),
                                       edge_floor(s.precision, self.exact_below, s.tuning), s.tuning)
        return held[key]

    # ------------------------------------------------------------------ services
    def merge(self, pool: list[Candidate], new: list[Candidate]) -> list[Candidate]:
        """``pool`` and ``new`` best first (:func:`~superpos.symreg.selection.rank_candidates`),
        each skeleton once (its best-ranked candidate; commutative reorderings are one skeleton)."""
        ranked = rank_candidates(pool + new, self.rtol)
        seen: set = set()
        out = []
        for c, key in zip(ranked, structural_hashes([c.tree for c in ranked], self.work).tolist()):
            if key not in seen:
                seen.add(key)
                out.append(c)
        return out

    def floor(self, pool: Sequence[Candidate]) -> float:
        """The log-likelihood given to trees the model did not score: below every model candidate."""
        return min((c.log_likelihood for c in pool), default=0.0) - 1.0

    def fit(self, trees: list, basis: Basis, source: str, *, starts: list | None = None, scores=None,
            first_rank: int = 0, points: Points | None = None, scale: tuple | None = None, keep: int | None = None,
            full: bool = False) -> list[Candidate]:
        """Fit ``trees`` over ``basis`` (:func:`~superpos.symreg.candidates.fit_candidates`) on
        ``points`` (default: the search's); :meth:`merge` ranks them. ``scores``: a log-likelihood per tree or
        one for all (default -1: the floor of an empty pool). ``scale`` = (k_x, k_y): the trees are over the data divided by 10^k and
        the best ``keep`` (all when None) come back over the user's units
        (:func:`~superpos.symreg.decades.to_data_scale`), refitted there from the mapped
        constants. ``full``: every start and iteration for every tree (few trees whose scale
        constants need them), no cheap screen."""
        points = self.points if points is None else points
        if not trees:
            return []
        scores = self.floor([]) if scores is None else scores
        scores = [float(scores)] * len(trees) if np.ndim(scores) == 0 else list(scores)
        ranked = [(first_rank + r, s, t) for r, (s, t) in enumerate(zip(scores, trees))]
        settings = replace(self.settings, screen=(self.settings.n_starts, self.settings.lm_iterations),
                           screen_points=0) if full else self.settings
        kx, ky = scale if scale is not None else (np.zeros(points.X.shape[1], dtype=np.int64), 0)
        seen = points if not (np.any(kx) or ky) else Points(points.X / 10.0**kx, points.y / 10.0**ky, points.fit,
                                                            points.val, points.folds)
        self.effort.spend(len(trees))
        cands = fit_candidates(ranked, basis, seen, settings, self.seed, init=starts)
        cands = [replace(c, source=source) for c in cands]
        if seen is points:
            return cands
        cands = rank_candidates(cands, self.rtol)
        return self.in_user_units(cands if keep is None else cands[:keep], basis, kx, ky, first_rank, points)

    def in_user_units(self, cands: list[Candidate], basis: Basis, kx: np.ndarray, ky: int, first_rank: int,
                      points: Points | None = None) -> list[Candidate]:
        """Candidates found on data divided by 10^(k_x, k_y) as trees over the user's units,
        refitted on ``points`` from the mapped constants."""
        if not (np.any(kx) or ky):
            return cands
        pairs = [(c, to_data_scale(c.tree, c.constants, basis, kx, ky)) for c in cands
                 if np.all(np.isfinite(c.constants))]
        return self.refit(pairs, basis, first_rank, points=points)

    def refit(self, pairs: list, basis: Basis, first_rank: int, source: str | None = None,
              points: Points | None = None) -> list[Candidate]:
        """[(candidate, (tree, constants) or None)] of candidates rewritten as other trees over
        ``basis`` (another scale, a monomial factor): the rewritten trees refitted on ``points``
        from the rewritten constants, ranked from ``first_rank``; the Nones dropped. Each keeps
        its candidate's log-likelihood and source (or takes ``source``)."""
        points = self.points if points is None else points
        mapped = [(c, m) for c, m in pairs if m is not None]
        if not mapped:
            return []
        Xf, yf, Xv, yv = points.parts()
        trees = [m[0] for _, m in mapped]
        self.effort.spend(len(trees))
        fits = fit_many(trees, basis, Xf, yf, Xv, yv, n_starts=self.settings.n_starts,
                        max_iter=self.settings.lm_iterations, init=[m[1] for _, m in mapped], random_state=self.seed)
        if points.folds:  # small data: scored by cross-validation, as every other candidate
            cv = points.cross_validated(trees, basis, [c for c, _, _ in fits], self.settings, self.seed)
            fits = [(c, ef, float(e)) for (c, ef, _), e in zip(fits, cv)]
        names = tuple(basis.to_list())
        return [Candidate(m[0], names, c.log_likelihood, first_rank + r, consts, ef, ev, source or c.source,
                          decomposition=c.decomposition)
                for r, ((c, m), (consts, ef, ev)) in enumerate(zip(mapped, fits))]

    def refit_expression(self, expr, floor: float, source: str, rank: int,
                         decomposition: tuple = ()) -> list[Candidate]:
        """The candidate of the sympy ``expr`` over :attr:`work` (a formula a proposer put
        together from others': parts, an outer function, a template), refitted jointly from
        its numbers (:meth:`refit`) with log-likelihood ``floor``; none where the basis cannot
        write it."""
        try:
            tree, consts = from_sympy(expr, self.work)
        except (NotRepresentable, TypeError, ValueError, ZeroDivisionError, RecursionError):
            return []
        consts = np.array([float(v) for v in consts], dtype=np.float64)
        c = Candidate(tree, tuple(self.work.to_list()), floor, 0, consts, np.inf, np.inf, source,
                      decomposition=decomposition)
        return self.refit([(c, (tree, consts))], self.work, rank)

    def decade(self, points: Points | None = None) -> tuple[np.ndarray, int]:
        """(k_x, k_y): the powers of ten that bring the data into the decade the model knows."""
        points = self.points if points is None else points
        return decade_scales(points.X, points.y, self.tuning)

    def solve(self, context: str, X: np.ndarray, y: np.ndarray, pieces: int = 1, basis: Basis | None = None,
              work: Basis | None = None, rows: np.ndarray | None = None) -> list[Candidate]:
        """The engine again on data of the proposer's own, a ``context`` of the search plan
        (rows as the search's, so the same split of points; inputs may differ; ``rows``, a
        boolean mask, keeps some of them), with that context's steps (whichever sources the
        user chose: a proposer's own sub-search does not depend on them) and its share of the
        effort left divided by ``pieces`` (the parts a proposer enters it for): the ranked pool,
        trees over ``work`` (default: ``basis``, whose default is the model's basis; the laws'
        basis over it lets the laws and families proposers run)."""
        ctx = self.plan.contexts[context]
        basis = self.model.basis_ if basis is None else basis
        points = Points(X, y, self.points.fit, self.points.val, self.points.folds)
        points = points if rows is None else points.subset(rows)
        effort = self.effort.share(ctx.share / pieces)
        trace = ContextTrace(ctx.name, self.depth + 1, int(points.y.size), int(points.X.shape[1]), effort.max_fits)
        if self.trace is not None and self.trace.steps:
            self.trace.steps[-1].sub.append(trace)
        sub = replace(self, points=points, shown=self.shown if rows is None else kept_rows(self.shown, rows),
                      basis=basis, work=basis if work is None else work, effort=effort, context=ctx, only=None,
                      depth=self.depth + 1, views=None, held={}, trace=trace)
        return run_proposers(sub)


def _least_error(pool: Sequence[Candidate]) -> float:
    return min((c.nmse_validation for c in pool), default=np.inf)


def run_proposers(search: Search) -> list[Candidate]:
    """The pool of ``search``: the steps of its context (:mod:`~superpos.symreg.plan`), in order,
    each proposer that runs merged into it. A step is skipped (and the trace says why) where the
    user did not choose it, where the effort is spent (unless the step runs then: a few fits,
    such as the power laws a part's spent share would otherwise leave unfound), where the pool
    is settled (:meth:`Search.settled`; unless the step runs then) or where a gate fails."""
    pool: list[Candidate] = []
    steps = search.trace.steps if search.trace is not None else []
    for step in search.context.steps:
        st = StepTrace(step.proposer)
        steps.append(st)
        if search.only is not None and step.proposer not in search.only:
            st.skipped = "not among the chosen proposers"
            continue
        if search.effort.exhausted() and not step.when_spent:
            st.skipped = "the effort is spent"
            continue
        if not step.when_settled and search.settled(pool):
            st.skipped = "settled: the best candidate is exact and holds at the edges"
            continue
        why = step.blocked(search)
        if why is not None:
            st.skipped = f"needs {why}"
            continue
        st.ran, st.best_before, spent = True, _least_error(pool), search.effort.spent
        try:
            new = search.plan.proposers[step.proposer].propose(search, pool)
        except NUMERICAL_FAILURES as exc:  # one proposer's numerical failure drops its candidates, not the call
            if isinstance(exc, SuperposError):
                raise
            new, st.failed = [], f"{type(exc).__name__}: {str(exc)[:120]}"
        pool = search.merge(pool, new) if new else pool
        st.fits, st.added, st.best_after = search.effort.spent - spent, len(new), _least_error(pool)
    return pool
