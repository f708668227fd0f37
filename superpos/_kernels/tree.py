"""Tree kernels: the depth-bounded DP, seed 003's iteration, tree scores, edge rows (the exact
k-best lives in :mod:`.kbest`).

Score tensors have the shape (Dd, G, H, A, H): S[d - 1, g, i, p, j] is the score of a
child of colour j at depth d, argument position p of a parent of colour i whose own
parent has colour g. Any of the axes Dd, G and A may have length 1, meaning the score
does not depend on it (broadcast). Colour 0 is the root h0 and is never a child; the
grandparent of depth-1 and depth-2 nodes is colour 0.

Reference twins in plain Python live in ``tests/twins.py``; tests compare
them with these kernels and with brute-force enumeration.
"""
from __future__ import annotations

import numpy as np
from numba import njit

NEG_INF = -np.inf


@njit(cache=True)
def tree_dp(S, arities, max_depth):
    """Best admissible tree of depth <= max_depth under additive edge scores S.

    V[d, g, i] = sum_{p < a_i} max_j (S[d, g, i, p, j] + V[d + 1, i, j]), V = 0 at leaves
    and -inf for inner colours at depth max_depth. Returns (value, prefix tree without
    the root); the tree is empty when no admissible tree exists. Inputs are not modified.
    """
    Dd, G, H, A, _ = S.shape
    maxa = max(1, arities.max())
    Gs = H if G > 1 else 1
    V = np.full((max_depth + 1, Gs, H), NEG_INF)
    C = np.full((max_depth + 1, Gs, H, maxa), -1, np.int64)
    N = np.zeros((max_depth + 1, Gs, H), np.int64)
    for d in range(max_depth, -1, -1):
        sd = min(d, Dd - 1)
        for gs in range(Gs):
            for i in range(H):
                if d == 0:
                    if i != 0 or gs != 0:
                        continue
                elif i == 0:
                    continue
                a = arities[i]
                if a == 0:
                    V[d, gs, i] = 0.0
                    N[d, gs, i] = 1
                    continue
                if d == max_depth:
                    continue
                cs = i if Gs > 1 else 0
                sg = gs if G > 1 else 0
                total = 0.0
                n = 1
                for p in range(a):
                    sp = min(p, A - 1)
                    best = NEG_INF
                    arg = -1
                    for k in range(1, H):
                        v = S[sd, sg, i, sp, k] + V[d + 1, cs, k]
                        if v > best:
                            best = v
                            arg = k
                    if arg < 0:
                        total = NEG_INF
                        break
                    total += best
                    C[d, gs, i, p] = arg
                    n += N[d + 1, cs, arg]
                V[d, gs, i] = total
                N[d, gs, i] = n
    value = V[0, 0, 0]
    if value == NEG_INF:
        return value, np.empty(0, np.int64)
    size = N[0, 0, 0] - 1
    out = np.empty(size, np.int64)
    # stack of (depth, state, colour)
    st_d = np.empty(size + 1, np.int64)
    st_s = np.empty(size + 1, np.int64)
    st_c = np.empty(size + 1, np.int64)
    top = 0
    st_d[0] = 1
    st_s[0] = 0
    st_c[0] = C[0, 0, 0, 0]
    k = 0
    while top >= 0:
        d = st_d[top]
        s = st_s[top]
        c = st_c[top]
        top -= 1
        out[k] = c
        k += 1
        cs = c if Gs > 1 else 0
        for p in range(arities[c] - 1, -1, -1):
            top += 1
            st_d[top] = d + 1
            st_s[top] = cs
            st_c[top] = C[d, s, c, p]
    return value, out


@njit(cache=True)
def tree_dp_batch(S, arities, max_depth):
    """tree_dp over a batch S of shape (B, Dd, G, H, A, H): returns values (B,),
    concatenated trees and offsets (B + 1,)."""
    B = S.shape[0]
    values = np.empty(B)
    parts = []
    offsets = np.zeros(B + 1, np.int64)
    for b in range(B):
        v, t = tree_dp(S[b], arities, max_depth)
        values[b] = v
        parts.append(t)
        offsets[b + 1] = offsets[b] + t.size
    flat = np.empty(offsets[B], np.int64)
    for b in range(B):
        flat[offsets[b]:offsets[b + 1]] = parts[b]
    return values, flat, offsets


