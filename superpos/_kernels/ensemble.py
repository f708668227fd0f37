"""Gradient-boosted ensemble stored as flat node arrays (an exported edge classifier)."""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def gbt_raw_scores(X, feature, threshold, missing_left, left, right, is_leaf, value, tree_offsets,
                   n_classes, baseline):
    """Raw scores (n, K) of a gradient-boosted ensemble stored as flat node arrays.

    Tree t (nodes tree_offsets[t]:tree_offsets[t + 1], child indices local to the tree)
    adds its leaf value to class t % K; a sample goes left when x[f] <= threshold
    (or x[f] is NaN and missing_left)."""
    n = X.shape[0]
    K = baseline.size
    out = np.empty((n, K))
    n_trees = tree_offsets.size - 1
    for r in range(n):
        for k in range(K):
            out[r, k] = baseline[k]
        for t in range(n_trees):
            base = tree_offsets[t]
            node = 0
            while not is_leaf[base + node]:
                v = X[r, feature[base + node]]
                if np.isnan(v):
                    go_left = missing_left[base + node]
                else:
                    go_left = v <= threshold[base + node]
                node = left[base + node] if go_left else right[base + node]
            out[r, t % K] += value[base + node]
    return out
