"""Quality measures of a structure predictor on a corpus with known trees."""
from __future__ import annotations

import numpy as np

from ..core.symbolic import canonicalize
from ..core.tree import hamming_loss
from ..exceptions import NotRepresentable, SuperposError
from .decode import decode_mbr

__all__ = ["structure_metrics", "SIZE_BUCKETS"]

SIZE_BUCKETS = ((1, 4), (5, 7), (8, 12))


def _summary(rows) -> dict:
    if not rows:
        return {"n": 0}
    r = np.array(rows, dtype=np.float64)
    return {"n": len(rows), "top1": float(r[:, 0].mean()), "topk": float(r[:, 1].mean()),
            "hamming": float(r[:, 2].mean()), "size_error": float(r[:, 3].mean()),
            "pred_size": float(r[:, 4].mean()), "true_size": float(r[:, 5].mean())}


DECISIONS = ("ml", "mbr", "fit")


def structure_metrics(predictor, corpus, k: int = 10, buckets=SIZE_BUCKETS, progress=None,
                      decision: str = "ml", fit_options: dict | None = None, n_jobs: int = 1) -> dict:
    """Skeleton exact match at top-1 and among the k best, the seed's edge Hamming loss
    Delta and the signed size error (predicted - true nodes) of the top-1 tree; overall
    ("all") and per true-size bucket ("1-4", ...). The k best are always the most likely
    trees; the top-1 tree is, by ``decision``:

    - ``"ml"``: the most likely tree (theta and the DP alone);
    - ``"mbr"``: the tree of least expected Hamming loss under the model
      (:func:`superpos.structure.decode.decode_mbr`);
    - ``"fit"``: the skeleton :func:`superpos.symreg.pipeline.find_formula` picks after fitting the
      constants of the likely trees to the data (what ``superpos predict`` returns),
      canonicalised with its fitted constants; ``fit_options`` are its settings
      (:class:`~superpos.symreg.settings.FormulaSettings`, default ``random_state=0``).

    Blocks of data sets are decoded by ``n_jobs`` joblib workers (results do not depend on
    it); ``progress(done, total)`` is called after each block."""
    from joblib import Parallel, delayed

    if decision not in DECISIONS:
        raise SuperposError(f"decision must be one of {', '.join(DECISIONS)}; got {decision!r}")
    if decision == "fit":
        fit_options = _fit_options(fit_options)
    datasets, preds = corpus.datasets, []
    phi = predictor.features_.transform(datasets)  # in parallel when the feature map has n_jobs > 1
    block = 200 if decision == "ml" else 20
    starts = range(0, len(datasets), block)
    tasks = (delayed(_decide_block)(predictor, phi[a:a + block], datasets[a:a + block], k, decision, fit_options)
             for a in starts)
    for part in Parallel(n_jobs=n_jobs, return_as="generator")(tasks):
        preds.extend(part)
        if progress is not None:
            progress(len(preds), len(datasets))
    ar = predictor.basis_.arities
    rows = []
    for (best, ranked), true in zip(preds, corpus.trees):
        rows.append((np.array_equal(best, true), any(np.array_equal(t, true) for _, t in ranked),
                     hamming_loss(best, true, ar), best.size - true.size, best.size, true.size))
    out = {"all": _summary(rows)}
    for lo, hi in buckets:
        out[f"{lo}-{hi}"] = _summary([r for r in rows if lo <= r[5] <= hi])
    return out


def _decide_block(predictor, phi, datasets, k, decision, fit_options) -> list:
    """[(top-1 tree, the k most likely [(score, tree)])] for a block of data sets."""
    L = predictor.log_theta_from_features(phi)
    out = []
    for b in range(L.shape[0]):
        ranked = predictor.decode(L[b], k)
        best = ranked[0][1]
        if decision == "mbr":
            best = decode_mbr(L[b], predictor.basis_.arities, predictor.max_depth_)[1]
        elif decision == "fit":
            best = _fitted_skeleton(predictor, *datasets[b], fit_options)
        out.append((best, ranked))
    return out


def _fit_options(options: dict | None):
    """find_formula's settings for decision="fit", checked once before any work (a bad
    setting is an error, not a corpus of failed predictions); ``random_state`` defaults to 0."""
    from ..symreg.settings import FormulaSettings

    return FormulaSettings.from_options(**{"random_state": 0, **(options or {})})


def _fitted_skeleton(predictor, X, y, settings) -> np.ndarray:
    """The canonical tree of the formula find_formula returns for (X, y), with its fitted
    constants (their signs and values shape the canonical tree, as in the corpus); a data
    set it cannot solve, or whose formula needs a function outside the model's basis, counts
    as a one-leaf tree (c)."""
    from ..symreg.pipeline import find_formula

    basis = predictor.basis_
    leaf = np.array([basis.constant if basis.constant >= 0 else int(basis.leaves[0])], dtype=np.int64)
    try:
        f = find_formula(X, y, predictor, settings)
    except SuperposError:
        return leaf
    if f.basis_names != basis.to_list():  # a law with a function the model has not (tanh): no label's tree
        return leaf
    try:
        return canonicalize(f.tree, basis, [float(c) for c in f.constants])[0]
    except (NotRepresentable, TypeError, ValueError, ZeroDivisionError, RecursionError):
        return f.tree  # sympy's own limits on exotic expressions, as in corpus generation
