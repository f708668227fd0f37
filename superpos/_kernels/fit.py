"""Constant fitting for many skeletons in one call: variable projection and
Levenberg-Marquardt on the prefix programs of :mod:`.program`, on plain arrays.

The numpy twin (the same algorithm, one skeleton at a time) is ``fit_constants`` in
``tests/twins_fit.py``; the tests compare the two.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..core.numeric import MAX_CONSTANT
from .program import (OP_CONST, OP_NUM, OP_POW, arity, binary_values, error_scale, eval_prefix, leaf_values,
                      nmse, unary_values)


@njit(cache=True)
def _solve_small(M, g, x):
    """x = M^-1 g by Gaussian elimination with partial pivoting (M, g are overwritten);
    False when M is numerically singular."""
    P = g.size
    for col in range(P):
        piv = col
        for r in range(col + 1, P):
            if abs(M[r, col]) > abs(M[piv, col]):
                piv = r
        if not abs(M[piv, col]) > 1e-300:
            return False
        if piv != col:
            for q in range(P):
                M[col, q], M[piv, q] = M[piv, q], M[col, q]
            g[col], g[piv] = g[piv], g[col]
        for r in range(col + 1, P):
            f = M[r, col] / M[col, col]
            for q in range(col, P):
                M[r, q] -= f * M[col, q]
            g[r] -= f * g[col]
    for r in range(P - 1, -1, -1):
        s = g[r]
        for q in range(r + 1, P):
            s -= M[r, q] * x[q]
        x[r] = s / M[r, r]
    return True


@njit(cache=True)
def _normal_equations(A, m, y, pred, M, g):
    """M = A A^T and g = A (y - pred) over the first m rows of A; returns max diag(M)."""
    n = y.size
    dmax = 0.0
    for p in range(m):
        s = 0.0
        for r in range(n):
            s += A[p, r] * (y[r] - pred[r])
        g[p] = s
        for q in range(p, m):
            s = 0.0
            for r in range(n):
                s += A[p, r] * A[q, r]
            M[p, q] = s
            M[q, p] = s
        dmax = max(dmax, M[p, p])
    return dmax


@njit(cache=True)
def _shape(ops, args, second, parent, dep, cnode):
    """One skeleton's shape for the node-by-node evaluation: the second child of each binary
    node (the first is the next node), each node's parent (-1 at the root), whether its
    subtree holds a free constant, and the node of each constant slot."""
    size = ops.size
    end = np.empty(size, dtype=np.int64)  # subtree of k: nodes k..end[k]-1
    parent[:size] = -1
    for k in range(size - 1, -1, -1):
        a = arity(ops[k])
        dep[k] = ops[k] == OP_CONST
        if ops[k] == OP_CONST:
            cnode[args[k]] = k
        end[k] = k + 1
        if a >= 1:
            parent[k + 1] = k
            dep[k] = dep[k + 1]
            end[k] = end[k + 1]
        if a == 2:
            second[k] = end[k + 1]
            parent[second[k]] = k
            dep[k] = dep[k] or dep[second[k]]
            end[k] = end[second[k]]


@njit(cache=True)
def _node(ops, args, vals, X, c, second, k, V):
    """V[k] from its children's rows of V (or, for a leaf, from X and c)."""
    op = ops[k]
    if op <= OP_NUM:
        leaf_values(op, args[k], vals[k], X, c, V[k])
    elif op <= OP_POW:
        binary_values(op, V[k + 1], V[second[k]], V[k])
    else:
        unary_values(op, V[k + 1], V[k])


@njit(cache=True)
def _values(ops, args, vals, X, c, second, dep, V):
    """Every node's values into V (nodes, n), bottom up; only the nodes marked in ``dep``
    (the others keep the values they hold). V[0] is the formula."""
    for k in range(ops.size - 1, -1, -1):
        if dep[k]:
            _node(ops, args, vals, X, c, second, k, V)


@njit(cache=True)
def _update_path(ops, args, vals, X, c, second, parent, j, V):
    """V after a change of the leaf ``j``: that node and its ancestors re-evaluated in place."""
    k = j
    while k >= 0:
        _node(ops, args, vals, X, c, second, k, V)
        k = parent[k]


