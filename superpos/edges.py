"""The edge model: a classifier from (phi(x), context) to the colour of the child.

A *context* is (depth d of the child, grandparent colour g, parent colour i, argument
position p); a context mode says which of them the classifier sees:

- ``"parent"``: i only, seed 003's w_ij = theta_ij(x);
- ``"parent+position+depth"`` (default): (d, i, p);
- ``"grandparent+parent+position+depth"``: (d, g, i, p).

For a new data set, every admissible context goes through one batched
``predict_proba`` and fills log theta[d - 1, g, i, p, j] (see :mod:`superpos._kernels`).
"""
from __future__ import annotations

import numpy as np

from .basis import Basis
from .exceptions import SuperposError

__all__ = ["CONTEXTS", "context_grid", "context_block", "training_contexts", "tensor_shape",
           "ExportedGBT", "export_classifier", "classifier_from_arrays"]

CONTEXTS = {
    # mode: (uses depth, uses position, uses grandparent)
    "parent": (False, False, False),
    "parent+position+depth": (True, True, False),
    "grandparent+parent+position+depth": (True, True, True),
}


def _mode(mode: str):
    try:
        return CONTEXTS[mode]
    except KeyError:
        raise SuperposError(f"unknown context {mode!r}; choose one of {', '.join(CONTEXTS)}") from None


def tensor_shape(basis: Basis, max_depth: int, mode: str) -> tuple[int, int, int, int, int]:
    """Shape (Dd, G, H, A, H) of the score tensor for ``mode``."""
    dep, pos, gp = _mode(mode)
    H = len(basis)
    return (max_depth if dep else 1, H if gp else 1, H, basis.max_arity if pos else 1, H)


def context_grid(basis: Basis, max_depth: int, mode: str) -> np.ndarray:
    """Every admissible context of ``mode`` as rows (d, g, i, p), tensor-indexed
    (d = 1 and g = 0 / p = 0 on axes the mode does not use)."""
    dep, pos, gp = _mode(mode)
    ar = basis.arities
    inner = [i for i in range(1, len(ar)) if ar[i] > 0]
    if not dep:
        return np.array([(1, 0, i, 0) for i in [0, *inner]], dtype=np.int64)
    rows = [(1, 0, 0, 0)]
    for d in range(2, max_depth + 1):
        parents = [0] if (not gp or d == 2) else inner
        for g in parents:
            for i in inner:
                for p in range(ar[i] if pos else 1):
                    rows.append((d, g, i, p))
    return np.array(rows, dtype=np.int64)


def training_contexts(edge_rows: np.ndarray, mode: str) -> np.ndarray:
    """Map edge rows (d, g, i, p, j) of :func:`superpos.tree.edge_contexts` onto ``mode``'s
    context rows (d, g, i, p)."""
    dep, pos, gp = _mode(mode)
    ctx = edge_rows[:, :4].copy()
    if not dep:
        ctx[:, 0] = 1
    if not gp:
        ctx[:, 1] = 0
    if not pos:
        ctx[:, 3] = 0
    return ctx


def context_block(ctx: np.ndarray, basis: Basis, mode: str) -> np.ndarray:
    """Encoded contexts: [one-hot(g) if used, one-hot(i), one-hot(p) if used, d if used]."""
    dep, pos, gp = _mode(mode)
    H = len(basis)
    eye = np.eye(H, dtype=np.float64)
    parts = []
    if gp:
        parts.append(eye[ctx[:, 1]])
    parts.append(eye[ctx[:, 2]])
    if pos:
        parts.append(np.eye(basis.max_arity, dtype=np.float64)[ctx[:, 3]])
    if dep:
        parts.append(ctx[:, :1].astype(np.float64))
    return np.hstack(parts)


