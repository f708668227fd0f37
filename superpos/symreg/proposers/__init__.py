"""The candidate sources of the engine (:mod:`superpos.symreg.engine`), one module each. A
proposer is a class with ``name`` and ``propose(search, pool) -> list[Candidate]`` (see
:class:`~superpos.symreg.engine.Proposer` and ``docs/proposers.md``); where, in which order and
under which gates it runs is one row of the search plan (:mod:`superpos.symreg.plan`)."""
from __future__ import annotations

from .affine import AffineProposer
from .baselines import BaselinesProposer
from .dimensions import DimensionsProposer
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

__all__ = ["AffineProposer", "BaselinesProposer", "DimensionsProposer", "FamiliesProposer", "LawsProposer", "ModelProposer",
           "OuterProposer", "PowersProposer", "RationalProposer", "ReductionsProposer", "ResidualProposer",
           "SearchProposer", "SeparableProposer", "SumsProposer", "TemplateProposer", "propose_skeletons"]
