"""Quality measures of a structure predictor on a corpus with known trees."""
from __future__ import annotations

import numpy as np

from .decode import decode_mbr
from .exceptions import SuperposError
from .tree import hamming_loss

__all__ = ["structure_metrics", "SIZE_BUCKETS"]

SIZE_BUCKETS = ((1, 4), (5, 7), (8, 12))


def _summary(rows) -> dict:
    if not rows:
        return {"n": 0}
    r = np.array(rows, dtype=np.float64)
    return {"n": len(rows), "top1": float(r[:, 0].mean()), "topk": float(r[:, 1].mean()),
            "hamming": float(r[:, 2].mean()), "size_error": float(r[:, 3].mean()),
            "pred_size": float(r[:, 4].mean()), "true_size": float(r[:, 5].mean())}


def structure_metrics(predictor, corpus, k: int = 10, buckets=SIZE_BUCKETS, progress=None,
                      decision: str = "ml") -> dict:
    """Skeleton exact match at top-1 and among the k best, the seed's edge Hamming loss
    Delta and the signed size error (predicted - true nodes) of the top-1 tree; overall
    ("all") and per true-size bucket ("1-4", ...). The top-1 tree is the most likely one
    (``decision="ml"``) or the one with the least expected Hamming loss (``"mbr"``,
    :func:`superpos.decode.decode_mbr`); the k best are always the most likely.
    ``progress(done, total)`` is called after each block of data sets."""
    if decision not in ("ml", "mbr"):
        raise SuperposError(f"decision must be 'ml' or 'mbr', got {decision!r}")
    datasets, preds = corpus.datasets, []
    phi = predictor.features_.transform(datasets)  # in parallel when the feature map has n_jobs > 1
    for start in range(0, len(datasets), 200):
        L = predictor._log_theta_phi(phi[start:start + 200])
        for b in range(L.shape[0]):
            ranked = predictor.decode(L[b], k)
            best = ranked[0][1]
            if decision == "mbr":
                best = decode_mbr(L[b], predictor.basis_.arities, predictor.max_depth_)[1]
            preds.append((best, ranked))
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