class ExportedGBT:
    """A fitted ``HistGradientBoostingClassifier`` as plain arrays, with a numba
    ``predict_proba``. Round-trips through :meth:`to_arrays` / :meth:`from_arrays`."""

    def __init__(self, classes, baseline, feature, threshold, missing_left, left, right, is_leaf, value,
                 tree_offsets, n_classes):
        self.classes_ = np.asarray(classes, dtype=np.int64)
        self.baseline = np.asarray(baseline, dtype=np.float64).ravel()
        self.feature = np.asarray(feature, dtype=np.int64)
        self.threshold = np.asarray(threshold, dtype=np.float64)
        self.missing_left = np.asarray(missing_left, dtype=np.bool_)
        self.left = np.asarray(left, dtype=np.int64)
        self.right = np.asarray(right, dtype=np.int64)
        self.is_leaf = np.asarray(is_leaf, dtype=np.bool_)
        self.value = np.asarray(value, dtype=np.float64)
        self.tree_offsets = np.asarray(tree_offsets, dtype=np.int64)
        self.n_classes = int(n_classes)

    @classmethod
    def from_sklearn(cls, clf) -> "ExportedGBT":
        preds = clf._predictors
        n_classes = len(clf.classes_)
        parts, offsets = [], [0]
        for it in preds:
            for tp in it:
                nodes = tp.nodes
                if np.any(nodes["is_categorical"]):
                    raise SuperposError("categorical splits cannot be exported; use numeric features")
                parts.append(nodes)
                offsets.append(offsets[-1] + len(nodes))
        nodes = np.concatenate(parts)
        baseline = np.asarray(clf._baseline_prediction, dtype=np.float64).ravel()
        return cls(clf.classes_, baseline, nodes["feature_idx"], nodes["num_threshold"],
                   nodes["missing_go_to_left"], nodes["left"], nodes["right"], nodes["is_leaf"],
                   nodes["value"], offsets, n_classes)

    _FIELDS = ("classes_", "baseline", "feature", "threshold", "missing_left", "left", "right", "is_leaf",
               "value", "tree_offsets")

    def to_arrays(self, prefix: str) -> dict:
        out = {f"{prefix}{k}": getattr(self, k) for k in self._FIELDS}
        out[f"{prefix}n_classes"] = np.array(self.n_classes)
        return out

    @classmethod
    def from_arrays(cls, arrays: dict, prefix: str) -> "ExportedGBT":
        return cls(*(arrays[f"{prefix}{k}"] for k in cls._FIELDS), int(arrays[f"{prefix}n_classes"]))

    def predict_proba(self, X) -> np.ndarray:
        from ._kernels import gbt_raw_scores

        raw = gbt_raw_scores(np.ascontiguousarray(X, dtype=np.float64), self.feature, self.threshold,
                             self.missing_left, self.left, self.right, self.is_leaf, self.value,
                             self.tree_offsets, self.n_classes, self.baseline)
        if raw.shape[1] == 1:
            p = 1.0 / (1.0 + np.exp(-raw[:, 0]))
            return np.column_stack([1 - p, p])
        raw -= raw.max(axis=1, keepdims=True)
        np.exp(raw, out=raw)
        raw /= raw.sum(axis=1, keepdims=True)
        return raw


def export_classifier(clf):
    """A fitted classifier in a form that saves as plain arrays: (kind, object)."""
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression

    if isinstance(clf, ExportedGBT):
        return "gbt", clf
    if isinstance(clf, HistGradientBoostingClassifier):
        return "gbt", ExportedGBT.from_sklearn(clf)
    if isinstance(clf, LogisticRegression):
        return "logistic", clf
    raise SuperposError(f"saving a {type(clf).__name__} is not supported (no pickle): use "
                        "HistGradientBoostingClassifier or LogisticRegression")


def classifier_to_arrays(kind: str, clf) -> dict:
    if kind == "gbt":
        return clf.to_arrays("clf_")
    return {"clf_classes_": clf.classes_, "clf_coef_": clf.coef_, "clf_intercept_": clf.intercept_}


def classifier_from_arrays(kind: str, arrays: dict):
    if kind == "gbt":
        return ExportedGBT.from_arrays(arrays, "clf_")
    if kind == "logistic":
        from sklearn.linear_model import LogisticRegression

        clf = LogisticRegression()
        clf.classes_ = arrays["clf_classes_"]
        clf.coef_ = arrays["clf_coef_"]
        clf.intercept_ = arrays["clf_intercept_"]
        clf.n_features_in_ = clf.coef_.shape[1]
        return clf
    raise SuperposError(f"unknown classifier kind {kind!r} in the model file")
