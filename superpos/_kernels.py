"""Every numba kernel of superpos, on plain arrays.

Score tensors have the shape (Dd, G, H, A, H): S[d - 1, g, i, p, j] is the score of a
child of colour j at depth d, argument position p of a parent of colour i whose own
parent has colour g. Any of the axes Dd, G and A may have length 1, meaning the score
does not depend on it (broadcast). Colour 0 is the root h0 and is never a child; the
grandparent of depth-1 and depth-2 nodes is colour 0.

Reference twins in plain Python live in ``superpos/_reference.py``; tests compare
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
def _top_k(vals, K):
    order = np.argsort(-vals, kind="mergesort")
    m = 0
    for r in range(min(K, vals.size)):
        if vals[order[r]] == NEG_INF:
            break
        m += 1
    return order[:m]


@njit(cache=True)
def tree_kbest(S, arities, max_depth, K):
    """The K best admissible trees (exact, in decreasing score) of depth <= max_depth.

    Each state (d, g, i) keeps its K best derivations. Per argument position the K best
    (child colour, child rank) pairs are selected, then positions are combined pairwise
    keeping the K best sums. Returns (values (m,), flat trees, offsets (m + 1,)), m <= K.
    """
    Dd, G, H, A, _ = S.shape
    maxa = max(1, arities.max())
    Gs = H if G > 1 else 1
    V = np.full((max_depth + 1, Gs, H, K), NEG_INF)
    PC = np.full((max_depth + 1, Gs, H, maxa, K), -1, np.int64)  # child colour
    PR = np.full((max_depth + 1, Gs, H, maxa, K), -1, np.int64)  # child rank
    BP = np.full((max_depth + 1, Gs, H, maxa, K), -1, np.int64)  # rank in combination up to p-1
    BQ = np.full((max_depth + 1, Gs, H, maxa, K), -1, np.int64)  # rank in position p's list
    NS = np.zeros((max_depth + 1, Gs, H, K), np.int64)
    cand = np.empty(H * K)
    ck = np.empty(H * K, np.int64)
    cr = np.empty(H * K, np.int64)
    pairs = np.empty(K * K)
    pv = np.empty(K)
    comb = np.empty(K)
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
                    V[d, gs, i, 0] = 0.0
                    NS[d, gs, i, 0] = 1
                    continue
                if d == max_depth:
                    continue
                cs = i if Gs > 1 else 0
                sg = gs if G > 1 else 0
                ncomb = 0
                for p in range(a):
                    sp = min(p, A - 1)
                    m = 0
                    for k in range(1, H):
                        for r in range(K):
                            v = V[d + 1, cs, k, r]
                            if v == NEG_INF:
                                break
                            cand[m] = S[sd, sg, i, sp, k] + v
                            ck[m] = k
                            cr[m] = r
                            m += 1
                    order = _top_k(cand[:m], K)
                    npos = order.size
                    for r in range(npos):
                        pv[r] = cand[order[r]]
                        PC[d, gs, i, p, r] = ck[order[r]]
                        PR[d, gs, i, p, r] = cr[order[r]]
                    if p == 0:
                        for r in range(npos):
                            comb[r] = pv[r]
                            BQ[d, gs, i, 0, r] = r
                        ncomb = npos
                    else:
                        m = 0
                        for r1 in range(ncomb):
                            for r2 in range(npos):
                                pairs[m] = comb[r1] + pv[r2]
                                m += 1
                        order = _top_k(pairs[:m], K)
                        for r in range(order.size):
                            comb[r] = pairs[order[r]]
                            BP[d, gs, i, p, r] = order[r] // npos
                            BQ[d, gs, i, p, r] = order[r] % npos
                        ncomb = order.size
                    if ncomb == 0:
                        break
                for r in range(ncomb):
                    V[d, gs, i, r] = comb[r]
                    # size of derivation r
                    n = 1
                    rr = r
                    for p in range(a - 1, -1, -1):
                        q = BQ[d, gs, i, p, rr]
                        n += NS[d + 1, cs, PC[d, gs, i, p, q], PR[d, gs, i, p, q]]
                        if p > 0:
                            rr = BP[d, gs, i, p, rr]
                    NS[d, gs, i, r] = n
    m = 0
    total = 0
    for r in range(K):
        if V[0, 0, 0, r] == NEG_INF:
            break
        m += 1
        total += NS[0, 0, 0, r] - 1
    values = V[0, 0, 0, :m].copy()
    flat = np.empty(total, np.int64)
    offsets = np.zeros(m + 1, np.int64)
    cap = total + 1
    st_d = np.empty(cap, np.int64)
    st_s = np.empty(cap, np.int64)
    st_c = np.empty(cap, np.int64)
    st_r = np.empty(cap, np.int64)
    kids_c = np.empty(maxa, np.int64)
    kids_r = np.empty(maxa, np.int64)
    pos = 0
    for r0 in range(m):
        q = BQ[0, 0, 0, 0, r0]
        top = 0
        st_d[0] = 1
        st_s[0] = 0
        st_c[0] = PC[0, 0, 0, 0, q]
        st_r[0] = PR[0, 0, 0, 0, q]
        while top >= 0:
            d = st_d[top]
            s = st_s[top]
            c = st_c[top]
            r = st_r[top]
            top -= 1
            flat[pos] = c
            pos += 1
            a = arities[c]
            rr = r
            for p in range(a - 1, -1, -1):
                q = BQ[d, s, c, p, rr]
                kids_c[p] = PC[d, s, c, p, q]
                kids_r[p] = PR[d, s, c, p, q]
                if p > 0:
                    rr = BP[d, s, c, p, rr]
            cs = c if Gs > 1 else 0
            for p in range(a - 1, -1, -1):
                top += 1
                st_d[top] = d + 1
                st_s[top] = cs
                st_c[top] = kids_c[p]
                st_r[top] = kids_r[p]
        offsets[r0 + 1] = pos
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
