"""Prefix-array trees: admissibility, contexts, edge vectors, evaluation, sympy round trips."""
from __future__ import annotations

import math
import os
import warnings

import networkx as nx
import numpy as np
import pytest
import sympy
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from superpos import SuperposError
from superpos.core import symbolic as S
from superpos.core import tree as T
from superpos.core.basis import Basis
from superpos.exceptions import NotRepresentable

# SUPERPOS_HYPOTHESIS_EXAMPLES=2000 for a longer bug hunt
SETTINGS = settings(max_examples=int(os.environ.get("SUPERPOS_HYPOTHESIS_EXAMPLES", 60)), deadline=None,
                    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])

B1 = Basis.default(1)
B2 = Basis.default(2)
AR1 = B1.arities
ADD, SUB, MUL, DIV, NEG, SIN, COS, EXP, LOG, SQRT, POW2, POW3 = (
    B1.index(n) for n in ["add", "sub", "mul", "div", "neg", "sin", "cos", "exp", "log", "sqrt", "pow2", "pow3"])
X1, C, ONE, TWO = (B1.index(n) for n in ["x1", "c", "1", "2"])
EX = [ADD, X1, SIN, X1]  # add(x1, sin(x1))


def test_default_basis_layout():
    assert B1.names[0] == "h0" and AR1[0] == 1
    assert len(B1) == 17
    assert T.to_string(EX, B1) == "add(x1, sin(x1))"
    assert T.from_string("add(x1, sin(x1))", B1).tolist() == EX


# ------------------------------------------------------------------ admissibility, depth, size

@pytest.mark.parametrize("tree", [
    [],                          # empty
    np.array([], dtype=np.int64),
    [X1, X1],                    # extra node after a complete tree
    [ADD, X1, X1, X1],           # extra node
    [SIN, X1, X1],
    [ADD, X1],                   # missing child
    [SIN],                       # missing child
    [ADD, SIN, X1],              # missing second argument of add
    [0],                         # the root colour inside the tree
    [ADD, 0, X1],
    [SIN, 0],
    [-1],                        # colours out of range
    [len(B1)],
    [ADD, X1, len(B1) + 3],
])
def test_not_admissible(tree):
    assert not T.is_admissible(tree, AR1)
    with pytest.raises(SuperposError):
        T.edge_contexts(tree, AR1)
    with pytest.raises(SuperposError):
        S.to_sympy(tree, B1)
    with pytest.raises(SuperposError):
        T.evaluate(tree, B1, np.zeros((3, 1)))


@pytest.mark.parametrize("tree,depth,size", [
    ([X1], 1, 1),
    ([C], 1, 1),
    ([SIN, X1], 2, 2),
    (EX, 3, 4),
    ([ADD, X1, X1], 2, 3),
    ([ADD, SIN, COS, X1, ONE], 4, 5),
    ([MUL, ADD, X1, X1, ADD, X1, SIN, SIN, X1], 5, 9),
])
def test_admissible_depth_size(tree, depth, size):
    assert T.is_admissible(tree, AR1)
    assert T.is_admissible(np.array(tree, dtype=np.int32), AR1)
    assert T.tree_depth(tree, AR1) == depth
    assert T.tree_size(tree) == size


def test_edge_contexts_hand_worked():
    # rows (depth, grandparent, parent, position, child) for add(x1, sin(x1))
    rows = T.edge_contexts(EX, AR1)
    assert rows.dtype == np.int64
    assert rows.tolist() == [
        [1, 0, 0, 0, ADD],    # h0 -> add
        [2, 0, ADD, 0, X1],   # add -> x1, first argument; grandparent h0
        [2, 0, ADD, 1, SIN],  # add -> sin, second argument
        [3, ADD, SIN, 0, X1],  # sin -> x1, grandparent add
    ]


def test_edge_contexts_deeper():
    # sub(mul(x1, 2), neg(cos(c)))
    t = [SUB, MUL, X1, TWO, NEG, COS, C]
    assert T.edge_contexts(t, AR1).tolist() == [
        [1, 0, 0, 0, SUB],
        [2, 0, SUB, 0, MUL],
        [3, SUB, MUL, 0, X1],
        [3, SUB, MUL, 1, TWO],
        [2, 0, SUB, 1, NEG],
        [3, SUB, NEG, 0, COS],
        [4, NEG, COS, 0, C],
    ]


