"""Schema checks of the files superpos reads: a model file's JSON header and classifier
arrays, a corpus file's arrays and a shard folder's manifest.

Every check raises :class:`SchemaError` (a :class:`SuperposError`) with a one-line message
saying what is wrong; the loaders add the file's name and what to do. The bounds are
generous for the models and corpora of the near future (up to ``MAX_VARIABLES`` input
variables, trees of depth ``MAX_DEPTH``, bases of ``MAX_BASIS`` functions) and keep a
crafted file from making superpos hang or allocate gigabytes.
"""
from __future__ import annotations

import math

import numpy as np

from ..core.basis import MAX_VARIABLES, Basis
from ..exceptions import SuperposError

__all__ = ["SchemaError", "MAX_BASIS", "MAX_DEPTH", "MAX_LAYERS", "MAX_SIZE", "MODEL_KINDS", "check_model_header",
           "check_classes", "mlp_arrays", "gbt_arrays", "logistic_arrays", "check_corpus", "check_manifest"]

MAX_BASIS = 64  # functions in a basis (the root h0 not counted)
MAX_DEPTH = 10  # depth of the trees a model decodes or a corpus holds
MAX_SIZE = 200  # nodes of a corpus tree
MAX_LAYERS = 16  # layers of an exported perceptron
MODEL_KINDS = ("gbt", "mlp", "logistic")
ACTIVATIONS = ("relu", "tanh", "logistic", "identity")


class SchemaError(SuperposError):
    """A file's content breaks its schema; the message says what is wrong."""


