"""Colored trees as flat prefix arrays of colour ids.

A tree is a 1-d integer array listing the colours of the formula's nodes in
prefix (pre-order) order; the identity root h0 (colour 0) is implicit above
the first node. ``add(x1, sin(x1))`` over the default basis is
``[add, x1, sin, x1]``. Depth counts the nodes on the longest root-to-leaf path
(a lone leaf has depth 1); size counts the nodes (h0 excluded).
Rendering to and from sympy is :mod:`superpos.core.symbolic`.
"""
from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

import numpy as np

from ..exceptions import SuperposError
from .basis import Basis

if TYPE_CHECKING:
    import networkx

__all__ = [
    "is_admissible", "check_tree", "children", "subtree_ends", "tree_depth", "tree_size", "edge_contexts", "evaluate",
    "to_networkx", "edge_vector", "hamming_loss", "to_string", "from_string", "enumerate_trees",
]


def _as_tree(tree) -> np.ndarray:
    return np.asarray(tree, dtype=np.int64).ravel()


def is_admissible(tree, arities: np.ndarray) -> bool:
    """True when every node has exactly arity(colour) children, leaves are zero-arity
    and the root h0 does not reappear inside the tree."""
    t = _as_tree(tree)
    if t.size == 0 or np.any(t < 1) or np.any(t >= len(arities)):
        return False
    need = 1
    for c in t:
        if need == 0:
            return False
        need += arities[c] - 1
    return need == 0


def check_tree(tree, arities) -> np.ndarray:
    """The tree as an int64 prefix array; :class:`SuperposError` when it is not admissible."""
    t = _as_tree(tree)
    if not is_admissible(t, arities):
        raise SuperposError(f"not an admissible tree: {t.tolist()}")
    return t


def edge_contexts(tree, arities: np.ndarray) -> np.ndarray:
    """One row per edge (the root edge included): (depth, grandparent, parent, position, child).

    ``depth`` is the child's depth (1 under h0); the grandparent of a depth-1 or depth-2
    node is h0 (colour 0).
    """
    t = check_tree(tree, arities)
    rows = np.empty((t.size, 5), dtype=np.int64)
    # stack of (colour, parent colour, depth, next child position)
    stack = [[0, 0, 0, 0]]
    for k, c in enumerate(t):
        while stack[-1][3] >= arities[stack[-1][0]]:
            stack.pop()
        top = stack[-1]
        rows[k] = (top[2] + 1, top[1], top[0], top[3], c)
        top[3] += 1
        stack.append([c, top[0], top[2] + 1, 0])
    return rows


def tree_depth(tree, arities: np.ndarray) -> int:
    return int(edge_contexts(tree, arities)[:, 0].max())


def tree_size(tree) -> int:
    return int(_as_tree(tree).size)


def edge_vector(tree, arities: np.ndarray) -> np.ndarray:
    """Seed 003's binary vector y_ij = 1 when some edge goes from colour i to colour j
    (dimension |H|^2, flattened row-major)."""
    e = edge_contexts(tree, arities)
    n = len(arities)
    v = np.zeros(n * n, dtype=np.int8)
    v[e[:, 2] * n + e[:, 4]] = 1
    return v


def hamming_loss(tree_a, tree_b, arities: np.ndarray) -> int:
    """Delta(y, y') = sum_ij |y_ij - y'_ij| over the edge-indicator vectors."""
    return int(np.sum(edge_vector(tree_a, arities) != edge_vector(tree_b, arities)))


def children(t: np.ndarray, arities: np.ndarray) -> list[list[int]]:
    """For each node of an admissible prefix array, the positions of its children in ``t``."""
    kids: list[list[int]] = [[] for _ in range(t.size)]
    stack: list[int] = []
    for k, c in enumerate(t):
        if stack:
            kids[stack[-1]].append(k)
            while stack and len(kids[stack[-1]]) == arities[t[stack[-1]]]:
                stack.pop()
        if arities[c] > 0:
            stack.append(k)
    return kids


def subtree_ends(tree, arities: np.ndarray) -> np.ndarray:
    """end[k]: one past the last node of the subtree rooted at k, for an admissible prefix array."""
    t = _as_tree(tree)
    end = np.empty(t.size, dtype=np.int64)
    stack: list[list[int]] = []
    for k, c in enumerate(t):
        if arities[c]:
            stack.append([k, int(arities[c])])
            continue
        end[k] = k + 1
        while stack:
            stack[-1][1] -= 1
            if stack[-1][1]:
                break
            end[stack.pop()[0]] = k + 1
    return end


