"""The search plan: one table of contexts by proposer, read by the engine (:mod:`.engine`).

A *context* is a kind of data set the engine searches: the user's data, the inputs most related
to y (data wider than the structure model), a reduction, a separable part, the transform of y an
outer function undoes, a residual, a template's placeholder. Each lists its *steps* in the order
they run; a step names a proposer (:data:`PROPOSERS`) and says

- ``gates``: what must hold for it to run here (each with the reason the trace gives when not);
- ``when_settled``: whether it still runs once the pool's best is exact and holds at the edges
  of the data (:meth:`~.engine.Search.settled`): the proposers that may find a shorter twin of
  an exact candidate, or that check exactness themselves;
- ``when_spent``: whether it still runs once the effort is spent (a few fits only).

A context's ``share`` is the fraction of the effort left that one entry into it gets, split
evenly over the ``pieces`` a proposer enters it for (the parts of a sum times the backfitting
passes, :meth:`~.engine.Search.solve`). ``users_data`` marks the context of the user's own data
(several proposers do more there than within a part). Adding a proposer is one module of
:mod:`.proposers` (a class with ``name`` and ``propose(search, pool)``) and one row here per
context it runs in.

The nesting of contexts is bounded by the table itself (a context lists only proposers whose
sub-searches are other contexts or, for the separable parts, are capped by ``decompose_depth``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..exceptions import SuperposError
from .proposers import (AffineProposer, BaselinesProposer, DimensionsProposer, FamiliesProposer, LawsProposer, ModelProposer,
                        OuterProposer, PowersProposer, RationalProposer, ReductionsProposer, ResidualProposer,
                        SearchProposer, SeparableProposer, SumsProposer, TemplateProposer)
from .proposers.families import NEEDS

__all__ = ["Gate", "Step", "Context", "SearchPlan", "PLAN", "PROPOSERS", "PROPOSER_NAMES", "check_proposer_names",
           "step", "markdown"]


@dataclass(frozen=True)
class Gate:
    """A condition a step needs: ``holds(search)``; ``needs`` says it in words (the trace's
    reason when it does not hold)."""

    needs: str
    holds: Callable


@dataclass(frozen=True)
class Step:
    """One proposer's place in a context (module docstring)."""

    proposer: str
    gates: tuple = ()
    when_settled: bool = False
    when_spent: bool = False

    def blocked(self, search) -> str | None:
        """What this step needs and ``search`` lacks (the first gate that fails), or None."""
        for g in self.gates:
            if not g.holds(search):
                return g.needs
        return None


@dataclass(frozen=True)
class Context:
    """A kind of data set the engine searches, its steps in order and its share of the effort."""

    name: str
    what: str
    steps: tuple
    share: float = 1.0
    users_data: bool = False


def fitting_points(n: int) -> Gate:
    return Gate(f"at least {n} fitting points", lambda s: s.points.fit.size >= n)


def inputs(n: int) -> Gate:
    return Gate(f"at least {n} inputs", lambda s: s.n_inputs >= n)


DECOMPOSE = Gate("the setting decompose on", lambda s: bool(s.settings.decompose))
WITHIN_DEPTH = Gate("a level of parts under decompose_depth", lambda s: s.depth < s.settings.decompose_depth)
WIDER = Gate("more inputs than the structure model knows", lambda s: s.n_inputs > s.model.basis_.n_variables)
ROUNDS = Gate("search_rounds > 0", lambda s: bool(s.settings.search_rounds))
VIEWS = Gate("the structure model's decoded views of these data", lambda s: s.views is not None)
CURVES = Gate(f"the functions {', '.join(NEEDS)} in the basis", lambda s: all(s.work.has(n) for n in NEEDS))
UNITS = Gate("every column's unit (the target's too)",
             lambda s: s.settings.units is not None and all(u is not None for u in s.settings.units))
RATIOS = Gate("div and constants in the basis", lambda s: s.work.has("div") and s.work.constant >= 0)

MODEL = Step("model")
POWERS = Step("powers", (fitting_points(4),), when_settled=True, when_spent=True)
FAMILIES = Step("families", (fitting_points(8), CURVES))
RATIONAL = Step("rational", (fitting_points(20), RATIOS))
SEARCH = Step("search", (ROUNDS, VIEWS), when_settled=True)
REDUCE = Step("reductions", (inputs(2),))
SEPARATE = Step("separable", (DECOMPOSE, inputs(2), WITHIN_DEPTH))
SUMS = Step("sums")
LAWS = Step("laws", when_settled=True)
SPLITS = (DECOMPOSE, WITHIN_DEPTH, inputs(2))
"""The gates of the proposers that split the user's data into smaller laws."""

PART_STEPS = (MODEL, POWERS, FAMILIES, SEARCH, REDUCE, SEPARATE, LAWS)
"""The steps of a data set the engine made: a part, a transform of y, a placeholder."""

