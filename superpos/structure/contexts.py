"""Edge contexts: what the edge classifier sees besides phi(x), and how it is encoded.

The edge model is a classifier from (phi(x), context) to the colour of the child.

A *context* is (depth d of the child, grandparent colour g, parent colour i, argument
position p); a context mode says which of them the classifier sees:

- ``"parent"``: i only, seed 003's w_ij = theta_ij(x);
- ``"parent+position+depth"``: (d, i, p);
- ``"grandparent+parent+position+depth"`` (the predictor's default): (d, g, i, p).

For a new data set, every admissible context goes through one batched
``predict_proba`` and fills log theta[d - 1, g, i, p, j] (see :mod:`superpos._kernels.tree`).
Classifiers saved as plain arrays are :mod:`.export`.
"""
from __future__ import annotations

import numpy as np

from ..core.basis import Basis
from ..exceptions import SuperposError

__all__ = ["CONTEXTS", "context_grid", "context_block", "training_contexts", "tensor_shape"]

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
    """Map edge rows (d, g, i, p, j) of :func:`superpos.core.tree.edge_contexts` onto ``mode``'s
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
