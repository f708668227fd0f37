"""The candidate sources of the engine (:mod:`superpos.symreg.engine`), one module each, listed
in one registry in the order they run. Adding a proposer: a class with ``name``,
``after_exact``, ``applies(search)`` and ``propose(search, pool) -> list[Candidate]`` (see
:class:`~superpos.symreg.engine.Proposer` and ``docs/proposers.md``), one line here."""
from __future__ import annotations

from ...exceptions import SuperposError
from .baselines import BaselinesProposer
from .families import FamiliesProposer
from .laws import LawsProposer
from .model import ModelProposer, SearchProposer, propose_skeletons
from .powers import PowersProposer
from .reductions import ReductionsProposer
from .separable import SeparableProposer
from .sums import SumsProposer

__all__ = ["REGISTRY", "PROPOSER_NAMES", "chosen", "propose_skeletons"]

REGISTRY = (ModelProposer(), PowersProposer(), FamiliesProposer(), SearchProposer(), ReductionsProposer(),
            SeparableProposer(), BaselinesProposer(), SumsProposer(), LawsProposer())

PROPOSER_NAMES = tuple(p.name for p in REGISTRY)


def chosen(names) -> tuple:
    """The registry's proposers named in ``names`` (all when None), in the registry's order; an
    unknown name is an error that lists the known ones."""
    if names is None:
        return REGISTRY
    unknown = [n for n in names if n not in PROPOSER_NAMES]
    if unknown:
        raise SuperposError(f"unknown proposer(s) {', '.join(map(repr, unknown))}; choose from "
                            f"{', '.join(PROPOSER_NAMES)}")
    return tuple(p for p in REGISTRY if p.name in set(names))