@njit(cache=True)
def _root_with(ops, args, vals, X, c, second, parent, j, V, buf):
    """The formula's values with the leaf ``j`` re-evaluated (from ``c``) and every other node
    as held in V (left unchanged): the path from ``j`` to the root in the two rows of ``buf``;
    returns the row that holds the result."""
    cur = 0
    leaf_values(ops[j], args[j], vals[j], X, c, buf[0])
    k = j
    while parent[k] >= 0:
        a = parent[k]
        nxt = 1 - cur
        if arity(ops[a]) == 1:
            unary_values(ops[a], buf[cur], buf[nxt])
        elif k == a + 1:
            binary_values(ops[a], buf[cur], V[second[a]], buf[nxt])
        else:
            binary_values(ops[a], V[a + 1], buf[cur], buf[nxt])
        cur = nxt
        k = a
    return cur


@njit(cache=True)
def _project(ops, args, vals, X, y, c, lin, nl, b, scale, shape, V, F, pred, buf, moved):
    """Variable projection: with the nonlinear constants ``b`` set, the linear ones solve
    min ||y - f||^2 exactly (normal equations scaled to a unit diagonal, a 1e-13 ridge). Writes the full constants
    into ``c`` and the predictions into ``pred``; returns the normalised cost (inf when any
    value is not finite).

    V holds the node values with every linear constant at 0: computed here for the nodes
    that depend on a constant when ``moved`` is -1; otherwise V already holds them for ``b``
    except the nonlinear constant ``moved`` (index into ``nl``), whose leaf and its
    ancestors are re-evaluated (a finite-difference step). The column of each linear
    constant is the change of the formula when that constant is 1: only its path to the
    root is evaluated (:func:`_root_with`)."""
    second, parent, dep, cnode = shape
    n, L = X.shape[0], lin.size
    for q in range(nl.size):
        c[nl[q]] = b[q]
    for q in range(L):
        c[lin[q]] = 0.0
    if moved < 0:
        _values(ops, args, vals, X, c, second, dep, V)
    else:
        _update_path(ops, args, vals, X, c, second, parent, cnode[nl[moved]], V)
    for r in range(n):
        pred[r] = V[0, r]
        if not np.isfinite(pred[r]):
            return np.inf
    if L:
        for q in range(L):
            c[lin[q]] = 1.0
            row = _root_with(ops, args, vals, X, c, second, parent, cnode[lin[q]], V, buf)
            c[lin[q]] = 0.0
            for r in range(n):
                F[q, r] = buf[row, r] - pred[r]
                if not np.isfinite(F[q, r]):
                    return np.inf
        M = np.empty((L, L))
        g = np.empty(L)
        a = np.empty(L)
        dmax = _normal_equations(F, L, y, pred, M, g)
        if dmax <= 1e-300:  # every linear column is zero: the constants do not matter
            a[:] = 0.0
        elif L == 1:
            a[0] = g[0] / M[0, 0]
        else:  # equilibrated (unit diagonal), so that columns of any scale solve alike
            d = np.empty(L)
            for p in range(L):
                d[p] = np.sqrt(M[p, p]) if M[p, p] > 1e-300 else 1.0
            for p in range(L):
                g[p] /= d[p]
                for q in range(L):
                    M[p, q] /= d[p] * d[q]
                M[p, p] += 1e-13
            if not _solve_small(M, g, a):
                return np.inf
            for p in range(L):
                a[p] /= d[p]
        for q in range(L):
            if not np.isfinite(a[q]):
                return np.inf
            c[lin[q]] = a[q]
            for r in range(n):
                pred[r] += a[q] * F[q, r]
    s = 0.0
    for r in range(n):
        d = y[r] - pred[r]
        s += d * d
    cost = s / n / scale
    return cost if np.isfinite(cost) else np.inf