_CONTEXTS = (
    Context("data", "the user's data (its selection sample)", (
        MODEL, Step("dimensions", (UNITS,)), POWERS, FAMILIES, RATIONAL, SEARCH, REDUCE,
        Step("separable", (DECOMPOSE, inputs(3), WITHIN_DEPTH)),
        Step("outer", SPLITS), Step("affine", SPLITS), Step("baselines", (WIDER,)), SUMS, LAWS,
        Step("residual", SPLITS)), users_data=True),
    Context("template", "the user's data under the user's template", (Step("template"),), users_data=True),
    Context("narrowed", "the inputs most related to y, where the data have more than the model knows",
            (MODEL, SEARCH), share=1.0),
    Context("reduced", "a reduction (z, y / prod w^a) of the data (the share split over `reductions_searched`)",
            (MODEL, SEARCH), share=1.0),
    Context("reduced-nested", "a reduction through differences or sums of the user's inputs, reduced again "
            "(the share split over `reductions_searched`)", (MODEL, SEARCH, REDUCE), share=1.0),
    Context("part", "a part of a separable law, first backfitting pass", PART_STEPS, share=0.5),
    # the rational laws join from the second pass, on targets that may be exact (benchmarks/decisions.md)
    Context("part-later", "a part of a separable law, later passes (targets cleaned by the other parts' formulas)",
            (MODEL, POWERS, FAMILIES, RATIONAL, SEARCH, REDUCE, SEPARATE, LAWS), share=0.5),
    Context("outer", "T(y) (y^2, 1/y, log abs(y), exp(y)) where it separates", PART_STEPS, share=0.25),
    Context("residual", "what a finalist misses: y - f or y / f", (MODEL, POWERS, FAMILIES, SEARCH, REDUCE, SEPARATE,
                                                                   SUMS, LAWS), share=0.25),
    Context("template-part", "a placeholder of the user's template", PART_STEPS, share=0.5),
    Context("affine-part", "a coefficient of a law affine in one input's function", PART_STEPS, share=0.25),
)

PROPOSERS = {p.name: p for p in (ModelProposer(), DimensionsProposer(), PowersProposer(), FamiliesProposer(), RationalProposer(),
                                 SearchProposer(), ReductionsProposer(), SeparableProposer(), OuterProposer(),
                                 AffineProposer(), BaselinesProposer(), SumsProposer(), LawsProposer(),
                                 ResidualProposer(), TemplateProposer())}
"""Every proposer by name."""



@dataclass(frozen=True)
class SearchPlan:
    """The table the engine reads: ``contexts`` and ``proposers``, each by name. The context of
    the user's data is ``data`` (``template`` under a template: it replaces the sources), whose
    proposers the user may choose among."""

    contexts: dict
    proposers: dict

    def __post_init__(self) -> None:
        missing = {s.proposer for c in self.contexts.values() for s in c.steps} - set(self.proposers)
        if missing:
            raise ValueError(f"the search plan names proposers that do not exist: {sorted(missing)}")

    @property
    def names(self) -> tuple:
        """The proposers a user may choose among (``FormulaSettings.proposers``), in the order they run."""
        return tuple(s.proposer for s in self.contexts["data"].steps)

    def top(self, template: str | None) -> Context:
        """The context of the user's data."""
        return self.contexts["template" if template is not None else "data"]

    def check_names(self, names) -> None:
        """An unknown proposer name is an error that lists the known ones."""
        unknown = [n for n in (names or ()) if n not in self.names]
        if unknown:
            raise SuperposError(f"unknown proposer(s) {', '.join(map(repr, unknown))}; choose from "
                                f"{', '.join(self.names)}")


PLAN = SearchPlan({c.name: c for c in _CONTEXTS}, PROPOSERS)
"""The search plan."""

PROPOSER_NAMES = PLAN.names
check_proposer_names = PLAN.check_names


def step(context: str, proposer: str) -> Step:
    """The step of ``proposer`` in ``context`` (a KeyError where it does not run there)."""
    for s in PLAN.contexts[context].steps:
        if s.proposer == proposer:
            return s
    raise KeyError(f"{proposer!r} does not run in the context {context!r}")


def markdown(plan: SearchPlan | None = None) -> str:
    """The plan as two markdown tables (what docs/proposers.md shows): each context with its
    share and its steps in order; each step with its gates and whether it runs on a settled
    pool or once the effort is spent (a proposer whose gates differ between contexts has one
    row per variant)."""
    plan = PLAN if plan is None else plan
    out = ["| context | what | share of the effort left | steps, in order |", "|---|---|---:|---|"]
    for c in plan.contexts.values():
        out.append(f"| `{c.name}`{' (the user' + chr(39) + 's data)' if c.users_data else ''} | {c.what} | "
                   f"{c.share:.3g} | {', '.join(s.proposer for s in c.steps)} |")
    out += ["", "| step | gates (all must hold) | runs on a settled pool | runs once the effort is spent | contexts |",
            "|---|---|---|---|---|"]
    seen: dict = {}
    for c in plan.contexts.values():
        for s in c.steps:
            seen.setdefault(s, []).append(c.name)
    for s, where in seen.items():
        gates = "; ".join(g.needs for g in s.gates) or "-"
        out.append(f"| `{s.proposer}` | {gates} | {'yes' if s.when_settled else 'no'} | "
                   f"{'yes' if s.when_spent else 'no'} | {', '.join(where)} |")
    return "\n".join(out) + "\n"
