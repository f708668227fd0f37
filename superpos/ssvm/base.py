"""The structured model interface and its exhaustive self-check.

A model owns the joint feature map Psi(x, y), the inference oracle
argmax_y <w, Psi(x, y)>, the loss Delta(y, y_hat) and the loss-augmented oracle
argmax_y Delta(y_true, y) + <w, Psi(x, y)>. Learners call nothing else. The batch
methods have default loops; models override them with vectorised code.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Iterable, Sequence

import numpy as np

from ..exceptions import SuperposError

__all__ = ["StructuredModel", "check_structured_model", "take"]


def take(X: Sequence, idx) -> Sequence:
    """X[idx] for an array, [X[i] for i in idx] for any other sequence."""
    if isinstance(X, np.ndarray):
        return X[idx]
    return [X[i] for i in idx]


class StructuredModel(ABC):
    """Psi, inference, loss and loss-augmented inference of a structured output space.

    ``initialize(X, Y)`` fixes the sizes from the training data and returns the model;
    afterwards ``size_joint_feature`` is the length of Psi (and of w).
    """

    size_joint_feature: int = 0

    @abstractmethod
    def initialize(self, X: Sequence, Y: Sequence) -> "StructuredModel":
        """Set the sizes from the data (and validate it); returns self."""

    @abstractmethod
    def joint_feature(self, x: Any, y: Any) -> np.ndarray:
        """Psi(x, y), a float64 vector of length ``size_joint_feature``."""

    @abstractmethod
    def inference(self, x: Any, w: np.ndarray) -> Any:
        """argmax_y <w, Psi(x, y)>."""

    @abstractmethod
    def loss(self, y: Any, y_hat: Any) -> float:
        """Delta(y, y_hat) >= 0 with Delta(y, y) = 0."""

    @abstractmethod
    def loss_augmented_inference(self, x: Any, y: Any, w: np.ndarray) -> Any:
        """argmax_y' Delta(y, y') + <w, Psi(x, y')>."""

    # --- batch oracles: loops by default, vectorised by models that can -------------------
    def batch_joint_feature(self, X: Sequence, Y: Sequence) -> np.ndarray:
        """Rows Psi(x_n, y_n), shape (n, size_joint_feature)."""
        return np.array([self.joint_feature(x, y) for x, y in zip(X, Y)]).reshape(len(X), -1)

    def sum_joint_feature(self, X: Sequence, Y: Sequence) -> np.ndarray:
        """sum_n Psi(x_n, y_n)."""
        out = np.zeros(self.size_joint_feature)
        for x, y in zip(X, Y):
            out += self.joint_feature(x, y)
        return out

    def batch_inference(self, X: Sequence, w: np.ndarray) -> list:
        return [self.inference(x, w) for x in X]

    def batch_loss(self, Y: Sequence, Y_hat: Sequence) -> np.ndarray:
        return np.array([self.loss(y, yh) for y, yh in zip(Y, Y_hat)], dtype=np.float64)

    def batch_loss_augmented_inference(self, X: Sequence, Y: Sequence, w: np.ndarray) -> list:
        return [self.loss_augmented_inference(x, y, w) for x, y in zip(X, Y)]

    def output_table(self, X: Sequence, Y: Sequence):
        """Optional, for small output sets: every output's joint feature and loss per sample.

        Returns (Psi, offsets, true_rows, losses) or None (the default: learners then call
        the oracles). Psi is a scipy.sparse CSR matrix with one row Psi(x_n, y) per output y
        of sample n (rows offsets[n]:offsets[n + 1]), true_rows[n] the row of y_n and
        losses[r] = Delta(y_n, y_r). Compiled learner loops use it in place of the oracles.
        """
        return None

    # --- used only by check_structured_model -------------------------------------------
    def enumerate_outputs(self, x: Any) -> Iterable:
        """Every output y for input x (small instances only); for the self-check."""
        raise NotImplementedError(f"{type(self).__name__} cannot enumerate its outputs")


def check_structured_model(model: StructuredModel, X: Sequence, Y: Sequence, n_weights: int = 3,
                           random_state=None, atol: float = 1e-9) -> None:
    """Verify a model on tiny instances; raises AssertionError.

    For random w (and w = 0), when the model's inference is exact (``exact_inference_`` absent or
    True): inference and loss-augmented inference reach the maximum over
    ``enumerate_outputs(x)`` of <w, Psi> and Delta + <w, Psi>; loss(y, y) = 0 and Delta >= 0.
    With approximate inference the weaker check: the returned labelling's score by the model's
    own potentials (when it has ``potentials``) equals <w, Psi>, and loss-augmented inference
    scores at least the truth's <w, Psi(x, y)>. In both cases the batch oracles agree with the
    single ones.
    """
    if not isinstance(model, StructuredModel):
        raise SuperposError("a structured model must subclass superpos.ssvm.StructuredModel")
    rng = np.random.default_rng(random_state)
    model.initialize(X, Y)
    exact = bool(getattr(model, "exact_inference_", True))
    d = model.size_joint_feature
    for x, y in zip(X, Y):
        assert model.joint_feature(x, y).shape == (d,), "joint_feature has the wrong length"
        assert model.loss(y, y) == 0, "loss(y, y) must be 0"
    weights = [np.zeros(d)] + [rng.normal(size=d) for _ in range(n_weights)]
    weights += [np.round(rng.normal(size=d)) for _ in range(n_weights)]  # many ties
    for w in weights:
        for x, y in zip(X, Y):
            if not exact:
                _check_approximate(model, x, y, w)
                continue
            outs = list(model.enumerate_outputs(x))
            scores = [float(w @ model.joint_feature(x, o)) for o in outs]
            aug = [model.loss(y, o) + s for o, s in zip(outs, scores)]
            assert min(model.loss(y, o) for o in outs) >= 0, "negative loss"
            y_inf = model.inference(x, w)
            s_inf = float(w @ model.joint_feature(x, y_inf))
            assert abs(s_inf - max(scores)) <= atol * (1 + abs(s_inf)), \
                f"inference score {s_inf} is not the maximum {max(scores)}"
            y_aug = model.loss_augmented_inference(x, y, w)
            v_aug = model.loss(y, y_aug) + float(w @ model.joint_feature(x, y_aug))
            assert abs(v_aug - max(aug)) <= atol * (1 + abs(v_aug)), \
                f"loss-augmented value {v_aug} is not the maximum {max(aug)}"
        # batch oracles against single calls (values, since ties may pick other outputs)
        Yi = model.batch_inference(X, w)
        Ya = model.batch_loss_augmented_inference(X, Y, w)
        for k, (x, y) in enumerate(zip(X, Y)):
            s1 = w @ model.joint_feature(x, Yi[k])
            s2 = w @ model.joint_feature(x, model.inference(x, w))
            assert abs(s1 - s2) <= atol * (1 + abs(s1)), "batch_inference disagrees with inference"
            a1 = model.loss(y, Ya[k]) + w @ model.joint_feature(x, Ya[k])
            ya = model.loss_augmented_inference(x, y, w)
            a2 = model.loss(y, ya) + w @ model.joint_feature(x, ya)
            assert abs(a1 - a2) <= atol * (1 + abs(a1)), "batch_loss_augmented_inference disagrees"
        Yh = model.batch_inference(X, w)
        J = model.batch_joint_feature(X, Yh)
        ref = np.array([model.joint_feature(x, yh) for x, yh in zip(X, Yh)])
        assert np.allclose(J, ref), "batch_joint_feature disagrees with joint_feature"
        assert np.allclose(model.sum_joint_feature(X, Yh), ref.sum(0)), "sum_joint_feature disagrees"
        assert np.allclose(model.batch_loss(Y, Yh), [model.loss(y, yh) for y, yh in zip(Y, Yh)]), \
            "batch_loss disagrees with loss"
    table = model.output_table(X, Y)
    if table is not None:
        Psi, offsets, true_rows, losses = table
        Psi = Psi.toarray()
        for k, (x, y) in enumerate(zip(X, Y)):
            outs = list(model.enumerate_outputs(x))
            rows = Psi[offsets[k]:offsets[k + 1]]
            assert rows.shape[0] == len(outs), "output_table has the wrong number of outputs"
            assert np.allclose(rows, [model.joint_feature(x, o) for o in outs]), "output_table rows disagree"
            assert np.allclose(losses[offsets[k]:offsets[k + 1]], [model.loss(y, o) for o in outs])
            assert np.allclose(Psi[true_rows[k]], model.joint_feature(x, y)), "output_table true row is wrong"


def _check_approximate(model, x, y, w) -> None:
    """The weak check of approximate inference on one sample (see check_structured_model)."""
    from .inference import energy

    y_inf = model.inference(x, w)
    s_inf = float(w @ model.joint_feature(x, y_inf))
    if hasattr(model, "potentials"):
        unary, pairwise, edges = model.potentials(x, w)
        e = energy(unary, pairwise, edges, y_inf)
        assert abs(e - s_inf) <= 1e-7 * (1 + abs(e)), f"the labelling's energy {e} is not <w, Psi> = {s_inf}"
    y_aug = model.loss_augmented_inference(x, y, w)
    v_aug = model.loss(y, y_aug) + float(w @ model.joint_feature(x, y_aug))
    v_true = float(w @ model.joint_feature(x, y))
    assert v_aug >= v_true - 1e-7 * (1 + abs(v_true)), \
        f"loss-augmented value {v_aug} is below the truth's score {v_true}"
