"""Baselines for data wider than the model (source ``baselines``): the affine formula over
every input, each input alone, and power laws over all inputs
(:func:`~superpos.symreg.inputs.power_law_trees`). Narrower data get the affine baselines
among the model's decoded skeletons (:func:`~superpos.symreg.proposers.model.propose_skeletons`)."""
from __future__ import annotations

from ..candidates import Candidate
from ..engine import Search
from ..inputs import power_law_trees
from ..laws import baseline_trees

__all__ = ["BaselinesProposer"]


class BaselinesProposer:
    name = "baselines"

    def propose(self, search: Search, pool: list[Candidate]) -> list[Candidate]:
        trees = baseline_trees(search.basis, search.n_inputs) + power_law_trees(search.X, search.y, search.basis)
        return search.fit(trees, search.basis, self.name, scores=search.floor(pool), first_rank=len(pool))
