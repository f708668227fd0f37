"""StructurePredictor: data set -> theta(x) -> best admissible tree -> sympy skeleton."""
from __future__ import annotations

import json
import warnings
from typing import TYPE_CHECKING

import numpy as np
import sympy

from ..core.basis import Basis
from ..core.dataset import check_dataset
from ..core.files import atomic_write_npz, one_line, read_npz
from ..core.params import ParamsMixin
from ..core.symbolic import to_sympy
from ..core.tree import edge_contexts
from ..exceptions import SuperposError
from .contexts import CONTEXTS, context_block, context_grid, tensor_shape, training_contexts
from .decode import decode_best, decode_kbest, decode_seed, score_tree
from .export import ExportedGBT, classifier_from_arrays, classifier_to_arrays, export_classifier
from .features import DatasetFeatures
from .schema import SchemaError, check_classes, check_model_header

if TYPE_CHECKING:
    from .corpus import Corpus

__all__ = ["StructurePredictor", "default_classifier"]

MODEL_FORMAT = 1


def default_classifier(random_state=None, n_rows: int | None = None):
    """The default edge classifier: a two-layer perceptron on standardised inputs (chosen by
    measurement over gradient boosting: as accurate, several times faster to train; see
    the README). ``n_rows``: training rows, to keep mini-batches within a small corpus."""
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    batch = 1024 if n_rows is None else max(1, min(1024, int(0.9 * n_rows)))  # 5 % go to early stopping
    return make_pipeline(StandardScaler(), MLPClassifier(
        hidden_layer_sizes=(256, 128), batch_size=batch, learning_rate_init=2e-3, max_iter=12,
        early_stopping=True, validation_fraction=0.05, n_iter_no_change=3, random_state=random_state))


def _as_training_set(corpus, trees):
    from .corpus import Corpus

    if isinstance(corpus, Corpus):
        if trees is not None:
            raise SuperposError("pass either a Corpus or (datasets, trees), not both")
        return corpus.basis, corpus.datasets, corpus.trees, corpus.max_depth
    if trees is None:
        raise SuperposError("fit needs a Corpus or (datasets, trees)")
    datasets = list(corpus)
    trees = [np.asarray(t, dtype=np.int64) for t in trees]
    if len(datasets) != len(trees):
        raise SuperposError(f"{len(datasets)} data sets but {len(trees)} trees")
    return None, datasets, trees, None


def checked_header(meta: dict) -> dict:
    """:func:`~superpos.structure.schema.check_model_header`, and the features it names checked
    by :class:`DatasetFeatures` itself (a :class:`SchemaError` either way)."""
    h = check_model_header(meta)
    try:
        DatasetFeatures(n_grid=h["n_grid"], max_variables=h["max_variables"])._check_params()
    except SuperposError as exc:
        raise SchemaError(f"features: {exc}") from None
    return h


