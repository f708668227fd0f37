"""Structural identity of trees: a 64-bit hash per tree, equal for trees that differ only by
the order of commutative arguments (local search and the candidate lists tell thousands of
skeletons apart with it). Its plain-Python twin is
:func:`superpos.symreg.candidates.structural_key` (the tests compare the partitions)."""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _mix(x):
    """splitmix64's finaliser: a bijection of uint64 that spreads every input bit."""
    x ^= x >> np.uint64(30)
    x *= np.uint64(0xBF58476D1CE4E5B9)
    x ^= x >> np.uint64(27)
    x *= np.uint64(0x94D049BB133111EB)
    x ^= x >> np.uint64(31)
    return x


@njit(cache=True)
def structural_hashes(flat, offsets, arities, commutative):
    """A 64-bit hash per tree (``flat[offsets[t]:offsets[t + 1]]``) of its structure, with the
    arguments of ``commutative`` colours taken in sorted order: equal for trees that differ
    only by the order of commutative arguments, as
    :func:`superpos.symreg.candidates.structural_key` (its plain-Python twin; tests compare
    them). h(leaf c) = mix(c + k), h(node) = mix(...mix(mix(c + k) ^ h(arg1)) ... ^ h(arg_a))."""
    n = offsets.size - 1
    out = np.empty(n, np.uint64)
    cap = 1
    for t in range(n):
        cap = max(cap, offsets[t + 1] - offsets[t])
    stack = np.empty(cap, np.uint64)
    args = np.empty(cap, np.uint64)
    seed = np.uint64(0x9E3779B97F4A7C15)
    for t in range(n):
        top = 0
        for k in range(offsets[t + 1] - 1, offsets[t] - 1, -1):
            c = flat[k]
            a = arities[c]
            h = _mix(np.uint64(c) + seed)
            for i in range(a):  # the first argument is on top
                args[i] = stack[top - 1 - i]
            if commutative[c]:
                for i in range(1, a):  # insertion sort of the (few) argument hashes
                    v = args[i]
                    j = i - 1
                    while j >= 0 and args[j] > v:
                        args[j + 1] = args[j]
                        j -= 1
                    args[j + 1] = v
            for i in range(a):
                h = _mix(h ^ args[i])
            top -= a
            stack[top] = h
            top += 1
        out[t] = stack[0]
    return out
