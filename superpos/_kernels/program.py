"""Formula skeletons as prefix programs on plain arrays: evaluation, the linear-constant
analysis and the normalised error.

A skeleton is a slice of ``ops`` / ``args`` / ``vals`` (prefix order, one entry per node):
``ops`` is one of the OP_* codes below, ``args`` the input column (OP_VAR) or the
constant slot (OP_CONST), ``vals`` the value of an OP_NUM leaf. :func:`eval_prefix` is the
compiled counterpart of :func:`superpos.core.tree.evaluate` (tests compare them).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..core.numeric import DIV_EPS, RELATIVE_FLOOR, VARIANCE_FLOOR

OP_VAR, OP_CONST, OP_NUM = 0, 1, 2
OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_POW, OP_NEG = 3, 4, 5, 6, 7, 8
OP_SIN, OP_COS, OP_EXP, OP_LOG, OP_SQRT, OP_POW2, OP_POW3 = 9, 10, 11, 12, 13, 14, 15
OP_TANH, OP_ASIN, OP_ACOS, OP_ERF = 16, 17, 18, 19
"""OP_POW(a, b) = |b|^a, the exponent first: a tree's ``powc(u)`` (|u|^c, c the node's own constant)
compiles to OP_POW(OP_CONST, u), so the constant slots stay in the tree's prefix order."""
OP_CODES = {"add": OP_ADD, "sub": OP_SUB, "mul": OP_MUL, "div": OP_DIV, "neg": OP_NEG, "sin": OP_SIN,
            "cos": OP_COS, "exp": OP_EXP, "log": OP_LOG, "sqrt": OP_SQRT, "pow2": OP_POW2, "pow3": OP_POW3,
            "tanh": OP_TANH, "asin": OP_ASIN, "acos": OP_ACOS, "erf": OP_ERF}



@njit(cache=True)
def arity(op):
    """Children of a node with this op code: 0 (leaves), 2 (add, sub, mul, div, pow) or 1."""
    return 0 if op <= OP_NUM else (2 if op <= OP_POW else 1)


@njit(cache=True)
def leaf_values(op, arg, val, X, c, out):
    """A leaf's value on every row of X into ``out``: the input column ``arg`` (OP_VAR),
    the constant ``c[arg]`` (OP_CONST) or ``val`` (OP_NUM)."""
    if op == OP_VAR:
        for r in range(out.size):
            out[r] = X[r, arg]
    else:
        v = c[arg] if op == OP_CONST else val
        for r in range(out.size):
            out[r] = v


@njit(cache=True)
def binary_values(op, a, b, out):
    """out = a op b, row by row (``out`` may be ``b``); one loop per op (vectorisable).
    A division by |b| <= DIV_EPS gives NaN; OP_POW is |b|^a, NaN for 0 to a negative power."""
    if op == OP_ADD:
        for r in range(out.size):
            out[r] = a[r] + b[r]
    elif op == OP_SUB:
        for r in range(out.size):
            out[r] = a[r] - b[r]
    elif op == OP_MUL:
        for r in range(out.size):
            out[r] = a[r] * b[r]
    elif op == OP_POW:
        for r in range(out.size):
            u, p = abs(b[r]), a[r]
            out[r] = np.nan if u == 0.0 and p < 0.0 else u**p
    else:
        for r in range(out.size):
            w = b[r]
            out[r] = a[r] / w if abs(w) > DIV_EPS else np.nan


@njit(cache=True)
def unary_values(op, a, out):
    """out = op(a), row by row (``out`` may be ``a``). Domain errors give NaN, overflow inf
    (as the basis's numpy implementations)."""
    n = out.size
    if op == OP_NEG:
        for r in range(n):
            out[r] = -a[r]
    elif op == OP_SIN:
        for r in range(n):
            out[r] = np.sin(a[r])
    elif op == OP_COS:
        for r in range(n):
            out[r] = np.cos(a[r])
    elif op == OP_EXP:
        for r in range(n):
            out[r] = np.exp(a[r])
    elif op == OP_LOG:
        for r in range(n):
            u = a[r]
            out[r] = np.log(abs(u)) if u != 0.0 else np.nan
    elif op == OP_SQRT:
        for r in range(n):
            out[r] = np.sqrt(abs(a[r]))
    elif op == OP_POW2:
        for r in range(n):
            u = a[r]
            out[r] = u * u
    elif op == OP_POW3:
        for r in range(n):
            u = a[r]
            out[r] = u * u * u
    elif op == OP_TANH:
        for r in range(n):
            out[r] = np.tanh(a[r])
    elif op == OP_ASIN:
        for r in range(n):
            u = a[r]
            out[r] = np.arcsin(u) if abs(u) <= 1.0 else np.nan
    elif op == OP_ACOS:
        for r in range(n):
            u = a[r]
            out[r] = np.arccos(u) if abs(u) <= 1.0 else np.nan
    else:
        for r in range(n):
            out[r] = math.erf(a[r])


