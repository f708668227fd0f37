"""MAP inference on pairwise graphs: argmax_y sum_i unary[i, y_i] + sum_e pairwise[e, y_i, y_j].

Every kernel takes unary (N, K), pairwise (E, K, K) indexed [state of edges[e, 0], state of
edges[e, 1]] and edges (E, 2) int64, all C-contiguous, and returns labels (N,) int64. A state
can be ruled out by a unary of -inf (latent models use it). Ties go to the lowest label.
"""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def graph_energy(unary, pairwise, edges, labels):
    """sum_i unary[i, labels[i]] + sum_e pairwise[e, labels[i_e], labels[j_e]]."""
    v = 0.0
    for i in range(unary.shape[0]):
        v += unary[i, labels[i]]
    for e in range(edges.shape[0]):
        v += pairwise[e, labels[edges[e, 0]], labels[edges[e, 1]]]
    return v


@njit(cache=True)
def _argmax_row(a, i):
    """(max, first argmax) of row i of a."""
    best = -np.inf
    arg = 0
    for s in range(a.shape[1]):
        if a[i, s] > best:
            best = a[i, s]
            arg = s
    return best, arg


@njit(cache=True)
def _adjacency(n, edges):
    """CSR lists of each node's incident edges: ptr (n + 1,), edge ids (2E,)."""
    ptr = np.zeros(n + 1, np.int64)
    for e in range(edges.shape[0]):
        ptr[edges[e, 0] + 1] += 1
        ptr[edges[e, 1] + 1] += 1
    for i in range(n):
        ptr[i + 1] += ptr[i]
    fill = ptr[:-1].copy()
    inc = np.empty(2 * edges.shape[0], np.int64)
    for e in range(edges.shape[0]):
        for end in range(2):
            v = edges[e, end]
            inc[fill[v]] = e
            fill[v] += 1
    return ptr, inc


@njit(cache=True)
def forest_order(n, edges):
    """Breadth-first order of a forest with each node's parent and parent edge (-1 at roots).

    Returns (order (n,), parent (n,), parent_edge (n,), is_forest); on a graph with a cycle
    is_forest is False and the other arrays are meaningless.
    """
    ptr, inc = _adjacency(n, edges)
    parent = np.full(n, -1, np.int64)
    pedge = np.full(n, -1, np.int64)
    seen = np.zeros(n, np.bool_)
    order = np.empty(n, np.int64)
    head = 0
    tail = 0
    for root in range(n):
        if seen[root]:
            continue
        seen[root] = True
        order[tail] = root
        tail += 1
        while head < tail:
            u = order[head]
            head += 1
            for k in range(ptr[u], ptr[u + 1]):
                e = inc[k]
                if e == pedge[u]:
                    continue
                v = edges[e, 1] if edges[e, 0] == u else edges[e, 0]
                if seen[v]:
                    return order, parent, pedge, False
                seen[v] = True
                parent[v] = u
                pedge[v] = e
                order[tail] = v
                tail += 1
    return order, parent, pedge, True


@njit(cache=True)
def forest_map(unary, pairwise, edges):
    """Exact MAP on a forest by max-sum from the leaves up, then back down.

    Returns (value, labels, is_forest); with a cycle is_forest is False and labels are zeros.
    """
    n, K = unary.shape
    labels = np.zeros(n, np.int64)
    order, parent, pedge, ok = forest_order(n, edges)
    if not ok:
        return -np.inf, labels, False
    belief = unary.copy()
    back = np.zeros((n, K), np.int64)
    for k in range(n - 1, -1, -1):
        c = order[k]
        p = parent[c]
        if p < 0:
            continue
        e = pedge[c]
        c_first = edges[e, 0] == c
        for sp in range(K):
            best = -np.inf
            arg = 0
            for sc in range(K):
                pw = pairwise[e, sc, sp] if c_first else pairwise[e, sp, sc]
                v = belief[c, sc] + pw
                if v > best:
                    best = v
                    arg = sc
            back[c, sp] = arg
            belief[p, sp] += best
    value = 0.0
    for k in range(n):
        c = order[k]
        if parent[c] < 0:
            best, labels[c] = _argmax_row(belief, c)
            value += best
        else:
            labels[c] = back[c, labels[parent[c]]]
    return value, labels, True


@njit(cache=True)
def max_product(unary, pairwise, edges, max_iter, damping, tol):
    """Loopy max-product (max-sum in logs) with damped synchronous message updates.

    m_{i->j}(t) = max_s [b_i(s) - m_{j->i}(s) + pairwise(s, t)], b_i = unary_i + sum of incoming
    messages; new messages are mixed as damping * old + (1 - damping) * new and shifted to max 0.
    Each iteration decodes argmax_s b_i(s) and the labelling of highest energy seen is returned,
    so the answer is never worse than the first decoding (argmax of the unaries).
    Stops when no message moves by more than ``tol``. Returns (labels, iterations, converged).
    """
    n, K = unary.shape
    E = edges.shape[0]
    msg = np.zeros((2 * E, K))  # 2e: edges[e, 0] -> edges[e, 1]; 2e + 1: the reverse
    new_ab = np.empty(K)
    new_ba = np.empty(K)
    belief = unary.copy()
    cur = np.zeros(n, np.int64)
    best_labels = np.zeros(n, np.int64)
    best_val = -np.inf
    converged = False
    it = 0
    while True:
        for i in range(n):
            cur[i] = _argmax_row(belief, i)[1]
        val = graph_energy(unary, pairwise, edges, cur)
        if val > best_val:
            best_val = val
            best_labels[:] = cur
        if converged or it >= max_iter:
            break
        it += 1
        change = 0.0
        for e in range(E):
            a = edges[e, 0]
            b = edges[e, 1]
            for t in range(K):  # a -> b, from the old messages
                m = -np.inf
                for s in range(K):
                    v = belief[a, s] - msg[2 * e + 1, s] + pairwise[e, s, t]
                    if v > m:
                        m = v
                new_ab[t] = m
            for s in range(K):  # b -> a
                m = -np.inf
                for t in range(K):
                    v = belief[b, t] - msg[2 * e, t] + pairwise[e, s, t]
                    if v > m:
                        m = v
                new_ba[s] = m
            top_ab = new_ab.max()
            top_ba = new_ba.max()
            for s in range(K):
                v = damping * msg[2 * e, s] + (1.0 - damping) * (new_ab[s] - top_ab)
                change = max(change, abs(v - msg[2 * e, s]))
                msg[2 * e, s] = v
                v = damping * msg[2 * e + 1, s] + (1.0 - damping) * (new_ba[s] - top_ba)
                change = max(change, abs(v - msg[2 * e + 1, s]))
                msg[2 * e + 1, s] = v
        belief[:, :] = unary
        for e in range(E):
            for s in range(K):
                belief[edges[e, 1], s] += msg[2 * e, s]
                belief[edges[e, 0], s] += msg[2 * e + 1, s]
        converged = change <= tol
    return best_labels, it, converged
