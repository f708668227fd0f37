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

import heapq

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
def _merge_children(s_row, v_next, K, out_val, out_k, out_r):
    """The K best (s_row[k] + v_next[k, r]) over child colours k >= 1 and ranks r, each
    v_next[k] sorted decreasingly: a K-way merge with a heap, O(K log H). Returns the count."""
    heap = [(0.0, 0, 0)]
    heap.pop()
    for k in range(1, s_row.size):
        if s_row[k] != NEG_INF and v_next[k, 0] != NEG_INF:
            heapq.heappush(heap, (-(s_row[k] + v_next[k, 0]), k, 0))
    m = 0
    while m < K and len(heap) > 0:
        negv, k, r = heapq.heappop(heap)
        out_val[m] = -negv
        out_k[m] = k
        out_r[m] = r
        m += 1
        if r + 1 < v_next.shape[1] and v_next[k, r + 1] != NEG_INF:
            heapq.heappush(heap, (-(s_row[k] + v_next[k, r + 1]), k, r + 1))
    return m


@njit(cache=True)
def _combine(a, na, b, nb, K, out_val, out_i, out_j):
    """The K best sums a[i] + b[j] of two decreasing lists, O(K log K): each pair (i, j) is
    reached from (i, j - 1), or from (i - 1, 0) when j = 0, so a heap pops them in order."""
    if na == 0 or nb == 0:
        return 0
    heap = [(-(a[0] + b[0]), 0, 0)]
    m = 0
    while m < K and len(heap) > 0:
        negv, i, j = heapq.heappop(heap)
        out_val[m] = -negv
        out_i[m] = i
        out_j[m] = j
        m += 1
        if j + 1 < nb:
            heapq.heappush(heap, (-(a[i] + b[j + 1]), i, j + 1))
        if j == 0 and i + 1 < na:
            heapq.heappush(heap, (-(a[i + 1] + b[0]), i + 1, 0))
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
    V = np.full((max_depth + 1, Gs, H, K), NEG_INF)
    PC = np.full((max_depth + 1, Gs, H, maxa, K), -1, np.int64)  # child colour
    PR = np.full((max_depth + 1, Gs, H, maxa, K), -1, np.int64)  # child rank
    BP = np.full((max_depth + 1, Gs, H, maxa, K), -1, np.int64)  # rank in combination up to p-1
    BQ = np.full((max_depth + 1, Gs, H, maxa, K), -1, np.int64)  # rank in position p's list
    NS = np.zeros((max_depth + 1, Gs, H, K), np.int64)
    pv = np.empty(K)
    comb = np.empty(K)
    comb2 = np.empty(K)
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
                    npos = _merge_children(S[sd, sg, i, sp], V[d + 1, cs], K, pv,
                                           PC[d, gs, i, p], PR[d, gs, i, p])
                    if p == 0:
                        for r in range(npos):
                            comb[r] = pv[r]
                            BQ[d, gs, i, 0, r] = r
                        ncomb = npos
                    else:
                        ncomb = _combine(comb, ncomb, pv, npos, K, comb2, BP[d, gs, i, p], BQ[d, gs, i, p])
                        comb[:ncomb] = comb2[:ncomb]
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


# ---------------------------------------------------------------------------------------
# Structural SVM kernels (superpos.ssvm): chain Viterbi and the working-set dual QP.
# ---------------------------------------------------------------------------------------

@njit(cache=True)
def chain_viterbi(unary, pairwise):
    """Best label sequence of a chain: argmax_y sum_t unary[t, y_t] + sum_t pairwise[y_{t-1}, y_t].

    unary (T, K), pairwise (K, K) [previous, current], both float64, not modified.
    Returns (value, labels (T,) int64); ties go to the lowest label.
    """
    T, K = unary.shape
    labels = np.zeros(T, np.int64)
    if T == 0:
        return 0.0, labels
    M = unary[0].copy()
    new = np.empty(K)
    back = np.zeros((T, K), np.int64)
    for t in range(1, T):
        for s in range(K):
            best = -np.inf
            arg = 0
            for r in range(K):
                v = M[r] + pairwise[r, s]
                if v > best:
                    best = v
                    arg = r
            new[s] = best + unary[t, s]
            back[t, s] = arg
        for s in range(K):
            M[s] = new[s]
    best = -np.inf
    arg = 0
    for s in range(K):
        if M[s] > best:
            best = M[s]
            arg = s
    labels[T - 1] = arg
    for t in range(T - 1, 0, -1):
        labels[t - 1] = back[t, labels[t]]
    return best, labels


