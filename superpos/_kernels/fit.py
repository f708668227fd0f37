"""Constant fitting for many skeletons in one call: variable projection and
Levenberg-Marquardt on the prefix programs of :mod:`.program`, on plain arrays.

The numpy twin (the same algorithm, one skeleton at a time) is ``fit_constants`` in
``tests/twins_fit.py``; the tests compare the two.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..core.numeric import MAX_CONSTANT
from .program import error_scale, eval_prefix, nmse


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
def _project(ops, args, vals, X, y, c, lin, nl, b, scale, stack, F, pred):
    """Variable projection: with the nonlinear constants ``b`` set, the linear ones solve
    min ||y - f||^2 exactly (normal equations scaled to a unit diagonal, a 1e-13 ridge). Writes the full constants
    into ``c`` and the predictions into ``pred``; returns the normalised cost (inf when any
    value is not finite)."""
    n, L = X.shape[0], lin.size
    for q in range(nl.size):
        c[nl[q]] = b[q]
    for q in range(L):
        c[lin[q]] = 0.0
    eval_prefix(ops, args, vals, X, c, stack, pred)
    for r in range(n):
        if not np.isfinite(pred[r]):
            return np.inf
    if L:
        for q in range(L):
            c[lin[q]] = 1.0
            eval_prefix(ops, args, vals, X, c, stack, F[q])
            c[lin[q]] = 0.0
            for r in range(n):
                F[q, r] -= pred[r]
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
def _lm(ops, args, vals, X, y, lin, nl, b0, scale, max_iter, tol, c_out, stack, F, work):
    """Levenberg-Marquardt on the projected residual from the start ``b0``: the cost at the
    end, the full constants in ``c_out``. ``work`` is scratch of shape (P + 2, n)."""
    n, P = X.shape[0], nl.size
    b = b0.copy()
    c = np.zeros(c_out.size)
    pred = work[0]
    cost = _project(ops, args, vals, X, y, c, lin, nl, b, scale, stack, F, pred)
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
            dmax = _jacobian_normal(ops, args, vals, X, y, lin, nl, b, scale, stack, F, work, pred, ctmp, bn, J,
                                    M0, g0)
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
        cn = _project(ops, args, vals, X, y, ctmp, lin, nl, bn, scale, stack, F, pn)
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
        else:
            mu *= 4.0
        if (better and gain < tol) or mu > 1e8 or small or cost < 1e-26:
            break
    return cost


@njit(cache=True)
def _jacobian_normal(ops, args, vals, X, y, lin, nl, b, scale, stack, F, work, pred, ctmp, bn, J, M, g):
    """The finite-difference Jacobian of the projected predictions at ``b`` into ``J`` and its
    normal equations into ``M`` and ``g`` (:func:`_normal_equations`, whose largest diagonal
    entry is returned)."""
    n, P = X.shape[0], b.size
    for p in range(P):
        h = 1e-6 * (1.0 + abs(b[p]))
        bn[:] = b
        bn[p] += h
        ok = np.isfinite(_project(ops, args, vals, X, y, ctmp, lin, nl, bn, scale, stack, F, work[1 + p]))
        if not ok:  # the domain's edge (asin(c x) with c x = 1 at a point): the slope from below
            h = -h
            bn[p] = b[p] + h
            ok = np.isfinite(_project(ops, args, vals, X, y, ctmp, lin, nl, bn, scale, stack, F, work[1 + p]))
        for r in range(n):
            d = (work[1 + p, r] - pred[r]) / h
            # a perturbation that cannot be evaluated says nothing about the slope
            J[p, r] = d if ok and np.isfinite(d) else 0.0
    return _normal_equations(J, P, y, pred, M, g)


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
        if nl.size == 0:
            best = _project(ops_s, args_s, vals_s, Xf, yf, best_c, lin, nl, np.zeros(0), scale, stack, F, work[0])
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
                cost = _lm(ops_s, args_s, vals_s, Xf, yf, lin, nl, b0, scale, max_iter, tol, c, stack, F, work)
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