def test_edge_vector_and_hamming_loss():
    H = len(B1)
    v = T.edge_vector(EX, AR1)
    assert v.shape == (H * H,)
    assert sorted(np.flatnonzero(v).tolist()) == sorted([0 * H + ADD, ADD * H + X1, ADD * H + SIN, SIN * H + X1])
    assert set(np.unique(v).tolist()) == {0, 1}
    assert T.hamming_loss(EX, EX, AR1) == 0
    assert T.hamming_loss(EX, list(EX), AR1) == 0
    # add(x1, x1) lacks add->sin and sin->x1
    assert T.hamming_loss(EX, [ADD, X1, X1], AR1) == 2
    # sin(x1) vs cos(x1): 4 edges, none shared
    assert T.hamming_loss([SIN, X1], [COS, X1], AR1) == 4
    # add(x1, sin(x1)) vs mul(x1, sin(x1)): only sin->x1 is shared
    assert T.hamming_loss(EX, [MUL, X1, SIN, X1], AR1) == 6
    # the edge vector is a set: argument order and repeats do not count
    assert T.hamming_loss(EX, [ADD, SIN, X1, X1], AR1) == 0
    assert T.hamming_loss([ADD, X1, X1], [ADD, X1, ADD, X1, X1], AR1) == 1
    # symmetric
    assert T.hamming_loss([MUL, X1, SIN, X1], EX, AR1) == 6


# ------------------------------------------------------------------ random trees

@st.composite
def random_trees(draw, basis: Basis = B1, max_depth: int = 4) -> np.ndarray:
    """Random admissible prefix arrays of depth <= max_depth."""
    ar = basis.arities
    colours = list(range(1, len(basis)))
    leaves = [c for c in colours if ar[c] == 0]

    def node(depth: int) -> list[int]:
        c = draw(st.sampled_from(leaves if depth >= max_depth else colours))
        out = [c]
        for _ in range(int(ar[c])):
            out += node(depth + 1)
        return out

    return np.array(node(1), dtype=np.int64)


def default_constants(tree, basis=B1) -> list[float]:
    return [1.2345 + 0.1 * k for k in range(int(np.sum(np.asarray(tree) == basis.constant)))]


@SETTINGS
@given(random_trees())
def test_random_trees_basic_properties(t):
    assert T.is_admissible(t, AR1)
    assert 1 <= T.tree_depth(t, AR1) <= 4
    assert T.from_string(T.to_string(t, B1), B1).tolist() == t.tolist()
    rows = T.edge_contexts(t, AR1)
    assert rows.shape == (t.size, 5)
    assert rows[:, 4].tolist() == t.tolist()
    assert T.tree_depth(t, AR1) == rows[:, 0].max()
    # contexts agree with the networkx graph
    g = T.to_networkx(t, B1)
    assert g.number_of_nodes() == t.size + 1 and g.number_of_edges() == t.size
    assert nx.is_arborescence(g)
    depth = nx.single_source_shortest_path_length(g, 0)
    for k in range(t.size):
        (u,) = list(g.predecessors(k + 1))
        gp = 0 if u == 0 else g.nodes[next(iter(g.predecessors(u)))]["colour"]
        assert rows[k].tolist() == [depth[k + 1], gp, g.nodes[u]["colour"], g.edges[u, k + 1]["position"],
                                    g.nodes[k + 1]["colour"]]
    # every edge of the edge vector is an edge of the tree
    v = T.edge_vector(t, AR1)
    H = len(B1)
    assert set(np.flatnonzero(v).tolist()) == {int(i) * H + int(j) for i, j in rows[:, [2, 4]]}
    assert T.hamming_loss(t, t, AR1) == 0


# ------------------------------------------------------------------ evaluation

def test_evaluate_hand_worked():
    X = np.array([[0.0], [1.0], [-2.0]])
    y = T.evaluate(EX, B1, X)
    assert y == pytest.approx(X[:, 0] + np.sin(X[:, 0]))
    # constants fill the c leaves in prefix order: sub(c, mul(c, x1)) = 3 - 5 x1
    y = T.evaluate([SUB, C, MUL, C, X1], B1, X, constants=[3.0, 5.0])
    assert y == pytest.approx(3 - 5 * X[:, 0])
    assert T.evaluate([TWO], B1, X).tolist() == [2.0, 2.0, 2.0]
    with pytest.raises(SuperposError):
        T.evaluate([SUB, C, MUL, C, X1], B1, X, constants=[3.0])
    with pytest.raises(SuperposError):
        T.evaluate([B2.index("x2")], B2, X)  # x2 but one data column


