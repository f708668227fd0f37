"""Fitted edge classifiers as plain arrays (no pickle): a gradient-boosted ensemble with a
numba ``predict_proba``, a multi-layer perceptron as numpy matrix products, and logistic
regression; :func:`export_classifier` picks the form, the ``*_arrays`` functions save
and restore it inside a model file."""
from __future__ import annotations

import numpy as np

from ..exceptions import SuperposError
from .schema import gbt_arrays, logistic_arrays, mlp_arrays

__all__ = ["ExportedGBT", "ExportedMLP", "export_classifier", "classifier_to_arrays", "classifier_from_arrays"]


def _probabilities(scores: np.ndarray) -> np.ndarray:
    """Class probabilities from raw scores (rows): the logistic of a single column (two
    classes), else a softmax; ``scores`` is overwritten."""
    if scores.shape[1] == 1:
        p = 1.0 / (1.0 + np.exp(-scores[:, 0]))
        return np.column_stack([1 - p, p])
    scores -= scores.max(axis=1, keepdims=True)
    np.exp(scores, out=scores)
    scores /= scores.sum(axis=1, keepdims=True)
    return scores


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
        inner = ~self.is_leaf
        self.n_features_in_ = int(self.feature[inner].max()) + 1 if inner.any() else 0  # at least

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
        """Rebuild from :meth:`to_arrays`' output; :class:`superpos.structure.schema.SchemaError`
        when the arrays do not form trees whose every walk ends at a leaf."""
        a = gbt_arrays(arrays, prefix)
        return cls(*(a[k] for k in cls._FIELDS), a["n_classes"])

    def predict_proba(self, X) -> np.ndarray:
        from .._kernels import gbt_raw_scores

        X = np.ascontiguousarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] < self.n_features_in_:  # the compiled walk does not check bounds
            raise SuperposError(f"the ensemble reads {self.n_features_in_} input columns, got X of shape {X.shape}")
        raw = gbt_raw_scores(X, self.feature, self.threshold,
                             self.missing_left, self.left, self.right, self.is_leaf, self.value,
                             self.tree_offsets, self.n_classes, self.baseline)
        return _probabilities(raw)


