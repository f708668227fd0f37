"""The candidate sources of the engine (:mod:`superpos.symreg.engine`), one module each, listed
in one registry in the order they run. Adding a proposer: a class with ``name``,
``after_exact``, ``applies(search)`` and ``propose(search, pool) -> list[Candidate]`` (see
:class:`~superpos.symreg.engine.Proposer` and ``docs/proposers.md``), one line here."""
from __future__ import annotations

from ...exceptions import SuperposError
from .affine import AffineProposer
from .baselines import BaselinesProposer
from .families import FamiliesProposer
from .laws import LawsProposer
from .model import ModelProposer, SearchProposer, propose_skeletons
from .outer import OuterProposer
from .powers import PowersProposer
from .rational import RationalProposer
from .reductions import ReductionsProposer
from .residual import ResidualProposer
from .separable import SeparableProposer
from .sums import SumsProposer
from .template import TemplateProposer

__all__ = ["REGISTRY", "PROPOSER_NAMES", "TEMPLATE", "chosen", "propose_skeletons"]

TEMPLATE = TemplateProposer()
"""The user's template: when ``FormulaSettings.template`` is given, the only proposer (it is not
in the registry: a template replaces the sources, it does not join them)."""

REGISTRY = (ModelProposer(), PowersProposer(), FamiliesProposer(), RationalProposer(), SearchProposer(), ReductionsProposer(),
            SeparableProposer(), OuterProposer(), AffineProposer(), BaselinesProposer(), SumsProposer(), LawsProposer(),
            ResidualProposer())

PROPOSER_NAMES = tuple(p.name for p in REGISTRY)


def chosen(names, template: str | None = None) -> tuple:
    """The registry's proposers named in ``names`` (all when None), in the registry's order; an
    unknown name is an error that lists the known ones. With a ``template``, only its proposer."""
    if template is not None:
        return (TEMPLATE,)
    if names is None:
        return REGISTRY
    unknown = [n for n in names if n not in PROPOSER_NAMES]
    if unknown:
        raise SuperposError(f"unknown proposer(s) {', '.join(map(repr, unknown))}; choose from "
                            f"{', '.join(PROPOSER_NAMES)}")
    return tuple(p for p in REGISTRY if p.name in set(names))
