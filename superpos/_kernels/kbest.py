"""The exact k best admissible trees (:func:`tree_kbest`): per DP state the K best
derivations, merged with heaps on plain arrays. Same score tensors as :mod:`.tree`; the
plain-Python twin is ``tests/twins.py``'s, and the tests compare both with enumeration."""
from __future__ import annotations

import numpy as np
from numba import njit

from .tree import NEG_INF

__all__ = ["tree_kbest"]


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
