"""The decoder against brute-force enumeration and the plain-Python reference twins.

Score tensors come in the three context shapes of ``superpos.structure.decode``:

* ``parent``      -- (H, H) parent-only scores, i.e. G = 1 with Dd = 1 and A = 1 broadcast;
* ``depth_pos``   -- (D, H, A, H): G = 1, full depth and argument position;
* ``grandparent`` -- (D, H, H, A, H): G = H;
* ``ragged``      -- a 5-axis tensor with random Dd (shorter or longer than the depth bound),
  A in {1, 2} and G in {1, H}, to exercise broadcasting.

Scores are float64 in [-5, 0] (log-probability-like) or in [-3, 3] (S-SVM-like additive
scores); some examples round them to integers (many exact ties) or knock out entries
with -inf (zero probabilities).
"""
from __future__ import annotations

import math
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from superpos import SuperposError
import twins
from superpos import _kernels
from superpos.structure import decode as D
from superpos.core import tree as T
from superpos.core.basis import Basis

# SUPERPOS_HYPOTHESIS_EXAMPLES=2000 for a longer bug hunt
SETTINGS = settings(max_examples=int(os.environ.get("SUPERPOS_HYPOTHESIS_EXAMPLES", 60)), deadline=None,
                    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])

# brute force enumerates every tree of depth <= max_depth; keep it small
MAX_TREES = 2500
CONTEXTS = ("parent", "depth_pos", "grandparent", "ragged")
RANGES = ((-5.0, 0.0), (-3.0, 3.0))


def close(a, b) -> bool:
    if math.isinf(a) or math.isinf(b):
        return a == b
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


# ------------------------------------------------------------------ strategies

@st.composite
def arity_vectors(draw, min_colours: int = 3, max_colours: int = 7) -> np.ndarray:
    """Root of arity 1, then arities in {0, 1, 2} with at least one leaf among 1..H-1."""
    # sampled_from, largest first: hypothesis favours the first choices (and the small end
    # of integers), which would make most examples trivially small
    H = draw(st.sampled_from(range(max_colours, min_colours - 1, -1)))
    n_leaves = draw(st.sampled_from(range(1, H)))
    n_binary = draw(st.sampled_from(range(0, H - n_leaves)))
    rest = [0] * n_leaves + [2] * n_binary + [1] * (H - 1 - n_leaves - n_binary)
    rest = draw(st.permutations(rest))
    return np.array([1] + list(rest), dtype=np.int64)


@dataclass
class Problem:
    S: np.ndarray          # as handed to the decoder (2, 4 or 5 axes)
    S5: np.ndarray         # the same as a (Dd, G, H, A, H) tensor, for the references
    arities: np.ndarray
    max_depth: int
    context: str

    def __repr__(self) -> str:  # short, for hypothesis' falsifying-example report
        return (f"Problem(context={self.context!r}, shape={self.S.shape}, max_depth={self.max_depth}, "
                f"arities={self.arities.tolist()}, S={self.S.tolist()!r})")


@st.composite
def problems(draw, contexts=CONTEXTS, holes: bool = False) -> Problem:
    ar = draw(arity_vectors())
    H = len(ar)
    max_depth = draw(st.sampled_from([3, 3, 2, 2, 1]))
    context = draw(st.sampled_from(contexts))
    lo, hi = draw(st.sampled_from(RANGES))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if context == "parent":
        shape = (H, H) if draw(st.booleans()) else (1, 1, H, 1, H)
    elif context == "depth_pos":
        shape = (max_depth, H, 2, H)
    elif context == "grandparent":
        shape = (max_depth, H, H, 2, H)
    else:
        shape = (draw(st.integers(1, max_depth + 1)), draw(st.sampled_from([1, H])), H,
                 draw(st.sampled_from([1, 2])), H)
    S = rng.uniform(lo, hi, size=shape)
    if draw(st.booleans()):
        S = np.round(S)  # integer scores: exact ties between different trees
    if holes:
        S[rng.random(shape) < draw(st.sampled_from([0.1, 0.3, 0.6]))] = -np.inf
    return Problem(S, D.as_score_tensor(S), ar, max_depth, context)