class ExportedMLP:
    """A fitted ``MLPClassifier`` (optionally behind a ``StandardScaler`` in a pipeline) as
    plain arrays; ``predict_proba`` is a few numpy matrix products."""

    def __init__(self, classes, mean, scale, weights, biases, activation="relu"):
        self.classes_ = np.asarray(classes, dtype=np.int64)
        self.mean = np.asarray(mean, dtype=np.float64)
        self.scale = np.asarray(scale, dtype=np.float64)
        self.weights = [np.asarray(w, dtype=np.float64) for w in weights]
        self.biases = [np.asarray(b, dtype=np.float64) for b in biases]
        if activation not in ("relu", "tanh", "logistic", "identity"):
            raise SuperposError(f"unsupported MLP activation {activation!r}")
        self.activation = activation

    @classmethod
    def from_sklearn(cls, clf) -> "ExportedMLP":
        from sklearn.pipeline import Pipeline

        mean = scale = None
        if isinstance(clf, Pipeline):
            steps = [s for _, s in clf.steps]
            if len(steps) != 2 or type(steps[0]).__name__ != "StandardScaler":
                raise SuperposError("only Pipeline(StandardScaler, MLPClassifier) can be exported")
            sc, clf = steps
            mean = sc.mean_ if sc.with_mean else np.zeros(sc.n_features_in_)
            scale = sc.scale_ if sc.with_std else np.ones(sc.n_features_in_)
        n_in = clf.coefs_[0].shape[0]
        mean = np.zeros(n_in) if mean is None else mean
        scale = np.ones(n_in) if scale is None else scale
        return cls(clf.classes_, mean, scale, clf.coefs_, clf.intercepts_, clf.activation)

    def to_arrays(self, prefix: str) -> dict:
        out = {f"{prefix}classes_": self.classes_, f"{prefix}mean": self.mean, f"{prefix}scale": self.scale,
               f"{prefix}activation": np.array(self.activation), f"{prefix}n_layers": np.array(len(self.weights))}
        for k, (w, b) in enumerate(zip(self.weights, self.biases)):
            out[f"{prefix}W{k}"] = w
            out[f"{prefix}b{k}"] = b
        return out

    @property
    def n_features_in_(self) -> int:
        return len(self.mean)

    @classmethod
    def from_arrays(cls, arrays: dict, prefix: str) -> "ExportedMLP":
        """Rebuild from :meth:`to_arrays`' output; :class:`superpos.structure.schema.SchemaError`
        when the layers' shapes do not chain or a value is not finite."""
        return cls(*mlp_arrays(arrays, prefix))

    def predict_proba(self, X) -> np.ndarray:
        h = (np.asarray(X, dtype=np.float64) - self.mean) / self.scale
        return self._from_first_layer(h @ self.weights[0] + self.biases[0])

    def predict_proba_blocks(self, A: np.ndarray, B: np.ndarray) -> np.ndarray:
        """predict_proba of every row [A[a], B[b]] (a-major, shape (len(A) * len(B), classes))
        without forming those rows: the first layer is linear, so it is computed once per
        part and summed (for A = phi of a few data sets and B = the hundreds of edge
        contexts, this skips most of the work)."""
        n = A.shape[1]
        w, mean, scale = self.weights[0], self.mean, self.scale
        za = ((np.asarray(A, dtype=np.float64) - mean[:n]) / scale[:n]) @ w[:n]
        zb = ((np.asarray(B, dtype=np.float64) - mean[n:]) / scale[n:]) @ w[n:] + self.biases[0]
        return self._from_first_layer((za[:, None, :] + zb[None, :, :]).reshape(-1, w.shape[1]))

    def _from_first_layer(self, h: np.ndarray) -> np.ndarray:
        """The rest of the forward pass, from the first layer's pre-activations."""
        for w, b in zip(self.weights[1:], self.biases[1:]):
            if self.activation == "relu":
                np.maximum(h, 0.0, out=h)
            elif self.activation == "tanh":
                np.tanh(h, out=h)
            elif self.activation == "logistic":
                h = 1.0 / (1.0 + np.exp(-h))
            h = h @ w + b
        return _probabilities(h)


def export_classifier(clf):
    """A fitted classifier in a form that saves as plain arrays: (kind, object)."""
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression

    if isinstance(clf, ExportedGBT):
        return "gbt", clf
    if isinstance(clf, HistGradientBoostingClassifier):
        return "gbt", ExportedGBT.from_sklearn(clf)
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import Pipeline

    if isinstance(clf, ExportedMLP):
        return "mlp", clf
    if isinstance(clf, MLPClassifier) or (isinstance(clf, Pipeline) and isinstance(clf.steps[-1][1], MLPClassifier)):
        return "mlp", ExportedMLP.from_sklearn(clf)
    if isinstance(clf, LogisticRegression):
        return "logistic", clf
    raise SuperposError(f"saving a {type(clf).__name__} is not supported (no pickle): use "
                        "MLPClassifier, HistGradientBoostingClassifier or LogisticRegression")


def classifier_to_arrays(kind: str, clf) -> dict:
    if kind in ("gbt", "mlp"):
        return clf.to_arrays("clf_")
    return {"clf_classes_": clf.classes_, "clf_coef_": clf.coef_, "clf_intercept_": clf.intercept_}


def classifier_from_arrays(kind: str, arrays: dict):
    if kind == "gbt":
        return ExportedGBT.from_arrays(arrays, "clf_")
    if kind == "mlp":
        return ExportedMLP.from_arrays(arrays, "clf_")
    if kind == "logistic":
        from sklearn.linear_model import LogisticRegression

        clf = LogisticRegression()
        clf.classes_, clf.coef_, clf.intercept_ = logistic_arrays(arrays, "clf_")
        clf.n_features_in_ = clf.coef_.shape[1]
        return clf
    raise SuperposError(f"unknown classifier kind {str(kind)[:40]!r} in the model file")
