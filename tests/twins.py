"""Plain-Python twins of the numba kernels of ``superpos._kernels`` (tree DP, tree scores,
the seed's iteration, chain Viterbi, the dual QP, the Frank-Wolfe pass): the oracles the
tests compare the kernels with (``benchmarks/decoder_throughput.py`` times the DP's twin).

Same conventions as ``_kernels.tree``: S has shape (Dd, G, H, A, H), broadcast along axes
of length 1; colour 0 is the root.
"""
from __future__ import annotations

import math

from superpos.core.tree import enumerate_trees


def _s(S, d, g, i, p, j):
    Dd, G, H, A, _ = S.shape
    return S[min(d - 1, Dd - 1), g if G > 1 else 0, i, min(p, A - 1), j]


def tree_dp_reference(S, arities, max_depth):
    """Memoised recursion of the tree DP: (value, prefix tree list)."""
    H = S.shape[2]
    memo = {}

    def best(d, g, i):
        """Best subtree for a node of colour i at depth d whose parent has colour g."""
        key = (d, g if S.shape[1] > 1 else 0, i)
        if key in memo:
            return memo[key]
        a = int(arities[i])
        if a == 0:
            memo[key] = (0.0, [i])
            return memo[key]
        if d == max_depth:
            memo[key] = (-math.inf, None)
            return memo[key]
        total, tree = 0.0, [i]
        for p in range(a):
            opts = [(_s(S, d + 1, g, i, p, k) + best(d + 1, i, k)[0], k) for k in range(1, H)]
            v, k = max(opts, key=lambda t: (t[0], -t[1]))
            if v == -math.inf:
                memo[key] = (-math.inf, None)
                return memo[key]
            total += v
            tree += best(d + 1, i, k)[1]
        memo[key] = (total, tree)
        return memo[key]

    v, t = best(0, 0, 0)
    return v, (None if t is None else t[1:])


def score_tree_reference(S, arities, tree):
    """Sum of S over the tree's edges, by a direct walk."""
    total = 0.0
    pos = 0

    def walk(d, g, i, p):
        nonlocal pos, total
        c = tree[pos]
        pos += 1
        total += _s(S, d, g, i, p, c)
        for q in range(int(arities[c])):
            walk(d + 1, i, c, q)

    walk(1, 0, 0, 0)
    return total


def brute_force_ranking(S, arities, max_depth):
    """All admissible trees sorted by decreasing score: list of (score, tree)."""
    trees = enumerate_trees(arities, max_depth)
    scored = [(score_tree_reference(S, arities, t), t) for t in trees]
    scored.sort(key=lambda st: -st[0])
    return scored


def seed_decode_reference(L, arities):
    """Seed 003's iteration in plain Python: value of the best tree under parent-only
    log-probabilities L (H, H) with no depth limit."""
    H = L.shape[0]
    V = [0.0 if arities[i] == 0 and i > 0 else -math.inf for i in range(H)]
    for _ in range(H + 2):
        changed = False
        for i in range(H):
            if arities[i] == 0:
                continue
            best = max(L[i, j] + V[j] for j in range(1, H))
            if arities[i] * best > V[i] + 1e-12 * (1 + abs(best)):
                V[i] = arities[i] * best
                changed = True
        if not changed:
            break
    return V[0]


def chain_viterbi_reference(unary, pairwise):
    """Plain-Python Viterbi: (value, labels list); ties go to the lowest label."""
    T, K = len(unary), len(pairwise)
    if T == 0:
        return 0.0, []
    M = [float(unary[0][s]) for s in range(K)]
    back = []
    for t in range(1, T):
        row, new = [], []
        for s in range(K):
            v, r = max((M[r] + pairwise[r][s], -r) for r in range(K))
            new.append(v + unary[t][s])
            row.append(-r)
        back.append(row)
        M = new
    v, s = max((M[s], -s) for s in range(K))
    labels = [-s]
    for row in reversed(back):
        labels.append(row[labels[-1]])
    return v, labels[::-1]