def evaluate(tree, basis: Basis, X: np.ndarray, constants=None) -> np.ndarray:
    """Evaluate the tree on points X (n, m) with numpy; ``constants`` fill the ``c``
    leaves and the nodes' own constants (``powc``'s exponent) in prefix order. Domain errors
    give NaN or inf, never an exception."""
    t = check_tree(tree, basis.arities)
    X = np.asarray(X, dtype=np.float64)
    if X.ndim == 1:
        X = X[:, None]
    n = X.shape[0]
    consts = [] if constants is None else [float(v) for v in np.ravel(constants)]
    n_c = basis.n_constants(t)
    if len(consts) != n_c:
        raise SuperposError(f"the tree has {n_c} constants but {len(consts)} values were given")
    ci = n_c
    stack: list[np.ndarray] = []
    with np.errstate(all="ignore"):
        for c in t[::-1]:
            f = basis.functions[c]
            if f.kind == "variable":
                if f.index >= X.shape[1]:
                    raise SuperposError(f"the formula uses {f.name} but the data has {X.shape[1]} variables")
                stack.append(X[:, f.index])
            elif f.kind == "number":
                stack.append(np.full(n, f.value))
            elif f.kind == "constant":
                ci -= 1
                stack.append(np.full(n, consts[ci]))
            else:
                args = [stack.pop() for _ in range(f.arity)]
                if f.fitted:
                    ci -= 1
                    args.append(consts[ci])
                stack.append(np.asarray(f.numpy(*args), dtype=np.float64))
    return np.array(stack[0], dtype=np.float64)


def to_string(tree, basis: Basis) -> str:
    """Functional notation, e.g. ``add(x1, sin(x1))``."""
    t = check_tree(tree, basis.arities)
    stack: list[str] = []
    for c in t[::-1]:
        f = basis.functions[c]
        args = [stack.pop() for _ in range(f.arity)]
        stack.append(f"{f.name}({', '.join(args)})" if args else f.name)
    return stack[0]


def from_string(text: str, basis: Basis) -> np.ndarray:
    """Inverse of :func:`to_string`."""
    tokens = text.replace("(", " ( ").replace(")", " ) ").replace(",", " ").split()
    out = [basis.index(tok) for tok in tokens if tok not in "()"]
    return check_tree(out, basis.arities)


def to_networkx(tree, basis: Basis, edge_probabilities=None) -> networkx.DiGraph:
    """Directed graph with node 0 = h0 and node k + 1 = tree[k]; node attributes
    ``colour`` (id) and ``name``, edge attribute ``position`` (argument index) and,
    when given, ``probability`` (one value per node, the probability of its incoming edge)."""
    t = check_tree(tree, basis.arities)
    import networkx as nx  # only here: keeps it out of the start-up of every command

    g = nx.DiGraph()
    g.add_node(0, colour=0, name=basis.names[0])
    for k, c in enumerate(t):
        g.add_node(k + 1, colour=int(c), name=basis.names[c])
    g.add_edge(0, 1, position=0)
    for parent, kids in enumerate(children(t, basis.arities)):
        for p, child in enumerate(kids):
            g.add_edge(parent + 1, child + 1, position=p)
    if edge_probabilities is not None:
        for k, pr in enumerate(np.ravel(edge_probabilities)):
            (u,) = list(g.predecessors(k + 1))
            g.edges[u, k + 1]["probability"] = float(pr)
    return g


def enumerate_trees(arities, max_depth: int, max_trees: int = 10_000) -> list[list[int]]:
    """Every admissible tree (prefix list, root excluded) of depth <= ``max_depth``, for
    exhaustive checks on small bases; ValueError beyond ``max_trees`` trees at some depth."""
    H = len(arities)
    cache: dict[int, list[list[int]]] = {}

    def at(depth: int) -> list[list[int]]:
        if depth not in cache:
            out = []
            for c in range(1, H):
                a = int(arities[c])
                if a == 0:
                    out.append([c])
                elif depth < max_depth:
                    for kids in itertools.product(at(depth + 1), repeat=a):
                        out.append([c] + [v for k in kids for v in k])
                if len(out) > max_trees:
                    raise ValueError("too many trees to enumerate")
            cache[depth] = out
        return cache[depth]

    return at(1)