@njit(cache=True)
def eval_prefix(ops, args, vals, X, c, stack, out):
    """Values of one prefix program on the rows of X into ``out`` (n,); ``stack`` is
    scratch of shape (>= nodes, n). Domain errors give NaN, overflow inf (as the basis's
    numpy implementations)."""
    n = X.shape[0]
    top = 0
    for k in range(ops.size - 1, -1, -1):
        op = ops[k]
        if op <= OP_NUM:
            leaf_values(op, args[k], vals[k], X, c, stack[top, :n])
            top += 1
        elif op <= OP_POW:  # binary: the first argument is on top
            binary_values(op, stack[top - 1, :n], stack[top - 2, :n], stack[top - 2, :n])
            top -= 1
        else:
            unary_values(op, stack[top - 1, :n], stack[top - 1, :n])
    for r in range(n):
        out[r] = stack[0, r]


@njit(cache=True)
def error_scale(y):
    """var(y), or for a constant y its mean square (at least 1): the normalised error's denominator."""
    n = y.size
    mean = 0.0
    for r in range(n):
        mean += y[r]
    mean /= n
    var, ms = 0.0, 0.0
    for r in range(n):
        var += (y[r] - mean) ** 2
        ms += y[r] * y[r]
    var /= n
    return var if var > max(VARIANCE_FLOOR, RELATIVE_FLOOR * (ms / n)) else max(ms / n, 1.0)


@njit(cache=True)
def nmse(y, pred):
    """Mean squared error over :func:`error_scale`; inf when a prediction is not finite."""
    s = 0.0
    for r in range(y.size):
        if not np.isfinite(pred[r]):
            return np.inf
        s += (y[r] - pred[r]) ** 2
    out = s / y.size / error_scale(y)
    return out if np.isfinite(out) else np.inf


@njit(cache=True)
def linear_mask(ops, offsets, c_offsets):
    """For every constant of every skeleton: does it enter the formula linearly? Raises
    ValueError for a slice that is not one complete prefix tree. The twin
    of ``Skeleton._linear_constants`` in ``tests/twins_fit.py``: a constant is linear when
    every ancestor is add, sub, neg, a mul (its other factor then joins the 'siblings') or
    the numerator of a div (the denominator joins them), and no sibling subtree holds a
    constant already marked linear."""
    lin = np.zeros(c_offsets[-1], dtype=np.bool_)
    for s in range(offsets.size - 1):
        o = ops[offsets[s]:offsets[s + 1]]
        n = o.size
        parent = np.full(n, -1)
        end = np.empty(n, dtype=np.int64)  # subtree of k is k..end[k]-1 in prefix order
        slot = np.full(n, -1)
        stack = np.empty(n, dtype=np.int64)
        need = np.empty(n, dtype=np.int64)
        top = 0
        nc = 0
        if n == 0:
            raise ValueError("an empty tree")
        for k in range(n):
            if k and not top:
                raise ValueError("a tree with nodes after its end")
            if top:
                parent[k] = stack[top - 1]
            if o[k] == OP_CONST:
                slot[k] = nc
                nc += 1
            a = 2 if OP_ADD <= o[k] <= OP_POW else (1 if o[k] > OP_POW else 0)
            if a:
                stack[top] = k
                need[top] = a
                top += 1
            else:
                end[k] = k + 1
                while top:
                    need[top - 1] -= 1
                    if need[top - 1]:
                        break
                    end[stack[top - 1]] = k + 1
                    top -= 1
        if top:
            raise ValueError("a tree whose last function lacks arguments")
        c0 = c_offsets[s]
        sib = np.empty(n, dtype=np.int64)
        for k in range(n):
            if o[k] != OP_CONST:
                continue
            ok, u, ns = True, k, 0
            while ok and parent[u] >= 0:
                p = parent[u]
                first = p + 1
                second = end[first]
                if o[p] == OP_ADD or o[p] == OP_SUB or o[p] == OP_NEG:
                    pass
                elif o[p] == OP_MUL:
                    sib[ns] = second if u == first else first
                    ns += 1
                elif o[p] == OP_DIV and u == first:
                    sib[ns] = second
                    ns += 1
                else:
                    ok = False
                u = p
            if not ok:
                continue
            clash = False
            for q in range(ns):
                for v in range(sib[q], end[sib[q]]):
                    if slot[v] >= 0 and lin[c0 + slot[v]]:
                        clash = True
            lin[c0 + slot[k]] = not clash
    return lin