@njit(cache=True)
def seed_decode(L, arities, max_nodes):
    """Seed 003's iterative algorithm for parent-only scores L[i, j] <= 0 (log w_ij).

    V_i starts at 0 for leaves and -inf otherwise; each sweep sets
    V_i = a_i * max_j (L[i, j] + V_j) where that improves it; it stops after a sweep
    without change (at most |H| + 1 sweeps, O(|H|^3)). Every child of a colour-i node
    gets the same best subtree. Returns (value, tree); the tree is empty when no
    admissible tree exists or it would exceed max_nodes.
    """
    H = L.shape[0]
    V = np.full(H, NEG_INF)
    C = np.full(H, -1, np.int64)
    for i in range(1, H):
        if arities[i] == 0:
            V[i] = 0.0
    for sweep in range(H + 2):
        changed = False
        for i in range(H):
            a = arities[i]
            if a == 0:
                continue
            best = NEG_INF
            arg = -1
            for j in range(1, H):
                v = L[i, j] + V[j]
                if v > best:
                    best = v
                    arg = j
            if arg >= 0 and a * best > V[i] + 1e-12 * (1.0 + abs(best)):
                V[i] = a * best
                C[i] = arg
                changed = True
        if not changed:
            break
    if V[0] == NEG_INF:
        return V[0], np.empty(0, np.int64)
    N = np.zeros(H, np.int64)
    # sizes: best subtrees form a DAG over colours without cycles
    for sweep in range(H + 1):
        for i in range(H):
            if arities[i] == 0:
                N[i] = 1
            elif C[i] >= 0 and N[C[i]] > 0:
                N[i] = min(max_nodes + 2, 1 + arities[i] * N[C[i]])
    size = N[0] - 1
    if size <= 0 or size > max_nodes:
        return V[0], np.empty(0, np.int64)
    out = np.empty(size, np.int64)
    stack = np.empty(size + 1, np.int64)
    top = 0
    stack[0] = C[0]
    k = 0
    while top >= 0:
        c = stack[top]
        top -= 1
        out[k] = c
        k += 1
        for p in range(arities[c]):
            top += 1
            stack[top] = C[c]
    return V[0], out


@njit(cache=True)
def tree_scores(S, arities, contexts):
    """Sum of S over the edges given as rows (depth, grandparent, parent, position, child)."""
    Dd, G, H, A, _ = S.shape
    total = 0.0
    for r in range(contexts.shape[0]):
        d = min(contexts[r, 0] - 1, Dd - 1)
        g = contexts[r, 1] if G > 1 else 0
        p = min(contexts[r, 3], A - 1)
        total += S[d, g, contexts[r, 2], p, contexts[r, 4]]
    return total


@njit(cache=True)
def edge_rows_batch(flat, offsets, arities):
    """Rows (depth, grandparent, parent, position, child) of every edge of every tree
    (trees ``flat[offsets[t]:offsets[t + 1]]``, admissible), one row per node in prefix
    order; the twin of :func:`superpos.core.tree.edge_contexts` for many trees at once."""
    rows = np.empty((flat.size, 5), np.int64)
    cap = 1
    for t in range(offsets.size - 1):
        cap = max(cap, offsets[t + 1] - offsets[t] + 1)
    colour = np.empty(cap, np.int64)
    parent = np.empty(cap, np.int64)
    depth = np.empty(cap, np.int64)
    nextp = np.empty(cap, np.int64)
    for t in range(offsets.size - 1):
        top = 0
        colour[0] = 0
        parent[0] = 0
        depth[0] = 0
        nextp[0] = 0
        for k in range(offsets[t], offsets[t + 1]):
            while nextp[top] >= arities[colour[top]]:
                top -= 1
            c = flat[k]
            rows[k, 0] = depth[top] + 1
            rows[k, 1] = parent[top]
            rows[k, 2] = colour[top]
            rows[k, 3] = nextp[top]
            rows[k, 4] = c
            nextp[top] += 1
            top += 1
            colour[top] = c
            parent[top] = colour[top - 1]
            depth[top] = depth[top - 1] + 1
            nextp[top] = 0
    return rows