@njit(cache=True)
def _lm(ops, args, vals, X, y, lin, nl, b0, scale, max_iter, tol, c_out, shape, V, W, F, work, buf):
    """Levenberg-Marquardt on the projected residual from the start ``b0``: the cost at the
    end, the full constants in ``c_out``. ``work`` is scratch of shape (P + 2, n); V and W
    hold node values (:func:`_project`); V's constant-free nodes must be filled."""
    n, P = X.shape[0], nl.size
    b = b0.copy()
    c = np.zeros(c_out.size)
    pred = work[0]
    cost = _project(ops, args, vals, X, y, c, lin, nl, b, scale, shape, V, F, pred, buf, -1)
    c_out[:] = c
    if not np.isfinite(cost):
        return cost
    J = np.empty((P, n))
    bn = np.empty(P)
    step = np.empty(P)
    M = np.empty((P, P))
    g = np.empty(P)
    M0 = np.empty((P, P))
    g0 = np.empty(P)
    dmax = 0.0
    ctmp = np.zeros(c_out.size)
    pn = work[P + 1]
    mu = 1e-3
    moved = True
    for _ in range(max_iter):
        if moved:  # a rejected step leaves b, and so the Jacobian and normal equations, as they were
            # V holds the nodes at b (the last accepted projection)
            dmax = _jacobian_normal(ops, args, vals, X, y, lin, nl, b, scale, shape, V, W, F, work, pred, ctmp,
                                    bn, J, M0, g0, buf)
        M[:, :] = M0
        g[:] = g0
        for p in range(P):
            M[p, p] += mu * (M[p, p] + 1e-12 * (1.0 + dmax))
        if P == 1:
            step[0] = g[0] / M[0, 0]
        elif not _solve_small(M, g, step):
            step[:] = 0.0
        small = True
        for p in range(P):
            if not np.isfinite(step[p]):
                step[p] = 0.0
            bn[p] = min(max(b[p] + step[p], -MAX_CONSTANT), MAX_CONSTANT)
            if abs(step[p]) > 1e-10 * (1.0 + abs(b[p])):
                small = False
        # the trial point's nodes go to W; V keeps b's until the step is accepted
        cn = _project(ops, args, vals, X, y, ctmp, lin, nl, bn, scale, shape, W, F, pn, buf, -1)
        better = cn < cost
        moved = better
        gain = 0.0
        if better:
            gain = (cost - cn) / max(cost, 1e-300)
            b[:] = bn
            pred[:] = pn
            c_out[:] = ctmp
            cost = cn
            mu = max(mu / 3.0, 1e-12)
            V, W = W, V
        else:
            mu *= 4.0
        if (better and gain < tol) or mu > 1e8 or small or cost < 1e-26:
            break
    return cost


@njit(cache=True)
def _jacobian_normal(ops, args, vals, X, y, lin, nl, b, scale, shape, V, W, F, work, pred, ctmp, bn, J, M, g, buf):
    """The finite-difference Jacobian of the projected predictions at ``b`` into ``J`` and its
    normal equations into ``M`` and ``g`` (:func:`_normal_equations`, whose largest diagonal
    entry is returned). V holds the nodes at ``b``; each step re-evaluates one constant's
    path in a copy (W)."""
    n, P = X.shape[0], b.size
    dep = shape[2]
    for p in range(P):
        h = 1e-6 * (1.0 + abs(b[p]))
        bn[:] = b
        bn[p] += h
        _copy_rows(V, W, dep)
        ok = np.isfinite(_project(ops, args, vals, X, y, ctmp, lin, nl, bn, scale, shape, W, F, work[1 + p], buf, p))
        if not ok:  # the domain's edge (asin(c x) with c x = 1 at a point): the slope from below
            h = -h
            bn[p] = b[p] + h
            _copy_rows(V, W, dep)
            ok = np.isfinite(_project(ops, args, vals, X, y, ctmp, lin, nl, bn, scale, shape, W, F, work[1 + p], buf,
                                      p))
        for r in range(n):
            d = (work[1 + p, r] - pred[r]) / h
            # a perturbation that cannot be evaluated says nothing about the slope
            J[p, r] = d if ok and np.isfinite(d) else 0.0
    return _normal_equations(J, P, y, pred, M, g)