def test_evaluate_protected_operations_give_nan_not_exceptions():
    x = np.array([0.0, -math.e, 1.0, 4.0, -4.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # not even a RuntimeWarning
        log = T.evaluate([LOG, X1], B1, x)
        div = T.evaluate([DIV, ONE, X1], B1, x)
        div0 = T.evaluate([DIV, X1, SUB, X1, X1], B1, x)
        sqrt = T.evaluate([SQRT, X1], B1, x)
        big = T.evaluate([EXP, EXP, EXP, X1], B1, np.array([10.0, 0.0]))
        logsqrt = T.evaluate([LOG, SQRT, X1], B1, x)
    assert math.isnan(log[0])                        # log 0
    assert log[1:].tolist() == pytest.approx([1.0, 0.0, math.log(4), math.log(4)])  # log |x|
    assert math.isnan(div[0])                        # 1 / 0
    assert div[1:].tolist() == pytest.approx([-1 / math.e, 1.0, 0.25, -0.25])
    assert np.all(np.isnan(div0))                    # x / (x - x)
    assert sqrt.tolist() == pytest.approx([0.0, math.sqrt(math.e), 1.0, 2.0, 2.0])  # sqrt |x|, finite at 0
    assert big[0] == math.inf and big[1] == pytest.approx(math.exp(math.exp(1.0)))
    assert math.isnan(logsqrt[0])


# ------------------------------------------------------------------ networkx

def test_to_networkx_hand_worked():
    g = T.to_networkx(EX, B1, edge_probabilities=[0.5, 0.25, 0.125, 1.0])
    assert isinstance(g, nx.DiGraph)
    assert g.number_of_nodes() == T.tree_size(EX) + 1
    assert [g.nodes[k]["colour"] for k in range(5)] == [0, ADD, X1, SIN, X1]
    assert [g.nodes[k]["name"] for k in range(5)] == ["h0", "add", "x1", "sin", "x1"]
    assert {(u, v): d["position"] for u, v, d in g.edges(data=True)} == {
        (0, 1): 0, (1, 2): 0, (1, 3): 1, (3, 4): 0}
    assert {(u, v): d["probability"] for u, v, d in g.edges(data=True)} == {
        (0, 1): 0.5, (1, 2): 0.25, (1, 3): 0.125, (3, 4): 1.0}
    leaf = T.to_networkx([X1], B1)
    assert leaf.number_of_nodes() == 2 and list(leaf.edges(data="position")) == [(0, 1, 0)]


# ------------------------------------------------------------------ sympy

EXPRESSIONS = [
    ("x1**2", 1, "pow2(x1)"),
    ("x1 - x2", 2, "sub(x1, x2)"),
    ("sin(x1)+sin(x1**2)", 1, None),
    ("log(x1+1)", 1, None),
    ("sqrt(x1)", 1, "sqrt(x1)"),
    ("exp(x1)*x1", 1, None),
    ("1/(x1+1)", 1, None),
    ("x1/2", 1, "mul(c, x1)"),
    ("-x1", 1, "neg(x1)"),
    ("2*sin(x1)*cos(x2)", 2, None),
    ("x1**6 + x1", 1, None),
    # a power shared by factors is one node: sympy writes ((x2 - x3) / x1)^2 as (x2 - x3)^2 / x1^2
    ("exp(-(x2 - x3)**2/(2*x1**2))/x1", 3, "div(exp(mul(c, pow2(div(sub(x2, x3), x1)))), x1)"),
    ("x1**2*x2**2", 2, "pow2(mul(x1, x2))"),
    ("3*x1**2*x2**3/x3**2", 3, "mul(mul(c, pow3(x2)), pow2(div(x1, x3)))"),
    ("x3/(x1**3*x2**3)", 3, "div(x3, pow3(mul(x1, x2)))"),
    ("-x1**2/x2**2 + x1", 2, None),
    # and so is a root (of |u|, as the tree's): sqrt|x1| / sqrt|x2| = sqrt|x1 / x2|
    ("sqrt(x1)/sqrt(x2)", 2, "sqrt(div(x1, x2))"),
    ("2*sqrt(Abs(x1))*sqrt(Abs(x2))*sqrt(Abs(3 - x3/(x1*x2)))", 3, "mul(2, sqrt(mul(mul(x1, x2), sub(c, div(x3, mul(x1, x2))))))"),
]


def _numpy_of(expr, basis):
    return sympy.lambdify(basis.variables, expr, modules="numpy")


@pytest.mark.parametrize("text,n_variables,expected", EXPRESSIONS)
def test_from_sympy_expressions(text, n_variables, expected):
    b = Basis.default(n_variables)
    t, consts = S.from_sympy(text, b)
    assert T.is_admissible(t, b.arities)
    assert len(consts) == int(np.sum(t == b.constant))
    if expected is not None:
        assert T.to_string(t, b) == expected
    if text == "x1/2":
        assert float(consts[0]) == 0.5
    rendered = S.to_sympy(t, b, consts)
    X = np.random.default_rng(0).uniform(-3, 3, size=(64, n_variables))
    with np.errstate(all="ignore"):
        y_tree = T.evaluate(t, b, X, consts)
        y_rendered = np.broadcast_to(np.asarray(_numpy_of(rendered, b)(*X.T), dtype=float), (64,))
        y_original = np.broadcast_to(np.asarray(_numpy_of(sympy.sympify(text, locals={str(v): v for v in b.variables}),
                                                          b)(*X.T), dtype=float), (64,))
    ok = np.isfinite(y_tree) & np.isfinite(y_rendered)
    assert ok.sum() >= 32
    np.testing.assert_allclose(y_rendered[ok], y_tree[ok], rtol=1e-10, atol=1e-12)
    # where the original expression is defined (real, finite) the tree computes it
    ok = np.isfinite(y_tree) & np.isfinite(y_original)
    assert ok.sum() >= 16
    np.testing.assert_allclose(y_original[ok], y_tree[ok], rtol=1e-10, atol=1e-12)


def test_from_sympy_accepts_foreign_symbols_and_rejects_the_unknown():
    x1 = sympy.Symbol("x1")  # not the basis's real symbol
    t, consts = S.from_sympy(sympy.sin(x1) * 3, B1)
    assert T.to_string(t, B1) == "mul(c, sin(x1))" and consts == [3]
    with pytest.raises(SuperposError, match="unknown name"):
        S.from_sympy("x1 + y", B1)  # strings are parsed with a whitelist, never evaluated
    with pytest.raises(SuperposError, match="unknown name"):
        S.from_sympy("__import__('os').getpid() * x1", B1)
    with pytest.raises(NotRepresentable):
        S.from_sympy("tan(x1)", B1)
    with pytest.raises(NotRepresentable):
        S.from_sympy("x1 - x1", B1)  # 0 has no leaf
    with pytest.raises(NotRepresentable):
        S.from_sympy("x2", B1)


def _values(expr, subs: dict):
    """expr at subs with 30 digits, or None where it is not a finite real number."""
    try:
        v = complex(expr.evalf(30, subs=subs))
    except (TypeError, ValueError, ZeroDivisionError):
        return None
    if not (math.isfinite(v.real) and math.isfinite(v.imag)) or abs(v.imag) > 1e-12 * max(1.0, abs(v.real)):
        return None
    return v.real


def assert_same_function(e0, e1, basis=B1, n_points: int = 6, seed: int = 0):
    """Numeric equality of two expressions at random points (and random values of
    the symbolic constants c0, c1, ...); points where either is undefined are skipped."""
    if e0 == e1:
        return
    rng = np.random.default_rng(seed)
    syms = sorted(e0.free_symbols | e1.free_symbols, key=str)
    compared = 0
    for _ in range(n_points):
        subs = {s: sympy.Float(rng.uniform(-2.5, 2.5) if str(s).startswith("x") else rng.uniform(0.5, 2.0), 30)
                for s in syms}
        a, b = _values(e0, subs), _values(e1, subs)
        if a is None or b is None:
            continue
        compared += 1
        assert math.isclose(a, b, rel_tol=1e-7, abs_tol=1e-9), (e0, e1, subs, a, b)
    return compared


@SETTINGS
@given(random_trees(), st.booleans())
def test_sympy_round_trip_is_the_same_function(t, symbolic_constants):
    """tree -> to_sympy -> from_sympy -> to_sympy renders the same function."""
    consts = None if symbolic_constants else default_constants(t)
    e0 = S.to_sympy(t, B1, consts)
    try:
        t1, c1 = S.from_sympy(e0, B1)
    except NotRepresentable:
        assume(False)
    assert T.is_admissible(t1, AR1)
    assert len(c1) == int(np.sum(t1 == B1.constant))
    e1 = S.to_sympy(t1, B1, c1)
    assert_same_function(e0, e1)


@SETTINGS
@given(random_trees())
def test_canonical_trees_are_fixed_points(t):
    try:
        t1, c1 = S.canonicalize(t, B1)
    except NotRepresentable:
        assume(False)
    assert T.is_admissible(t1, AR1)
    assert len(c1) == int(np.sum(t1 == B1.constant))
    t2, c2 = S.canonicalize(t1, B1, c1)
    assert t2.tolist() == t1.tolist(), (T.to_string(t1, B1), T.to_string(t2, B1))
    np.testing.assert_allclose(np.array([float(v) for v in c2]), np.array([float(v) for v in c1]),
                               rtol=1e-12, equal_nan=True)
    # and canonicalisation keeps the function
    assert_same_function(S.to_sympy(t, B1, default_constants(t)), S.to_sympy(t1, B1, c1))


def test_canonical_labels_keep_each_factors_power():
    """The corpus labels (the trees the shipped model decodes) keep x1^2 / x2^2 as two powers;
    the trees the search builds from sympy share one."""
    b = Basis.default(2)
    e = sympy.sympify("x1**2/x2**2", locals={str(v): v for v in b.variables})
    label, _ = S.canonicalize(S.from_sympy(e, b)[0], b)
    assert T.to_string(label, b) == "div(pow2(x1), pow2(x2))"
    assert T.to_string(S.from_sympy(e, b)[0], b) == "pow2(div(x1, x2))"