def brute_force(pb: Problem) -> list[tuple[float, list[int]]]:
    try:
        trees = T.enumerate_trees(pb.arities, pb.max_depth, max_trees=MAX_TREES)
    except ValueError:
        assume(False)
    assume(len(trees) <= MAX_TREES)
    event(f"context={pb.context}")
    event(f"trees: {'1' if len(trees) == 1 else '2-9' if len(trees) < 10 else '10-99' if len(trees) < 100 else '100+'}")
    ranking = twins.brute_force_ranking(pb.S5, pb.arities, pb.max_depth)
    assert len(ranking) == len(trees)
    return ranking


def check_tree(pb: Problem, tree: np.ndarray, value: float) -> None:
    assert tree.dtype == np.int64 and tree.ndim == 1
    assert T.is_admissible(tree, pb.arities), tree
    assert T.tree_depth(tree, pb.arities) <= pb.max_depth
    assert close(D.score_tree(pb.S, pb.arities, tree), value)
    assert close(twins.score_tree_reference(pb.S5, pb.arities, list(tree)), value)


# ------------------------------------------------------------------ best tree

@SETTINGS
@given(problems())
def test_decode_best_matches_brute_force_and_reference(pb):
    ranking = brute_force(pb)
    S_before = pb.S.copy()
    value, tree = D.decode_best(pb.S, pb.arities, pb.max_depth)
    assert np.array_equal(pb.S, S_before)  # inputs are not modified
    assert close(value, ranking[0][0])
    ref_value, ref_tree = twins.tree_dp_reference(pb.S5, pb.arities, pb.max_depth)
    assert close(value, ref_value)
    # same recursion, same tie-breaking (smallest colour): the very same tree
    assert tree.tolist() == ref_tree
    check_tree(pb, tree, value)


@SETTINGS
@given(problems(holes=True))
def test_decode_best_with_impossible_edges(pb):
    """-inf scores (zero probabilities): the best finite tree, or an error when none exists."""
    ranking = brute_force(pb)
    best = ranking[0][0]
    if best == -math.inf:
        with pytest.raises(SuperposError):
            D.decode_best(pb.S, pb.arities, pb.max_depth)
        with pytest.raises(SuperposError):
            D.decode_kbest(pb.S, pb.arities, pb.max_depth, 3)
        assert twins.tree_dp_reference(pb.S5, pb.arities, pb.max_depth)[0] == -math.inf
        return
    value, tree = D.decode_best(pb.S, pb.arities, pb.max_depth)
    assert close(value, best)
    check_tree(pb, tree, value)
    n_finite = sum(1 for s, _ in ranking if s > -math.inf)
    res = D.decode_kbest(pb.S, pb.arities, pb.max_depth, 8)
    assert len(res) == min(8, n_finite)
    for v, t in res:
        assert math.isfinite(v)
        check_tree(pb, t, v)


@SETTINGS
@given(problems(contexts=("depth_pos", "grandparent")), st.integers(1, 3))
def test_decode_best_batch_kernel_matches_single(pb, n):
    """_kernels.tree_dp_batch (used by the benchmark) agrees with tree_dp one by one."""
    S5 = pb.S5
    batch = np.ascontiguousarray(np.stack([S5 + k for k in range(n)]))
    values, flat, offsets = _kernels.tree_dp_batch(batch, pb.arities, pb.max_depth)
    assert offsets.shape == (n + 1,) and offsets[0] == 0
    for k in range(n):
        v, t = _kernels.tree_dp(batch[k], pb.arities, pb.max_depth)
        assert values[k] == v
        assert flat[offsets[k]:offsets[k + 1]].tolist() == t.tolist()


# ------------------------------------------------------------------ k best

