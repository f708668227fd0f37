"""Constant fitting for many skeletons of one data set in a single compiled call.

The same algorithm as :func:`superpos.constants.fit_constants` (variable projection,
Levenberg-Marquardt from the same starts, the best start wins), run skeleton by skeleton in
the numba kernels of ``_kernels/fit.py``; ``fit_constants`` is its numpy twin and takes the
trees with a user-registered function, which the kernels cannot evaluate.
"""
from __future__ import annotations

import numpy as np

from .basis import Basis
from .constants import Skeleton, _starts, fit_constants, nmse
from .exceptions import SuperposError

__all__ = ["fit_many"]


def _op_table(basis: Basis):
    """Per colour: (op code, argument, number value); op code -1 where the numba fitter has
    no implementation (a user-registered function)."""
    from ._kernels.fit import OP_CODES, OP_CONST, OP_NUM, OP_VAR

    ops = np.full(len(basis), -1, dtype=np.int64)
    arg = np.zeros(len(basis), dtype=np.int64)
    val = np.zeros(len(basis), dtype=np.float64)
    for k, f in enumerate(basis.functions):
        if f.kind == "variable":
            ops[k], arg[k] = OP_VAR, f.index
        elif f.kind == "constant":
            ops[k] = OP_CONST
        elif f.kind == "number":
            ops[k], val[k] = OP_NUM, f.value
        elif f.name in OP_CODES and f.numpy is _builtin_numpy(f.name):
            ops[k] = OP_CODES[f.name]
    return ops, arg, val


def _builtin_numpy(name: str):
    from .basis import _REGISTRY

    f = _REGISTRY.get(name)
    return None if f is None else f.numpy


def fit_many(trees, basis: Basis, X, y, Xv=None, yv=None, n_starts: int = 4, max_iter: int = 40, init=None,
             random_state=None, tol: float = 1e-8) -> list[tuple[np.ndarray, float, float]]:
    """:func:`fit_constants` for many trees in one numba call: per tree (constants, normalised
    error on (X, y), normalised error on (Xv, yv) (the same points when not given)).

    The same algorithm (variable projection, Levenberg-Marquardt from the same starts, the
    best start wins) run skeleton by skeleton in compiled code, about 20x faster than the
    numpy path; trees with a user-registered function take the numpy path. ``init``: a list
    with, per tree, None or a full constant vector to try first."""
    from ._kernels.fit import fit_skeletons, linear_mask

    X = np.ascontiguousarray(np.asarray(X, dtype=np.float64).reshape(len(X), -1))
    y = np.ascontiguousarray(np.asarray(y, dtype=np.float64).ravel())
    same = Xv is None
    Xv = X if Xv is None else np.ascontiguousarray(np.asarray(Xv, dtype=np.float64).reshape(len(Xv), -1))
    yv = y if yv is None else np.ascontiguousarray(np.asarray(yv, dtype=np.float64).ravel())
    trees = [np.asarray(t, dtype=np.int64) for t in trees]
    out: list = [None] * len(trees)
    if not trees:
        return out
    op, arg, val = _op_table(basis)
    flat = np.concatenate(trees)
    sizes = np.array([t.size for t in trees])
    if sizes.min() < 1 or flat.min() < 1 or flat.max() >= len(basis):
        raise SuperposError("fit_many needs non-empty trees of colour ids 1..|H|-1 of the basis")
    owner = np.repeat(np.arange(len(trees)), sizes)
    bad = np.zeros(len(trees), dtype=bool)
    bad[owner[op[flat] < 0]] = True
    used = max((int(arg[t[op[t] == 0]].max(initial=-1)) for t in trees), default=-1)
    if used >= X.shape[1]:
        raise SuperposError(f"a formula uses x{used + 1} but the data has {X.shape[1]} variables")
    for j in np.flatnonzero(bad):
        sk = Skeleton(trees[j], basis)
        res = fit_constants(sk, X, y, n_starts=n_starts, max_iter=max_iter, tol=tol, random_state=random_state,
                            init=None if init is None else init[j])
        with np.errstate(all="ignore"):
            nv = nmse(yv, np.array(sk.bind(Xv)(res.constants[None])[0])) if np.isfinite(res.nmse) else np.inf
        out[j] = (res.constants, res.nmse, res.nmse if same else nv)
    good = np.flatnonzero(~bad)
    if good.size == 0:
        return out
    trees_g = [trees[j] for j in good]
    flat = np.concatenate(trees_g)
    offsets = np.zeros(len(trees_g) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([t.size for t in trees_g])
    ops = op[flat]
    is_c = ops == 1
    n_c = np.add.reduceat(is_c.astype(np.int64), offsets[:-1]) if flat.size else np.zeros(0, np.int64)
    c_offsets = np.zeros(len(trees_g) + 1, dtype=np.int64)
    c_offsets[1:] = np.cumsum(n_c)
    args = arg[flat].copy()
    running = np.cumsum(is_c) - 1
    args[is_c] = running[is_c] - np.repeat(c_offsets[:-1], np.diff(offsets))[is_c]
    try:
        lin = linear_mask(ops, offsets, c_offsets)
    except ValueError as exc:
        raise SuperposError(f"fit_many: not an admissible tree ({exc})") from None
    n_nl_max = max(1, int(max((np.sum(~lin[a:b]) for a, b in zip(c_offsets[:-1], c_offsets[1:])), default=1)))
    starts = _starts(n_nl_max, n_starts, np.random.default_rng(random_state))
    init_flat = np.zeros(c_offsets[-1])
    has_init = np.zeros(len(trees_g), dtype=bool)
    if init is not None:
        for s, j in enumerate(good):
            v = init[j]
            if v is not None and np.size(v) == n_c[s] and np.all(np.isfinite(v)) and n_c[s]:
                init_flat[c_offsets[s]:c_offsets[s + 1]] = np.asarray(v, dtype=np.float64).ravel()
                has_init[s] = True
    consts, ef, ev = fit_skeletons(ops, args, val[flat], offsets, lin, c_offsets, X, y, Xv, yv, starts,
                                   int(n_starts), init_flat, has_init, int(max_iter), float(tol))
    for s, j in enumerate(good):
        out[j] = (consts[c_offsets[s]:c_offsets[s + 1]].copy(), float(ef[s]), float(ef[s] if same else ev[s]))
    return out