class StructurePredictor(ParamsMixin):
    """Predict the formula tree behind a data set (seed 003's two stages).

    theta[d, g, i, p, j](x) = P(child colour j | context, phi(x)) comes from one
    scikit-learn classifier trained on one row per edge of the corpus trees; the
    prediction maximises sum over edges of (log theta + size_bonus) by the tree DP.

    Parameters
    ----------
    basis : Basis or None (taken from the corpus).
    context : "parent" (seed 003; decoded by the seed's iterative algorithm),
        "parent+position+depth" or "grandparent+parent+position+depth" (default, the most
        accurate in the README's measurements).
    max_depth : deepest tree the decoder builds (default: the corpus's).
    classifier : any scikit-learn classifier with predict_proba (default: a two-layer MLP,
        :func:`default_classifier`).
    features : the feature map phi, a transformer over lists of data sets.
    size_bonus : added to every edge's log-probability; > 0 favours larger trees, which
        the product of probabilities otherwise cuts short. "auto" holds out
        ``validation_fraction`` of the corpus and picks the bonus with the best exact match.
    floor : probability given to colours the classifier never saw in a context.
    validation_fraction : share of the corpus held out to choose an "auto" size bonus.
    """

    def __init__(self, basis: Basis | None = None, context: str = "grandparent+parent+position+depth",
                 max_depth: int | None = None, classifier=None, features=None, size_bonus="auto",
                 floor: float = 1e-4, validation_fraction: float = 0.05, random_state=None, n_jobs: int = 1):
        self.basis = basis
        self.context = context
        self.max_depth = max_depth
        self.classifier = classifier
        self.features = features
        self.size_bonus = size_bonus
        self.floor = floor
        self.validation_fraction = validation_fraction
        self.random_state = random_state
        self.n_jobs = n_jobs

    # ------------------------------------------------------------------ fitting
    def fit(self, corpus, trees=None, *, progress=None) -> "StructurePredictor":
        """Train on a :class:`Corpus`, or on a list of data sets [(X, y), ...] and their trees.

        ``progress(stage, done, total)`` is told of each stage (features, classifier, size
        bonus); ``total`` is None where the work has no count to report."""
        report = progress if progress is not None else (lambda stage, done, total: None)
        if self.context not in CONTEXTS:
            raise SuperposError(f"unknown context {self.context!r}; choose one of {', '.join(CONTEXTS)}")
        cbasis, datasets, trees, cdepth = _as_training_set(corpus, trees)
        basis = self.basis or cbasis
        if basis is None:
            raise SuperposError("give a basis: StructurePredictor(basis=Basis.default(...))")
        if cbasis is not None and self.basis is not None and cbasis != self.basis:
            raise SuperposError("the corpus was generated over a different basis than the predictor's")
        auto = isinstance(self.size_bonus, str)
        if auto and self.size_bonus != "auto":
            raise SuperposError(f"size_bonus must be a number or 'auto', got {self.size_bonus!r}")
        if not 0.0 < float(self.floor) < 1.0:
            raise SuperposError(f"floor must be a probability in (0, 1), got {self.floor!r}")
        if not 0.0 < float(self.validation_fraction) < 0.5:
            raise SuperposError(f"validation_fraction must be in (0, 0.5), got {self.validation_fraction!r}")
        if len(trees) < 5:
            raise SuperposError(f"fit needs at least 5 formulas, got {len(trees)}")
        rows = [edge_contexts(t, basis.arities) for t in trees]
        max_depth = int(self.max_depth or cdepth or max(int(r[:, 0].max()) for r in rows))
        from sklearn.base import clone
        from sklearn.exceptions import ConvergenceWarning

        features = clone(self.features) if self.features is not None else DatasetFeatures(n_jobs=self.n_jobs)
        if isinstance(features, DatasetFeatures):
            phi = features.fit(datasets).transform(datasets, progress=lambda d, n: report("features", d, n))
        else:
            phi = features.fit_transform(datasets)
        train = np.ones(len(trees), dtype=bool)
        if auto:
            rng = np.random.default_rng(self.random_state)
            n_val = int(np.clip(round(self.validation_fraction * len(trees)), max(1, min(len(trees) // 5, 20)), 2000))
            train[rng.choice(len(trees), n_val, replace=False)] = False
        X, labels = self._edge_rows(phi[train], [r for r, keep in zip(rows, train) if keep], basis, max_depth)
        clf = clone(self.classifier) if self.classifier is not None else default_classifier(self.random_state, len(labels))
        report(f"classifier ({len(labels)} edges)", 0, None)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)  # max_iter is a time budget here
            clf.fit(X.astype(np.float32), labels)
        self.basis_ = basis
        self.max_depth_ = max_depth
        self.features_ = features
        self.classifier_ = export_classifier(clf)[1] if self.classifier is None else clf
        self.n_features_phi_ = phi.shape[1]
        self.n_edges_ = len(labels)
        self.size_bonus_ = 0.0 if auto else float(self.size_bonus)
        if auto:
            val = np.flatnonzero(~train)
            self.size_bonus_ = self._choose_size_bonus(phi[val], [trees[k] for k in val], report)
        return self

    _BONUS_GRID = (0.0, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5)

    def _choose_size_bonus(self, phi: np.ndarray, trees, report) -> float:
        """The per-edge bonus with the highest exact match on held-out data (ties: smaller)."""
        L = self.log_theta_from_features(phi)
        best, best_rate = 0.0, -1.0
        for step, bonus in enumerate(self._BONUS_GRID):
            report("size bonus", step, len(self._BONUS_GRID))
            self.size_bonus_ = bonus
            rate = np.mean([np.array_equal(self.decode(L[b])[0][1], t) for b, t in enumerate(trees)])
            if rate > best_rate + 1e-12:
                best, best_rate = bonus, rate
        self.validation_exact_match_ = float(best_rate)
        return best

    def _edge_rows(self, phi, rows, basis, max_depth):
        counts = np.array([len(r) for r in rows])
        edges = np.concatenate(rows)
        keep = edges[:, 0] <= max_depth
        ctx = training_contexts(edges, self.context)
        X = np.hstack([np.repeat(phi, counts, axis=0), context_block(ctx, basis, self.context)])
        return X[keep], edges[keep, 4]

    # --------------------------------------------------------------- prediction
    def _check_fitted(self):
        if not hasattr(self, "classifier_"):
            raise SuperposError("this StructurePredictor is not fitted: call fit(corpus) or load a model")

    def log_theta(self, datasets) -> np.ndarray:
        """log theta for a list of data sets: shape (B, Dd, G, H, A, H)."""
        self._check_fitted()
        return self.log_theta_from_features(self.features_.transform(list(datasets)))

    def log_theta_from_features(self, phi: np.ndarray) -> np.ndarray:
        """log theta for data sets already mapped by ``features_``: phi (B, F) -> (B, Dd, G, H, A, H)."""
        basis, mode = self.basis_, self.context
        key = (mode, self.max_depth_, len(basis))
        if getattr(self, "_grid_cache", (None,))[0] != key:
            grid = context_grid(basis, self.max_depth_, mode)
            self._grid_cache = (key, grid, context_block(grid, basis, mode))
        _, grid, block = self._grid_cache
        B, C = phi.shape[0], len(grid)
        if hasattr(self.classifier_, "predict_proba_blocks"):
            proba = self.classifier_.predict_proba_blocks(phi, block)
        else:
            proba = self.classifier_.predict_proba(np.hstack([np.repeat(phi, C, axis=0), np.tile(block, (B, 1))]))
        H = len(basis)
        full = np.full((B * C, H), self.floor)
        full[:, np.asarray(self.classifier_.classes_, dtype=np.int64)] = np.maximum(proba, self.floor)
        full[:, 0] = 0.0
        full /= full.sum(axis=1, keepdims=True)
        shape = tensor_shape(basis, self.max_depth_, mode)
        out = np.full((B, *shape), np.log(1.0 / H))
        logp = np.log(np.where(full > 0, full, 1.0))
        logp[:, 0] = -np.inf
        d, g, i, p = grid[:, 0] - 1, grid[:, 1], grid[:, 2], grid[:, 3]
        out[:, d, g, i, p, :] = logp.reshape(B, C, H)
        out[..., 0] = -np.inf
        return out

    def log_theta_for(self, X, y) -> np.ndarray:
        """log theta for one data set (Dd, G, H, A, H), with the input variables the data does
        not have (x_j, j > X.shape[1]) at -inf, so no decoded tree uses them."""
        X, y = check_dataset(X, y)
        L = self.log_theta([(X, y)])[0]
        absent = [j for j, f in enumerate(self.basis_.functions) if f.kind == "variable" and f.index >= X.shape[1]]
        if absent:
            L[..., absent] = -np.inf
        return L

    def predict_proba(self, X, y) -> np.ndarray:
        """theta(x) for one data set, shape (Dd, G, H, A, H): the probability of each child
        colour j in each context (depth d - 1, grandparent g, parent i, position p)."""
        X, y = check_dataset(X, y)
        return np.exp(self.log_theta([(X, y)])[0])

    def decode(self, L: np.ndarray, k: int = 1, size_bonus: float | None = None) -> list[tuple[float, np.ndarray]]:
        """The k best trees under one log-theta tensor: [(log-likelihood + bonus * edges, tree)].

        ``size_bonus`` overrides the fitted per-edge bonus (e.g. to widen a candidate list)."""
        bonus = self.size_bonus_ if size_bonus is None else float(size_bonus)
        S = L + bonus if bonus else L
        ar = self.basis_.arities
        if k == 1 and self.context == "parent" and bonus <= 0:
            return [decode_seed(S[0, 0, :, 0, :], ar)]
        if k == 1:
            return [decode_best(S, ar, self.max_depth_)]
        return decode_kbest(S, ar, self.max_depth_, k)

    def predict_trees(self, datasets, k: int = 1) -> list[list[tuple[float, np.ndarray]]]:
        """For each data set, its k best trees with their scores."""
        L = self.log_theta(datasets)
        return [self.decode(L[b], k) for b in range(L.shape[0])]

    def predict_tree(self, X, y) -> np.ndarray:
        X, y = check_dataset(X, y)
        return self.predict_trees([(X, y)])[0][0][1]

    def predict(self, X, y) -> sympy.Expr:
        """The most likely formula skeleton, its constants as symbols c0, c1, ..."""
        return to_sympy(self.predict_tree(X, y), self.basis_)

    def score(self, corpus: Corpus, y=None) -> float:
        """Top-1 skeleton exact-match rate on a corpus."""
        pred = self.predict_trees(corpus.datasets)
        return float(np.mean([np.array_equal(p[0][1], t) for p, t in zip(pred, corpus.trees)]))

    def log_likelihood(self, X, y, tree) -> float:
        """log Q(x, y) = sum over the tree's edges of log theta."""
        X, y = check_dataset(X, y)
        return score_tree(self.log_theta([(X, y)])[0], self.basis_.arities, tree)

    # -------------------------------------------------------------- persistence
    def save(self, path) -> None:
        """Save as ``.npz`` of plain arrays with a JSON header (no pickle), atomically.
        Refuses a model that :meth:`load` would refuse (see :mod:`.schema` for the bounds)."""
        self._check_fitted()
        kind, clf = export_classifier(self.classifier_)
        f = self.features_
        if type(f) is not DatasetFeatures:
            raise SuperposError("only the built-in DatasetFeatures can be saved")
        meta = {"format": "superpos-model", "version": MODEL_FORMAT, "basis": self.basis_.to_list(),
                "context": self.context, "max_depth": int(self.max_depth_), "size_bonus": float(self.size_bonus_),
                "floor": float(self.floor), "classifier": kind,
                "features": {"n_grid": int(f.n_grid), "max_variables": int(f.max_variables)}}
        arrays = classifier_to_arrays(kind, clf)
        try:
            checked_header(meta)
            self._check_classifier(classifier_from_arrays(kind, arrays), self.n_features_phi_)
        except SchemaError as exc:
            raise SuperposError(f"this model cannot be saved in a file superpos reads back: {exc}") from None
        atomic_write_npz(path, meta=np.array(json.dumps(meta, allow_nan=False)), **arrays)

    def _check_classifier(self, clf, n_phi: int) -> None:
        """The classifier reads phi (``n_phi`` columns) and the context block, and predicts
        child colours of the basis."""
        check_classes(np.asarray(clf.classes_), len(self.basis_))
        n_in = n_phi + context_block(np.array([[1, 0, 0, 0]]), self.basis_, self.context).shape[1]
        have = int(clf.n_features_in_)  # an ensemble's: the highest column its splits read, + 1
        if have > n_in or (have != n_in and not isinstance(clf, ExportedGBT)):
            raise SchemaError(f"the classifier reads {have} inputs, but the features and the context "
                              f"give {n_in}")

    @classmethod
    def load(cls, path) -> "StructurePredictor":
        """Load a model written by :meth:`save`; executes no code from the file. Every field
        is checked (:mod:`.schema`): a damaged or crafted file raises one :class:`SuperposError`."""
        arrays, meta = read_npz(path, "superpos-model", MODEL_FORMAT, remedy="retrain or reinstall it")
        try:
            h = checked_header(meta)
            basis = h["basis"]
            feats = DatasetFeatures(n_grid=h["n_grid"], max_variables=h["max_variables"]).fit()
            self = cls(basis=basis, context=h["context"], max_depth=h["max_depth"],
                       size_bonus=h["size_bonus"], floor=h["floor"])
            self.basis_ = basis
            self.max_depth_ = h["max_depth"]
            self.size_bonus_ = h["size_bonus"]
            self.features_ = feats
            self.classifier_ = classifier_from_arrays(h["classifier"], arrays)
            self._check_classifier(self.classifier_, feats.n_features_out_)
        except SuperposError as exc:
            raise SuperposError(f"{path}: damaged model file ({one_line(exc)}); retrain or reinstall it") from None
        except (KeyError, TypeError, ValueError, IndexError, OverflowError, AttributeError) as exc:
            raise SuperposError(f"{path}: damaged model file ({type(exc).__name__}: {one_line(exc)}); "
                                "retrain or reinstall it") from None
        self.n_features_phi_ = feats.n_features_out_
        return self