@SETTINGS
@given(problems(), st.integers(1, 8))
def test_decode_kbest_matches_brute_force(pb, k):
    ranking = brute_force(pb)
    finite = [s for s, _ in ranking if s > -math.inf]
    res = D.decode_kbest(pb.S, pb.arities, pb.max_depth, k)
    assert len(res) == min(k, len(finite))
    values = [v for v, _ in res]
    # best first
    assert all(values[r] >= values[r + 1] - 1e-9 for r in range(len(values) - 1))
    # ties: compare the sorted values, not the trees
    expected = finite[:len(res)]
    assert all(close(a, b) for a, b in zip(sorted(values, reverse=True), expected)), (values, expected)
    trees = [tuple(t.tolist()) for _, t in res]
    assert len(set(trees)) == len(trees), "k-best trees must be pairwise distinct"
    for v, t in res:
        check_tree(pb, t, v)
    best_value, _ = D.decode_best(pb.S, pb.arities, pb.max_depth)
    assert close(values[0], best_value)


@SETTINGS
@given(problems(), st.integers(1, 6), st.integers(1, 5))
def test_decode_kbest_size_bound_matches_brute_force(pb, k, max_size):
    ranking = [(s, t) for s, t in brute_force(pb) if s > -math.inf and len(t) <= max_size]
    try:
        res = D.decode_kbest(pb.S, pb.arities, pb.max_depth, k, max_size=max_size)
    except SuperposError:
        assume(False)  # no tree has a finite score at all
    assert all(t.size <= max_size for _, t in res)
    assert len(res) == min(k, len(ranking))
    assert all(close(a, b) for a, b in zip([v for v, _ in res], [s for s, _ in ranking]))


@SETTINGS
@given(problems(holes=True))
def test_decode_mbr_minimises_the_expected_hamming_loss(pb):
    """With every tree in its list, decode_mbr attains the brute-force minimum of
    E[Delta(T, T*)] under p(T*) proportional to exp(score(T*))."""
    from superpos.core.tree import hamming_loss

    ranking = [(s, np.array(t)) for s, t in brute_force(pb) if s > -math.inf]
    assume(0 < len(ranking) <= 40)
    p = np.exp(np.array([s for s, _ in ranking]) - ranking[0][0])
    p /= p.sum()
    risk = [sum(q * hamming_loss(t, u, pb.arities) for q, (_, u) in zip(p, ranking)) for _, t in ranking]
    _, tree = D.decode_mbr(pb.S, pb.arities, pb.max_depth, n_list=len(ranking) + 5)
    mine = sum(q * hamming_loss(tree, u, pb.arities) for q, (_, u) in zip(p, ranking))
    assert mine <= min(risk) + 1e-9
    assert D.score_tree(pb.S, pb.arities, tree) > -math.inf  # never an edge the model rules out


@SETTINGS
@given(problems(contexts=("depth_pos", "grandparent")))
def test_decode_kbest_all_trees(pb):
    """With k >= the number of trees the k-best list is the whole ranking."""
    ranking = brute_force(pb)
    assume(len(ranking) <= 60)
    res = D.decode_kbest(pb.S, pb.arities, pb.max_depth, len(ranking) + 5)
    assert len(res) == len(ranking)
    assert {tuple(t.tolist()) for _, t in res} == {tuple(t) for _, t in ranking}
    assert all(close(a, b) for a, b in zip([v for v, _ in res], [s for s, _ in ranking]))


# ------------------------------------------------------------------ seed 003's algorithm

@st.composite
def seed_problems(draw):
    ar = draw(arity_vectors())
    H = len(ar)
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    L = -rng.uniform(0.0, 5.0, size=(H, H))
    if draw(st.booleans()):
        L = np.round(L)  # exact ties, zero-weight edges (and zero-weight cycles)
    if draw(st.booleans()):
        L[rng.random((H, H)) < 0.3] = 0.0
    if draw(st.booleans()):
        L[rng.random((H, H)) < 0.3] = -np.inf
    return L, ar