def _show(value, limit: int = 40) -> str:
    text = " ".join(repr(value).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


# ---------------------------------------------------------------------- JSON values
def json_int(meta: dict, key: str, lo: int, hi: int) -> int:
    v = meta.get(key)
    if type(v) is not int or not lo <= v <= hi:
        raise SchemaError(f"{key} must be an integer in [{lo}, {hi}], got {_show(v)}")
    return v


def json_float(meta: dict, key: str, lo: float, hi: float, *, open_interval: bool = False) -> float:
    v = meta.get(key)
    number = type(v) is int or (type(v) is float and math.isfinite(v))
    ok = number and (lo < v < hi if open_interval else lo <= v <= hi)
    if not ok:
        span = f"({lo}, {hi})" if open_interval else f"[{lo}, {hi}]"
        raise SchemaError(f"{key} must be a number in {span}, got {_show(v)}")
    return float(v)


def json_choice(meta: dict, key: str, choices) -> str:
    v = meta.get(key)
    if not isinstance(v, str) or v not in choices:
        raise SchemaError(f"{key} must be one of {', '.join(choices)}, got {_show(v)}")
    return v


def json_basis(meta: dict) -> Basis:
    names = meta.get("basis")
    if not (isinstance(names, list) and 2 <= len(names) <= MAX_BASIS and all(isinstance(n, str) for n in names)):
        raise SchemaError(f"basis must be a list of 2 to {MAX_BASIS} function names, got {_show(names)}")
    try:
        return Basis(names)
    except SuperposError as exc:
        raise SchemaError(f"basis: {exc}") from None


def check_model_header(meta: dict) -> dict:
    """The model header's values, checked: basis (a Basis), context, max_depth, size_bonus,
    floor, classifier, n_grid and max_variables (in their ranges; the features' own check of
    them is :func:`~superpos.structure.predictor.checked_header`'s)."""
    from .contexts import CONTEXTS

    basis = json_basis(meta)
    if basis.max_arity < 1:
        raise SchemaError("the basis has no function of one or more arguments")
    out = {"basis": basis, "context": json_choice(meta, "context", tuple(CONTEXTS)),
           "max_depth": json_int(meta, "max_depth", 1, MAX_DEPTH),
           "size_bonus": json_float(meta, "size_bonus", -10.0, 10.0),
           "floor": json_float(meta, "floor", 0.0, 1.0, open_interval=True),
           "classifier": json_choice(meta, "classifier", MODEL_KINDS)}
    feats = meta.get("features")
    if not isinstance(feats, dict) or set(feats) != {"n_grid", "max_variables"}:
        raise SchemaError(f"features must be an object with n_grid and max_variables, got {_show(feats)}")
    out["n_grid"] = json_int(feats, "n_grid", 12, 1024)
    out["max_variables"] = json_int(feats, "max_variables", 1, MAX_VARIABLES)
    return out


# ---------------------------------------------------------------------------- arrays
_KIND_NAMES = {"f": "floats", "i": "integers", "b": "booleans", "U": "text"}


def array(arrays: dict, name: str, ndim: int, kinds: str) -> np.ndarray:
    """``arrays[name]`` with ``ndim`` dimensions and a dtype of one of ``kinds`` ("f": float,
    "i": integer, "b": boolean, "U": text; "i" takes unsigned integers, "b" integers 0 / 1)."""
    if name not in arrays:
        raise SchemaError(f"the array {name} is missing")
    a = arrays[name]
    if not isinstance(a, np.ndarray) or a.ndim != ndim:
        raise SchemaError(f"{name} must be a {ndim}-d array, got shape {getattr(a, 'shape', None)}")
    kind = a.dtype.kind
    if kind in kinds or (kind == "u" and "i" in kinds):
        pass
    elif "b" in kinds and kind in "iu" and np.all((a == 0) | (a == 1)):
        return a.astype(np.bool_)
    else:
        wanted = "/".join(_KIND_NAMES[k] for k in kinds)
        raise SchemaError(f"{name} must hold {wanted}, got {a.dtype.str}")
    if kind == "u":
        if a.size and a.max() > np.iinfo(np.int64).max:
            raise SchemaError(f"{name} holds integers out of range")
        return a.astype(np.int64)
    if kind == "f":
        return a.astype(np.float64, copy=False)
    if kind == "i":
        return a.astype(np.int64, copy=False)
    return a


def finite(name: str, a: np.ndarray) -> np.ndarray:
    if not np.all(np.isfinite(a)):
        raise SchemaError(f"{name} holds NaN or infinite values")
    return a


def scalar_int(arrays: dict, name: str, lo: int, hi: int) -> int:
    v = int(array(arrays, name, 0, "i"))
    if not lo <= v <= hi:
        raise SchemaError(f"{name} must be in [{lo}, {hi}], got {v}")
    return v


def check_classes(classes: np.ndarray, n_colours: int | None = None) -> np.ndarray:
    """Class ids: at least 2, unique and sorted; with ``n_colours``, each a child colour
    1..n_colours - 1 (colour 0 is the root h0, never a child)."""
    if len(classes) < 2 or np.any(np.diff(classes) <= 0):
        raise SchemaError(f"classes_ must be at least 2 unique sorted ids, got {_show(classes.tolist())}")
    if n_colours is not None and (classes[0] < 1 or classes[-1] >= n_colours):
        raise SchemaError(f"classes_ must be colours 1..{n_colours - 1} of the basis, got {_show(classes.tolist())}")
    return classes


def _out_width(n_classes: int) -> int:
    return 1 if n_classes == 2 else n_classes


def mlp_arrays(arrays: dict, prefix: str) -> tuple:
    """(classes, mean, scale, weights, biases, activation) of a perceptron, shapes chained."""
    classes = check_classes(array(arrays, f"{prefix}classes_", 1, "i"))
    n_layers = scalar_int(arrays, f"{prefix}n_layers", 1, MAX_LAYERS)
    act = str(array(arrays, f"{prefix}activation", 0, "U"))
    if act not in ACTIVATIONS:
        raise SchemaError(f"unsupported MLP activation {_show(act)}")
    mean = finite(f"{prefix}mean", array(arrays, f"{prefix}mean", 1, "f"))
    scale = finite(f"{prefix}scale", array(arrays, f"{prefix}scale", 1, "f"))
    if len(scale) != len(mean) or not np.all(scale > 0):
        raise SchemaError(f"{prefix}scale must be {len(mean)} positive numbers, like {prefix}mean")
    weights, biases, width = [], [], len(mean)
    for k in range(n_layers):
        w = finite(f"{prefix}W{k}", array(arrays, f"{prefix}W{k}", 2, "f"))
        b = finite(f"{prefix}b{k}", array(arrays, f"{prefix}b{k}", 1, "f"))
        if w.shape[0] != width or w.shape[1] != len(b) or len(b) < 1:
            raise SchemaError(f"layer {k}: {prefix}W{k} {w.shape} and {prefix}b{k} {b.shape} do not chain "
                              f"from an input of width {width}")
        weights.append(w)
        biases.append(b)
        width = len(b)
    if width != _out_width(len(classes)):
        raise SchemaError(f"the last layer has {width} outputs for {len(classes)} classes")
    return classes, mean, scale, weights, biases, act


_GBT_KINDS = {"baseline": "f", "feature": "i", "threshold": "f", "missing_left": "b", "left": "i", "right": "i",
              "is_leaf": "b", "value": "f", "tree_offsets": "i"}


def gbt_arrays(arrays: dict, prefix: str) -> dict:
    """The node arrays of a boosted ensemble, checked so that every walk down a tree ends
    at a leaf of that tree; "n_in" is the input width the features need."""
    out = {k: array(arrays, f"{prefix}{k}", 1, kinds) for k, kinds in _GBT_KINDS.items()}
    out["classes_"] = check_classes(array(arrays, f"{prefix}classes_", 1, "i"))
    n_classes = out["n_classes"] = scalar_int(arrays, f"{prefix}n_classes", 2, 1 << 16)
    if n_classes != len(out["classes_"]) or len(out["baseline"]) != _out_width(n_classes):
        raise SchemaError(f"{n_classes} classes do not match classes_ ({len(out['classes_'])}) and "
                          f"baseline ({len(out['baseline'])})")
    finite(f"{prefix}baseline", out["baseline"])
    finite(f"{prefix}value", out["value"])
    n = len(out["feature"])
    if n < 1 or any(len(out[k]) != n for k in ("threshold", "missing_left", "left", "right", "is_leaf", "value")):
        raise SchemaError("the node arrays must have one and the same length >= 1")
    off = out["tree_offsets"]
    if len(off) < 2 or off[0] != 0 or off[-1] != n or np.any(np.diff(off) <= 0):
        raise SchemaError(f"{prefix}tree_offsets must rise strictly from 0 to the {n} nodes")
    if (len(off) - 1) % len(out["baseline"]):
        raise SchemaError(f"{len(off) - 1} trees are not a whole number of rounds of {len(out['baseline'])}")
    sizes = np.diff(off)
    local = np.arange(n) - np.repeat(off[:-1], sizes)
    size = np.repeat(sizes, sizes)
    inner = ~out["is_leaf"]
    for side in ("left", "right"):
        child = out[side][inner]
        if np.any(child <= local[inner]) or np.any(child >= size[inner]):
            raise SchemaError(f"{prefix}{side} points outside its tree or backwards")
    if np.any(out["feature"][inner] < 0) or np.any(np.isnan(out["threshold"][inner])):
        raise SchemaError("a split has a negative feature index or a NaN threshold")
    out["n_in"] = int(out["feature"][inner].max()) + 1 if inner.any() else 0
    return out


def logistic_arrays(arrays: dict, prefix: str) -> tuple:
    """(classes, coef, intercept) of a logistic regression."""
    classes = check_classes(array(arrays, f"{prefix}classes_", 1, "i"))
    coef = finite(f"{prefix}coef_", array(arrays, f"{prefix}coef_", 2, "f"))
    intercept = finite(f"{prefix}intercept_", array(arrays, f"{prefix}intercept_", 1, "f"))
    rows = _out_width(len(classes))
    if coef.shape[0] != rows or len(intercept) != rows or coef.shape[1] < 1:
        raise SchemaError(f"{prefix}coef_ {coef.shape} and {prefix}intercept_ {intercept.shape} do not fit "
                          f"{len(classes)} classes")
    return classes, coef, intercept


# ---------------------------------------------------------------------------- corpus
def _offsets(name: str, off: np.ndarray, n: int, length: int) -> None:
    if len(off) != n + 1 or off[0] != 0 or np.any(np.diff(off) < 0) or off[-1] != length:
        raise SchemaError(f"inconsistent offsets {name}")


def check_corpus(z: dict, meta: dict) -> dict:
    """A corpus file's fields, checked: trees admissible over the basis, offsets consistent,
    data sets of the basis's width."""
    basis = json_basis(meta)
    out = {"basis": basis, "max_depth": json_int(meta, "max_depth", 1, MAX_DEPTH),
           "max_size": json_int(meta, "max_size", 1, MAX_SIZE)}
    for name in ("tree_offsets", "const_offsets", "point_offsets"):
        out[name] = array(z, name, 1, "i")
    out["tree_flat"] = array(z, "tree_flat", 1, "i")
    out["const_flat"] = array(z, "const_flat", 1, "f")
    out["y_flat"] = array(z, "y_flat", 1, "f")
    X = out["X_flat"] = array(z, "X_flat", 2, "f")
    n = len(out["tree_offsets"]) - 1
    if n < 0:
        raise SchemaError("tree_offsets is empty")
    _offsets("tree_offsets", out["tree_offsets"], n, len(out["tree_flat"]))
    _offsets("const_offsets", out["const_offsets"], n, len(out["const_flat"]))
    _offsets("point_offsets", out["point_offsets"], n, len(out["y_flat"]))
    if np.any(np.diff(out["point_offsets"]) < 1):
        raise SchemaError("a data set has no points")
    m = basis.n_variables
    if X.shape != (len(out["y_flat"]), m):
        raise SchemaError(f"X_flat has shape {X.shape}, expected ({len(out['y_flat'])}, {m})")
    counts = out["var_counts"] = array(z, "var_counts", 1, "i") if "var_counts" in z else None
    if counts is not None and (len(counts) != n or np.any(counts < 1) or np.any(counts > m)):
        raise SchemaError(f"var_counts must be {n} numbers of variables in [1, {m}]")
    if not admissible_forest(out["tree_flat"], out["tree_offsets"], basis.arities):
        raise SchemaError("a tree is not admissible over the basis")
    return out


def admissible_forest(flat: np.ndarray, offsets: np.ndarray, arities: np.ndarray) -> bool:
    """:func:`superpos.core.tree.is_admissible` of every tree flat[offsets[k]:offsets[k + 1]] at once."""
    sizes = np.diff(offsets)
    if np.any(sizes < 1) or np.any(flat < 1) or np.any(flat >= len(arities)):
        return False
    if not len(flat):
        return True
    need = np.cumsum(arities[flat] - 1)  # open slots after each node, less the tree's start
    start = np.repeat(np.concatenate([[0], need[offsets[1:-1] - 1]]), sizes)
    need = 1 + need - start
    last = np.zeros(len(flat), dtype=bool)
    last[offsets[1:] - 1] = True
    return bool(np.all(need[last] == 0) and np.all(need[~last] > 0))


def check_manifest(manifest, version: int) -> list[tuple[str, int]]:
    """The shards [(file name, formulas)] a corpus folder's manifest lists."""
    if not isinstance(manifest, dict) or manifest.get("format") != "superpos-corpus-shards":
        raise SchemaError("not a corpus manifest")
    v = manifest.get("version")
    if type(v) is not int or v < 0:
        raise SchemaError(f"version must be an integer >= 0, got {_show(v)}")
    if v > version:
        raise SuperposError(f"corpus format {v} is newer than this superpos reads ({version}); upgrade superpos")
    shards = manifest.get("shards")
    if not isinstance(shards, list):
        raise SchemaError("shards must be a list")
    out = []
    for s in shards:
        name = s.get("file") if isinstance(s, dict) else None
        n = s.get("n") if isinstance(s, dict) else None
        if not (isinstance(name, str) and name.endswith(".npz") and 4 < len(name) <= 255 and "/" not in name
                and "\\" not in name and ".." not in name and "\0" not in name and ":" not in name):
            raise SchemaError(f"shard file {_show(name)} is not a plain .npz name in the folder")
        if type(n) is not int or n < 0:
            raise SchemaError(f"shard {name}: n must be an integer >= 0, got {_show(n)}")
        out.append((name, n))
    return out
