"""The selection rule: which fitted candidate wins.

The validation error decides; errors within a tolerance of the best count as a tie, and a
tie goes to the simpler tree (nodes plus free constants), then the more likely one.
"""
from __future__ import annotations

import numpy as np

from .candidates import Candidate

__all__ = ["selection_order", "rank_candidates"]


def selection_order(cands: list[Candidate], rtol: float = 0.05, atol: float = 1e-10) -> list[int]:
    """Candidates best first. The validation error decides; errors within ``rtol`` (relative)
    or ``atol`` (absolute, normalised error) of the best count as a tie, and ties go to the
    simpler tree (fewer nodes plus free constants), then the more likely one. The rest
    follow by validation error."""
    if not cands:
        return []
    err = np.array([c.nmse_validation if np.isfinite(c.nmse_validation) else np.inf for c in cands])
    best = err.min()
    tied = err <= best * (1.0 + rtol) + atol if np.isfinite(best) else np.ones(len(cands), bool)
    key = [((0, c.complexity, -c.log_likelihood, c.rank) if tied[k] else (1, err[k], c.complexity, c.rank))
           for k, c in enumerate(cands)]
    return sorted(range(len(cands)), key=lambda k: key[k])


def rank_candidates(cands: list[Candidate], rtol: float) -> list[Candidate]:
    """The candidates best first under :func:`selection_order`."""
    return [cands[k] for k in selection_order(cands, rtol=rtol)]
