"""Tree kernels: the depth-bounded DP, exact k-best, seed 003's iteration, tree scores.

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


@njit(cache=True, inline="always")
def _before(v1, a1, b1, v2, a2, b2):
    """Heap order: the larger key, then the smaller payloads (the order of heapq on (-v, a, b))."""
    return v1 > v2 or (v1 == v2 and (a1 < a2 or (a1 == a2 and b1 < b2)))


@njit(cache=True, inline="always")
def _heap_push(hv, ha, hb, size, v, a, b):
    """Push (v, a, b) on the max-heap of keys ``hv`` (payloads ``ha``, ``hb``) of ``size``
    entries; returns the new size. Plain arrays: a heap of tuples costs twice as much here."""
    k = size
    while k > 0:
        parent = (k - 1) >> 1
        if not _before(v, a, b, hv[parent], ha[parent], hb[parent]):
            break
        hv[k] = hv[parent]
        ha[k] = ha[parent]
        hb[k] = hb[parent]
        k = parent
    hv[k] = v
    ha[k] = a
    hb[k] = b
    return size + 1


@njit(cache=True, inline="always")
def _heap_pop(hv, ha, hb, size):
    """Remove the largest entry (read it at index 0 first); returns the new size."""
    size -= 1
    v, a, b = hv[size], ha[size], hb[size]
    k = 0
    while True:
        c = 2 * k + 1
        if c >= size:
            break
        if c + 1 < size and _before(hv[c + 1], ha[c + 1], hb[c + 1], hv[c], ha[c], hb[c]):
            c += 1
        if not _before(hv[c], ha[c], hb[c], v, a, b):
            break
        hv[k] = hv[c]
        ha[k] = ha[c]
        hb[k] = hb[c]
        k = c
    hv[k] = v
    ha[k] = a
    hb[k] = b
    return size


@njit(cache=True)
def _merge_children(s_row, v_next, n_next, K, out_val, out_k, out_r, hv, ha, hb):
    """The K best (s_row[k] + v_next[k, r]) over child colours k >= 1 and ranks r < n_next[k],
    each v_next[k] sorted decreasingly: a K-way merge with a heap, O(K log H). Returns the count.
    ``hv``, ``ha``, ``hb``: heap space of at least H + K entries."""
    size = 0
    for k in range(1, s_row.size):
        if s_row[k] != NEG_INF and n_next[k] > 0:
            size = _heap_push(hv, ha, hb, size, s_row[k] + v_next[k, 0], k, 0)
    m = 0
    while m < K and size > 0:
        v, k, r = hv[0], ha[0], hb[0]
        size = _heap_pop(hv, ha, hb, size)
        out_val[m] = v
        out_k[m] = k
        out_r[m] = r
        m += 1
        if r + 1 < n_next[k]:
            size = _heap_push(hv, ha, hb, size, s_row[k] + v_next[k, r + 1], k, r + 1)
    return m


@njit(cache=True)
def _combine(a, na, b, nb, K, out_val, out_i, out_j, hv, ha, hb):
    """The K best sums a[i] + b[j] of two decreasing lists, O(K log K): each pair (i, j) is
    reached from (i, j - 1), or from (i - 1, 0) when j = 0, so a heap pops them in order.
    ``hv``, ``ha``, ``hb``: heap space of at least 2 K + 1 entries."""
    if na == 0 or nb == 0:
        return 0
    size = _heap_push(hv, ha, hb, 0, a[0] + b[0], 0, 0)
    m = 0
    while m < K and size > 0:
        v, i, j = hv[0], ha[0], hb[0]
        size = _heap_pop(hv, ha, hb, size)
        out_val[m] = v
        out_i[m] = i
        out_j[m] = j
        m += 1
        if j + 1 < nb:
            size = _heap_push(hv, ha, hb, size, a[i] + b[j + 1], i, j + 1)
        if j == 0 and i + 1 < na:
            size = _heap_push(hv, ha, hb, size, a[i + 1] + b[0], i + 1, 0)
    return m


@njit(cache=True)
def tree_kbest(S, arities, max_depth, K):
    """The K best admissible trees (exact, in decreasing score) of depth <= max_depth.

    Each state (d, g, i) keeps its K best derivations. Per argument position the K best
    (child colour, child rank) pairs come from a heap merge of the children's sorted lists,
    then positions are combined pairwise by a heap over sums (O(K log K) per state and
    position). Returns (values (m,), flat trees, offsets (m + 1,)), m <= K.
    """
    Dd, G, H, A, _ = S.shape
    maxa = max(1, arities.max())
    Gs = H if G > 1 else 1
    V = np.empty((max_depth + 1, Gs, H, K))  # read only below the count NV of derivations written
    NV = np.zeros((max_depth + 1, Gs, H), np.int64)
    # back-pointers are read only below the count of derivations written: no initialisation
    PC = np.empty((max_depth + 1, Gs, H, maxa, K), np.int64)  # child colour
    PR = np.empty((max_depth + 1, Gs, H, maxa, K), np.int64)  # child rank
    BP = np.empty((max_depth + 1, Gs, H, maxa, K), np.int64)  # rank in combination up to p-1
    BQ = np.empty((max_depth + 1, Gs, H, maxa, K), np.int64)  # rank in position p's list
    NS = np.empty((max_depth + 1, Gs, H, K), np.int64)  # sizes, read below NV as V
    pv = np.empty(K)
    comb = np.empty(K)
    comb2 = np.empty(K)
    hcap = H + 2 * K + 2
    hv = np.empty(hcap)
    ha = np.empty(hcap, np.int64)
    hb = np.empty(hcap, np.int64)
    for d in range(max_depth, -1, -1):
        sd = min(d, Dd - 1)
        for gs in range(Gs):
            # a node's grandparent is h0 up to depth 2 and an inner colour below: other
            # (depth, grandparent) states are never read
            if Gs > 1 and ((d <= 1 and gs != 0) or (d >= 2 and (gs == 0 or arities[gs] == 0))):
                continue
            for i in range(H):
                if d == 0:
                    if i != 0 or gs != 0:
                        continue
                elif i == 0:
                    continue
                a = arities[i]
                if a == 0:
                    V[d, gs, i, 0] = 0.0
                    NV[d, gs, i] = 1
                    NS[d, gs, i, 0] = 1
                    continue
                if d == max_depth:
                    continue
                cs = i if Gs > 1 else 0
                sg = gs if G > 1 else 0
                ncomb = 0
                for p in range(a):
                    sp = min(p, A - 1)
                    npos = _merge_children(S[sd, sg, i, sp], V[d + 1, cs], NV[d + 1, cs], K, pv,
                                           PC[d, gs, i, p], PR[d, gs, i, p], hv, ha, hb)
                    if p == 0:
                        for r in range(npos):
                            comb[r] = pv[r]
                            BQ[d, gs, i, 0, r] = r
                        ncomb = npos
                    else:
                        ncomb = _combine(comb, ncomb, pv, npos, K, comb2, BP[d, gs, i, p], BQ[d, gs, i, p],
                                         hv, ha, hb)
                        comb[:ncomb] = comb2[:ncomb]
                    if ncomb == 0:
                        break
                NV[d, gs, i] = ncomb
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
    for r in range(NV[0, 0, 0]):
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