@SETTINGS
@given(seed_problems())
# twins.seed_decode_reference computes -inf + inf (harmless) when best is -inf
@pytest.mark.filterwarnings("ignore:invalid value encountered in scalar add:RuntimeWarning")
def test_decode_seed_matches_reference_and_tree_dp(problem):
    L, ar = problem
    H = len(ar)
    ref = twins.seed_decode_reference(L, ar)
    if ref == -math.inf:
        with pytest.raises(SuperposError):
            D.decode_seed(L, ar)
        with pytest.raises(SuperposError):
            D.decode_best(L, ar, max_depth=H + 1)
        return
    value, tree = D.decode_seed(L, ar)
    assert close(value, ref)
    best_value, _ = D.decode_best(L, ar, max_depth=H + 1)
    assert close(value, best_value)
    assert T.is_admissible(tree, ar)
    assert close(D.score_tree(L, ar, tree), value)


@SETTINGS
@given(seed_problems(), st.integers(1, 12))
@pytest.mark.filterwarnings("ignore:invalid value encountered in scalar add:RuntimeWarning")
def test_decode_seed_with_room_returns_the_full_tree(problem, max_nodes):
    """max_nodes >= the tree's size changes nothing. (The other side, trees too big for
    max_nodes, runs in a subprocess below: see test_decode_seed_too_big_is_an_error.)"""
    L, ar = problem
    assume(twins.seed_decode_reference(L, ar) > -math.inf)
    _, full = D.decode_seed(L, ar)
    assume(full.size <= max_nodes)
    _, tree = D.decode_seed(L, ar, max_nodes=max_nodes)
    assert tree.tolist() == full.tolist()


def test_decode_seed_example():
    # root -> binary 1 -> binary 2 -> leaf 3, every edge free
    ar = np.array([1, 2, 2, 0])
    L = np.full((4, 4), -10.0)
    L[0, 1] = 0.0
    L[1, 2] = 0.0
    L[2, 3] = 0.0
    value, tree = D.decode_seed(L, ar)
    assert tree.tolist() == [1, 2, 3, 3, 2, 3, 3]
    assert value == 0.0
    assert D.decode_seed(L, ar, max_nodes=7)[1].tolist() == tree.tolist()


# Some bugs make the numba kernels read or write out of bounds; those cases run in a
# fresh interpreter so that a crash or heap corruption cannot take the test session down.
_ISOLATED_PRELUDE = """
import numpy as np
from superpos import SuperposError
from superpos.structure import decode as D

def expect_error(desc, f):
    try:
        r = f()
    except SuperposError:
        print("raised", desc)
    except Exception as e:
        print("wrong-exception", desc, type(e).__name__, e)
    else:
        print("no-error", desc, repr(r).replace("\\n", " "))
"""


