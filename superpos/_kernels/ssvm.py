"""Structural SVM kernels (superpos.ssvm): chain Viterbi, the working-set dual QP and the
block-coordinate Frank-Wolfe pass over tabulated outputs."""
from __future__ import annotations

import numpy as np
from numba import njit


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