def simplex_qp_reference(K, b, group, n_groups, C, alpha, tol, max_iter):
    """Plain-Python twin of ``_kernels.simplex_qp`` (same SMO steps); returns (alpha, steps)."""
    m = len(b)
    alpha = [float(a) for a in alpha]
    grad = [b[j] - sum(K[j][k] * alpha[k] for k in range(m)) for j in range(m)]
    slack = [C] * n_groups
    for j in range(m):
        slack[group[j]] -= alpha[j]
    eps = 1e-14 * max(C, 1.0)
    it = 0
    while it < max_iter:
        up, gup = [-1] * n_groups, [0.0] * n_groups
        dn = [-1 if slack[g] > eps else -2 for g in range(n_groups)]
        gdn = [0.0 if slack[g] > eps else math.inf for g in range(n_groups)]
        for j in range(m):
            g = group[j]
            if grad[j] > gup[g]:
                gup[g], up[g] = grad[j], j
            if alpha[j] > eps and grad[j] < gdn[g]:
                gdn[g], dn[g] = grad[j], j
        best, gb = tol, -1
        for g in range(n_groups):
            if dn[g] != -2 and up[g] != dn[g] and gup[g] - gdn[g] > best:
                best, gb = gup[g] - gdn[g], g
        if gb < 0:
            break
        u, d = up[gb], dn[gb]
        if u >= 0 and d >= 0:
            curv, cap = K[u][u] + K[d][d] - 2.0 * K[u][d], alpha[d]
        elif u >= 0:
            curv, cap = K[u][u], slack[gb]
        else:
            curv, cap = K[d][d], alpha[d]
        t = cap if curv <= 1e-12 else min(cap, best / curv)
        if u >= 0:
            alpha[u] += t
            for j in range(m):
                grad[j] -= t * K[j][u]
        else:
            slack[gb] += t
        if d >= 0:
            alpha[d] = max(alpha[d] - t, 0.0)
            for j in range(m):
                grad[j] += t * K[j][d]
        else:
            slack[gb] -= t
        it += 1
    return alpha, it


def bcfw_table_pass_reference(Psi_rows, offsets, true_rows, losses, w, Wn, Ln, C, order, w_avg, k):
    """Plain-Python BCFW pass with explicit blocks Wn (n, d) (Lacoste-Julien et al. 2013,
    Algorithm 4) on dense rows Psi_rows (R, d); the twin of ``_kernels.bcfw_table_pass``,
    which keeps the blocks implicitly. Works on copies; returns (w, Wn, Ln, w_avg, dL, k)."""
    w, Wn, Ln, w_avg = [list(map(float, w)), [list(map(float, r)) for r in Wn], list(map(float, Ln)),
                        list(map(float, w_avg))]
    d = len(w)
    dL = 0.0
    for i in order:
        rows = range(offsets[i], offsets[i + 1])
        arg = max(rows, key=lambda r: (losses[r] + sum(Psi_rows[r][j] * w[j] for j in range(d)), -r))
        t = true_rows[i]
        diff = [Wn[i][j] - C * (Psi_rows[t][j] - Psi_rows[arg][j]) for j in range(d)]
        Ls = C * losses[arg]
        gap = sum(w[j] * diff[j] for j in range(d)) - Ln[i] + Ls
        den = sum(v * v for v in diff)
        gamma = (1.0 if gap > 0 else 0.0) if den <= 1e-300 else min(max(gap / den, 0.0), 1.0)
        if gamma > 0:
            for j in range(d):
                w[j] -= gamma * diff[j]
                Wn[i][j] -= gamma * diff[j]
            step = gamma * (Ls - Ln[i])
            dL += step
            Ln[i] += step
        if k >= 0:
            k += 1
            rho = 2.0 / (k + 1.0)
            w_avg = [(1 - rho) * a + rho * b for a, b in zip(w_avg, w)]
    return w, Wn, Ln, w_avg, dL, k