def run_isolated(body: str) -> list[str]:
    """Run the cases of ``body`` (calls of expect_error) in a subprocess; return the
    cases that did not raise SuperposError."""
    proc = subprocess.run([sys.executable, "-c", _ISOLATED_PRELUDE + textwrap.dedent(body)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"the subprocess crashed ({proc.returncode}): {proc.stderr[-2000:]}"
    lines = proc.stdout.splitlines()
    assert lines, proc.stderr[-2000:]
    return [line for line in lines if not line.startswith("raised")]


def test_decode_seed_too_big_is_an_error():
    bad = run_isolated("""
        ar = np.array([1, 2, 2, 0])
        L = np.full((4, 4), -10.0)
        L[0, 1] = L[1, 2] = L[2, 3] = 0.0     # best tree has 7 nodes
        for m in (1, 3, 4, 5, 6):
            expect_error(f"chain max_nodes={m}", lambda: D.decode_seed(L, ar, max_nodes=m))
        rng = np.random.default_rng(0)
        for case in range(30):
            H = int(rng.integers(3, 8))
            ar = np.array([1] + [0] + list(rng.integers(0, 3, H - 2)))
            L = -rng.uniform(0, 5, (H, H))
            _, full = D.decode_seed(L, ar)
            for m in range(1, min(full.size, 12)):
                expect_error(f"random {case} max_nodes={m} size={full.size}",
                             lambda: D.decode_seed(L, ar, max_nodes=m))
    """)
    assert not bad, "\n".join(bad)


# ------------------------------------------------------------------ errors

def test_no_leaf_basis_is_an_error():
    ar = np.array([1, 1, 2])
    S = np.zeros((3, 3))
    with pytest.raises(SuperposError):
        D.decode_best(S, ar, 3)
    with pytest.raises(SuperposError):
        D.decode_kbest(S, ar, 3, 2)
    with pytest.raises(SuperposError):
        D.decode_seed(-np.ones((3, 3)), ar)
    with pytest.raises(SuperposError):
        Basis(["add", "sin"])  # no leaf at all
    with pytest.raises(SuperposError):
        Basis(["add", "c"])  # leaves but no input variable


def test_decode_seed_rejects_positive_scores():
    ar = np.array([1, 2, 0])
    L = -np.ones((3, 3))
    L[1, 2] = 0.5
    with pytest.raises(SuperposError):
        D.decode_seed(L, ar)
    L[1, 2] = np.nan
    with pytest.raises(SuperposError):
        D.decode_seed(L, ar)


@pytest.mark.parametrize("shape", [
    (4,),                  # 1 axis
    (4, 4, 4),             # 3 axes
    (1, 4, 4, 1, 4, 1),    # 6 axes
    (4, 5),                # H mismatch
    (2, 4, 1, 5),          # H mismatch, 4 axes
    (2, 3, 4, 1, 4),       # G neither 1 nor H
    (2, 1, 4, 1, 3),       # H mismatch, 5 axes
])
def test_wrong_score_shapes(shape):
    ar = np.array([1, 2, 1, 0])
    S = -np.ones(shape)
    with pytest.raises(SuperposError):
        D.decode_best(S, ar, 2)
    with pytest.raises(SuperposError):
        D.decode_kbest(S, ar, 2, 2)
    with pytest.raises(SuperposError):
        D.score_tree(S, ar, [3])


def test_degenerate_score_shapes():
    bad = run_isolated("""
        ar = np.array([1, 1, 0])
        for shape in [(0, 1, 3, 1, 3), (1, 1, 3, 0, 3), (0, 3, 1, 3), (0, 3, 3, 1, 3)]:
            S = np.zeros(shape)
            expect_error(f"decode_best {shape}", lambda: D.decode_best(S, ar, 2))
            expect_error(f"decode_kbest {shape}", lambda: D.decode_kbest(S, ar, 2, 2))
            expect_error(f"score_tree {shape}", lambda: D.score_tree(S, ar, [1, 2]))
        expect_error("decode_best (0, 0)", lambda: D.decode_best(np.zeros((0, 0)), np.zeros(0, np.int64), 2))
    """)
    assert not bad, "\n".join(bad)


def test_score_tree_checks_arities_against_scores():
    bad = run_isolated("""
        from superpos import Basis
        b = Basis.default(1)                  # 17 colours
        S = -np.ones((3, 3))                  # scores for 3 colours
        expect_error("score_tree x1", lambda: D.score_tree(S, b.arities, [b.index("x1")]))
        expect_error("score_tree add(x1, 2)",
                     lambda: D.score_tree(S, b.arities, [b.index("add"), b.index("x1"), b.index("2")]))
        expect_error("score_tree short arities", lambda: D.score_tree(S, np.array([1, 2, 0, 0]), [1, 3, 2]))
    """)
    assert not bad, "\n".join(bad)


def test_wrong_arities_and_arguments():
    S = -np.ones((4, 4))
    with pytest.raises(SuperposError):
        D.decode_best(S, np.array([1, 2, 0]), 2)          # length mismatch
    with pytest.raises(SuperposError):
        D.decode_best(S, np.array([0, 2, 1, 0]), 2)       # root not of arity 1
    with pytest.raises(SuperposError):
        D.decode_best(S, np.array([1, 2, 1, 0]), 0)       # max_depth < 1
    with pytest.raises(SuperposError):
        D.decode_kbest(S, np.array([1, 2, 1, 0]), 2, 0)   # k < 1
    with pytest.raises(SuperposError):
        D.decode_seed(-np.ones((4, 3)), np.array([1, 2, 1, 0]))  # not square
    with pytest.raises(SuperposError):
        D.decode_seed(-np.ones((2, 4, 4)), np.array([1, 2, 1, 0]))
    S_nan = S.copy()
    S_nan[1, 2] = np.nan
    with pytest.raises(SuperposError):
        D.decode_best(S_nan, np.array([1, 2, 1, 0]), 2)


@pytest.mark.parametrize("shape", ["parent", "depth_pos", "grandparent"])
def test_all_leaves_impossible(shape):
    ar = np.array([1, 2, 1, 0, 0])
    H = 5
    S = {"parent": np.zeros((H, H)), "depth_pos": np.zeros((3, H, 2, H)),
         "grandparent": np.zeros((3, H, H, 2, H))}[shape]
    S[..., 3] = -np.inf
    S[..., 4] = -np.inf
    for md in (1, 2, 3):
        with pytest.raises(SuperposError):
            D.decode_best(S, ar, md)
        with pytest.raises(SuperposError):
            D.decode_kbest(S, ar, md, 4)
    if shape == "parent":
        with pytest.raises(SuperposError):
            D.decode_seed(S, ar)


def test_leaves_only_possible_below_the_depth_bound():
    # the only finite leaf edge is at depth 3; with max_depth 2 no finite tree exists
    ar = np.array([1, 1, 0])
    S = np.zeros((3, 3, 1, 3))
    S[:2, :, :, 2] = -np.inf
    with pytest.raises(SuperposError):
        D.decode_best(S, ar, 2)
    value, tree = D.decode_best(S, ar, 3)
    assert value == 0.0 and tree.tolist() == [1, 1, 2]


# ------------------------------------------------------------------ known answers

# H = 4: 0 = root h0, 1 = add (binary), 2 = sin (unary), 3 = x (leaf)
AR4 = np.array([1, 2, 1, 0])


def _parent_scores() -> np.ndarray:
    L = np.full((4, 4), -10.0)
    L[0, 1], L[0, 2], L[0, 3] = 0.0, -5.0, -3.0     # root: add >> x >> sin
    L[1, 1], L[1, 2], L[1, 3] = -10.0, -0.5, -1.0   # under add: sin, then x
    L[2, 1], L[2, 2], L[2, 3] = -10.0, -10.0, -0.1  # under sin: x
    return L


def test_known_answer_parent_only():
    L = _parent_scores()
    # depth 3: add(sin(x), sin(x)) = 0 + 2 * (-0.5 - 0.1) = -1.2
    value, tree = D.decode_best(L, AR4, 3)
    assert tree.tolist() == [1, 2, 3, 2, 3]
    assert value == pytest.approx(-1.2)
    # depth 2: add's children must be leaves: add(x, x) = -2
    value, tree = D.decode_best(L, AR4, 2)
    assert tree.tolist() == [1, 3, 3]
    assert value == pytest.approx(-2.0)
    # depth 1: only x
    value, tree = D.decode_best(L, AR4, 1)
    assert tree.tolist() == [3] and value == pytest.approx(-3.0)
    # seed's algorithm (no depth bound) agrees with depth 3
    value, tree = D.decode_seed(L, AR4)
    assert tree.tolist() == [1, 2, 3, 2, 3]
    assert value == pytest.approx(-1.2)


def test_known_answer_kbest():
    L = _parent_scores()
    # depth <= 2: exactly three trees: add(x, x) -2, x -3, sin(x) -5.1
    res = D.decode_kbest(L, AR4, 2, 5)
    assert [t.tolist() for _, t in res] == [[1, 3, 3], [3], [2, 3]]
    assert [v for v, _ in res] == pytest.approx([-2.0, -3.0, -5.1])
    # depth <= 3: add(sin x, sin x) -1.2; add(sin x, x), add(x, sin x) -1.6 (tie); add(x, x) -2
    res = D.decode_kbest(L, AR4, 3, 4)
    assert [v for v, _ in res] == pytest.approx([-1.2, -1.6, -1.6, -2.0])
    assert [t.tolist() for _, t in res][0] == [1, 2, 3, 2, 3]
    assert sorted(t.tolist() for _, t in res[1:3]) == [[1, 2, 3, 3], [1, 3, 2, 3]]
    assert res[3][1].tolist() == [1, 3, 3]


def test_known_answer_position_and_depth():
    # (D, H, A, H): under add, position 0 prefers x, position 1 prefers sin
    S = np.full((3, 4, 2, 4), -10.0)
    S[0, 0, :, 1] = 0.0                  # depth 1: root -> add
    S[0, 0, :, 3] = -4.0                 # depth 1: root -> x
    S[1, 1, 0, 3], S[1, 1, 0, 2] = -0.2, -3.0    # depth 2, add pos 0: x
    S[1, 1, 1, 3], S[1, 1, 1, 2] = -2.0, -0.3    # depth 2, add pos 1: sin
    S[2, 2, :, 3] = -0.4                 # depth 3: sin -> x
    value, tree = D.decode_best(S, AR4, 3)
    assert tree.tolist() == [1, 3, 2, 3]           # add(x, sin(x))
    assert value == pytest.approx(0.0 - 0.2 - 0.3 - 0.4)
    ctx = T.edge_contexts(tree, AR4)
    assert ctx.tolist() == [[1, 0, 0, 0, 1], [2, 0, 1, 0, 3], [2, 0, 1, 1, 2], [3, 1, 2, 0, 3]]
    # with max_depth 2 the sin branch is cut: add(x, x) = -0.2 - 2.0
    value, tree = D.decode_best(S, AR4, 2)
    assert tree.tolist() == [1, 3, 3]
    assert value == pytest.approx(-2.2)


def test_known_answer_grandparent():
    # (D, H, H, A, H): sin -> x is cheap only when sin's parent (the grandparent of x) is add
    S = np.full((3, 4, 4, 1, 4), -1.0)
    S[:, :, 2, :, 3] = -5.0        # sin -> x is expensive ...
    S[:, 1, 2, :, 3] = 0.0         # ... unless the grandparent is add
    S[:, :, 1, :, 2] = -0.5        # add -> sin
    S[:, :, 0, :, 2] = -0.1        # root -> sin
    # root -> sin -> x: -0.1 - 5 ; root -> add(sin(x), sin(x)): -1 + 2 * (-0.5 + 0) = -2 ;
    # root -> x: -1 ; root -> add(x, x): -3
    value, tree = D.decode_best(S, AR4, 3)
    assert tree.tolist() == [3] and value == pytest.approx(-1.0)
    S[:, :, 0, :, 1] = 0.5         # make add attractive under the root
    value, tree = D.decode_best(S, AR4, 3)
    assert tree.tolist() == [1, 2, 3, 2, 3]
    assert value == pytest.approx(0.5 - 1.0)
    # without the grandparent axis (g = 0 slice) sin -> x always costs 5: x alone wins
    value2, tree2 = D.decode_best(S[:, 0], AR4, 3)
    assert tree2.tolist() == [3] and value2 == pytest.approx(-1.0)


def test_known_answer_default_basis():
    """add(x1, sin(x1)) over Basis.default(1), from scores that put all mass on its edges."""
    b = Basis.default(1)
    target = T.from_string("add(x1, sin(x1))", b)
    H = len(b)
    S = np.full((4, H, H, 2, H), -3.0)
    for d, g, i, p, j in T.edge_contexts(target, b.arities):
        S[d - 1, g, i, p, j] = 0.0
    value, tree = D.decode_best(S, b.arities, 4)
    assert tree.tolist() == target.tolist() and value == 0.0
    res = D.decode_kbest(S, b.arities, 4, 3)
    assert res[0][1].tolist() == target.tolist() and res[0][0] == 0.0
    assert all(v < 0 for v, _ in res[1:])