@njit(cache=True)
def _copy_rows(V, W, dep):
    """W's rows of the nodes marked in ``dep`` set to V's."""
    for k in range(dep.size):
        if dep[k]:
            W[k, :] = V[k, :]


@njit(cache=True)
def fit_skeletons(ops, args, vals, offsets, lin_flat, c_offsets, Xf, yf, Xv, yv, starts, n_starts, init,
                  has_init, max_iter, tol):
    """Fit the constants of every skeleton ``s`` (nodes ``offsets[s]:offsets[s+1]``, constants
    ``c_offsets[s]:c_offsets[s+1]``, ``lin_flat`` marking the linear ones) on (Xf, yf) and
    score them on (Xv, yv).

    Each skeleton's nonlinear constants start from ``init`` (its slice, where ``has_init``)
    and from the first ``n_starts`` rows of ``starts`` (one column per nonlinear constant);
    the best start wins. Returns (constants (total,), normalised error on the fit points,
    normalised error on the validation points), inf where a skeleton cannot be evaluated."""
    S = offsets.size - 1
    consts = np.zeros(c_offsets[-1])
    err_fit = np.full(S, np.inf)
    err_val = np.full(S, np.inf)
    nf = Xf.shape[0]
    scale = error_scale(yf)
    size_max = 1
    for s in range(S):
        size_max = max(size_max, offsets[s + 1] - offsets[s])
    k_max = 1
    for s in range(S):
        k_max = max(k_max, c_offsets[s + 1] - c_offsets[s])
    stack = np.empty((size_max, max(nf, Xv.shape[0])))
    F = np.empty((k_max, nf))
    work = np.empty((k_max + 2, nf))
    predv = np.empty(Xv.shape[0])
    V = np.empty((size_max, nf))
    W = np.empty((size_max, nf))
    buf = np.empty((2, nf))
    second = np.zeros(size_max, dtype=np.int64)
    parent = np.empty(size_max, dtype=np.int64)
    dep = np.empty(size_max, dtype=np.bool_)
    every = np.ones(size_max, dtype=np.bool_)
    cnode = np.zeros(k_max, dtype=np.int64)
    for s in range(S):
        o0, o1, c0, c1 = offsets[s], offsets[s + 1], c_offsets[s], c_offsets[s + 1]
        ops_s, args_s, vals_s = ops[o0:o1], args[o0:o1], vals[o0:o1]
        K = c1 - c0
        lm = lin_flat[c0:c1]
        lin = np.flatnonzero(lm)
        nl = np.flatnonzero(~lm)
        best_c = np.zeros(K)
        best = np.inf
        c = np.zeros(K)
        m = o1 - o0
        shape = (second[:m], parent[:m], dep[:m], cnode[:K])
        _shape(ops_s, args_s, shape[0], shape[1], shape[2], shape[3])
        _values(ops_s, args_s, vals_s, Xf, c, shape[0], every[:m], V)  # the constant-free nodes, once
        W[:m, :] = V[:m, :]
        if nl.size == 0:
            best = _project(ops_s, args_s, vals_s, Xf, yf, best_c, lin, nl, np.zeros(0), scale, shape, V, F, work[0],
                            buf, -1)
        else:
            n_try = n_starts + (1 if has_init[s] else 0)
            for t in range(n_try):
                if has_init[s]:
                    b0 = init[c0:c1][nl].copy() if t == 0 else starts[t - 1, :nl.size].copy()
                else:
                    b0 = starts[t, :nl.size].copy()
                ok = True
                for q in range(b0.size):
                    if not np.isfinite(b0[q]):
                        ok = False
                if not ok:
                    continue
                cost = _lm(ops_s, args_s, vals_s, Xf, yf, lin, nl, b0, scale, max_iter, tol, c, shape, V, W, F, work,
                           buf)
                if cost < best:
                    best = cost
                    best_c[:] = c
                if best < 1e-26:
                    break
        if not np.isfinite(best):
            continue
        consts[c0:c1] = best_c
        err_fit[s] = best
        eval_prefix(ops_s, args_s, vals_s, Xv, best_c, stack, predv)
        err_val[s] = nmse(yv, predv)
    return consts, err_fit, err_val


