"""Plain-Python twins of the numba kernels, for tests and benchmarks.

Same conventions as ``_kernels``: S has shape (Dd, G, H, A, H), broadcast along axes
of length 1; colour 0 is the root.
"""
from __future__ import annotations

import itertools
import math

import numpy as np


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


def enumerate_trees(arities, max_depth, max_nodes=10_000):
    """Every admissible tree (prefix list, root excluded) of depth <= max_depth."""
    H = len(arities)

    def gen(depth):
        for c in range(1, H):
            a = int(arities[c])
            if a == 0:
                yield [c]
            elif depth < max_depth:
                for kids in itertools.product(list(gen_cached(depth + 1)), repeat=a):
                    out = [c]
                    for k in kids:
                        out += k
                    yield out

    cache = {}

    def gen_cached(depth):
        if depth not in cache:
            cache[depth] = list(gen(depth))
            if len(cache[depth]) > max_nodes:
                raise ValueError("too many trees to enumerate")
        return cache[depth]

    return gen_cached(1)


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