@njit(cache=True)
def chain_viterbi_batch(unary, offsets, pairwise):
    """chain_viterbi on many chains stored back to back: unary (N, K), chain b is rows
    offsets[b]:offsets[b + 1]. Returns (values (B,), labels (N,) int64)."""
    B = offsets.size - 1
    values = np.empty(B)
    labels = np.empty(unary.shape[0], np.int64)
    for b in range(B):
        v, lab = chain_viterbi(unary[offsets[b]:offsets[b + 1]], pairwise)
        values[b] = v
        labels[offsets[b]:offsets[b + 1]] = lab
    return values, labels


@njit(cache=True)
def simplex_qp(K, b, group, n_groups, C, alpha, tol, max_iter):
    """Maximise b . alpha - alpha' K alpha / 2 s.t. alpha >= 0 and, per group g,
    sum_{j: group[j] = g} alpha_j <= C (the dual of a cutting-plane working set).

    K positive semidefinite, read in its top-left (m, m) block (a larger buffer may be
    passed), b (m,), group (m,) int64 in [0, n_groups). ``alpha``
    (m,) is the feasible warm start and is overwritten with the solution. SMO: each step
    moves mass between the most violating pair of one group, where a group's unused
    budget C - sum alpha acts as a slack variable of gradient 0. Stops when every
    group's violation max_up grad - min_down grad is below ``tol``.
    Returns the number of steps.
    """
    m = b.size
    grad = b.copy()
    for j in range(m):
        for k in range(m):
            grad[j] -= K[j, k] * alpha[k]
    slack = np.full(n_groups, C)
    for j in range(m):
        slack[group[j]] -= alpha[j]
    up = np.full(n_groups, -1, np.int64)
    dn = np.full(n_groups, -1, np.int64)
    gup = np.empty(n_groups)
    gdn = np.empty(n_groups)
    eps = 1e-14 * max(C, 1.0)
    it = 0
    while it < max_iter:
        for g in range(n_groups):
            up[g] = -1  # -1: the slack variable
            gup[g] = 0.0
            dn[g] = -2  # -2: nothing can decrease
            gdn[g] = np.inf
            if slack[g] > eps:
                dn[g] = -1
                gdn[g] = 0.0
        for j in range(m):
            g = group[j]
            if grad[j] > gup[g]:
                gup[g] = grad[j]
                up[g] = j
            if alpha[j] > eps and grad[j] < gdn[g]:
                gdn[g] = grad[j]
                dn[g] = j
        best = tol
        gb = -1
        for g in range(n_groups):
            if dn[g] != -2 and up[g] != dn[g] and gup[g] - gdn[g] > best:
                best = gup[g] - gdn[g]
                gb = g
        if gb < 0:
            break
        u = up[gb]
        d = dn[gb]
        if u >= 0 and d >= 0:
            curv = K[u, u] + K[d, d] - 2.0 * K[u, d]
            cap = alpha[d]
        elif u >= 0:
            curv = K[u, u]
            cap = slack[gb]
        else:
            curv = K[d, d]
            cap = alpha[d]
        t = cap if curv <= 1e-12 else min(cap, best / curv)
        if u >= 0:
            alpha[u] += t
            for j in range(m):
                grad[j] -= t * K[j, u]
        else:
            slack[gb] += t
        if d >= 0:
            alpha[d] -= t
            if alpha[d] < 0.0:
                alpha[d] = 0.0
            for j in range(m):
                grad[j] += t * K[j, d]
        else:
            slack[gb] -= t
        it += 1
    return it


@njit(cache=True)
def bcfw_table_pass(indptr, indices, data, offsets, true_rows, losses, w, alpha, Ln, q, C, order, B, k):
    """One pass of block-coordinate Frank-Wolfe over the samples in ``order`` for a model
    whose outputs per sample are tabulated, in the dual variables alpha.

    Rows of the CSR matrix (indptr, indices, data) are Psi_r = Psi(x_n, y_r) for every output
    y_r of sample n (rows offsets[n]:offsets[n + 1]); true_rows[n] is the row t of y_n and
    losses[r] = Delta(y_n, y_r). Sample n's dual block is alpha[offsets[n]:offsets[n + 1]] on
    the simplex (start: 1 at t), its share of w is w_n = C (Psi_t - u_n) with
    u_n = sum_r alpha_r Psi_r, q[n] = ||u_n||^2 and Ln[n] = C sum_r alpha_r losses[r].
    Per sample: s_r = Psi_r . w, the loss-augmented row a = argmax losses[r] + s_r (first on
    ties), gap = C (s_a - sum_r alpha_r s_r) - Ln[n] + C losses[a],
    den = C^2 ||Psi_a - u_n||^2, gamma = clip(gap / den, 0, 1); then alpha <- (1 - gamma) alpha
    + gamma e_a, w += gamma C (u_n - Psi_a). w, alpha, Ln and q are updated in place.
    When k >= 0 (steps so far) the weighted average w_avg <- (1 - rho) w_avg + rho w,
    rho = 2 / (k + 1) after step k, is kept lazily: B += T_{k-1} delta_k for each change
    delta_k of w, T_k = k (k + 1) / 2, and w_avg = w - B / T_k. Returns (change of sum Ln, new k).
    """
    d = w.size
    scratch = np.zeros(d)
    smax = 0
    for i in range(offsets.size - 1):
        smax = max(smax, offsets[i + 1] - offsets[i])
    sc = np.empty(smax)
    dL = 0.0
    for i in order:
        o0 = offsets[i]
        o1 = offsets[i + 1]
        best = -np.inf
        a = -1
        su = 0.0  # sum_r alpha_r s_r
        for r in range(o0, o1):
            s = 0.0
            for p in range(indptr[r], indptr[r + 1]):
                s += data[p] * w[indices[p]]
            sc[r - o0] = s
            su += alpha[r] * s
            if losses[r] + s > best:
                best = losses[r] + s
                a = r
        Ls = C * losses[a]
        gap = C * (sc[a - o0] - su) - Ln[i] + Ls
        # Psi_a . u_n = sum_r alpha_r Psi_a . Psi_r, with Psi_a scattered into scratch
        for p in range(indptr[a], indptr[a + 1]):
            scratch[indices[p]] += data[p]
        aa = 0.0
        for p in range(indptr[a], indptr[a + 1]):
            aa += data[p] * scratch[indices[p]]
        au = 0.0
        for r in range(o0, o1):
            if alpha[r] > 0.0:
                g = 0.0
                for p in range(indptr[r], indptr[r + 1]):
                    g += data[p] * scratch[indices[p]]
                au += alpha[r] * g
        for p in range(indptr[a], indptr[a + 1]):
            scratch[indices[p]] = 0.0
        den = C * C * (aa - 2.0 * au + q[i])
        if den <= 1e-300:
            gamma = 1.0 if gap > 0.0 else 0.0
        else:
            gamma = min(max(gap / den, 0.0), 1.0)
        Tprev = 0.5 * k * (k + 1.0) if k >= 0 else 0.0
        if gamma > 0.0:
            gC = gamma * C
            for r in range(o0, o1):
                if alpha[r] > 0.0:
                    f = gC * alpha[r]
                    for p in range(indptr[r], indptr[r + 1]):
                        w[indices[p]] += f * data[p]
                        B[indices[p]] += Tprev * f * data[p]
                    alpha[r] *= 1.0 - gamma
            for p in range(indptr[a], indptr[a + 1]):
                w[indices[p]] -= gC * data[p]
                B[indices[p]] -= Tprev * gC * data[p]
            alpha[a] += gamma
            q[i] = (1.0 - gamma) ** 2 * q[i] + 2.0 * gamma * (1.0 - gamma) * au + gamma * gamma * aa
            step = gamma * (Ls - Ln[i])
            dL += step
            Ln[i] += step
        if k >= 0:
            k += 1
    return dL, k
