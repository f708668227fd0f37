"""Structured models and S-SVM kernels against exhaustive enumeration and plain-Python twins."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.optimize import minimize

import twins
from superpos import SuperposError, _kernels
from superpos.core.basis import Basis
from superpos.ssvm import ChainModel, MulticlassModel, TreeModel, check_structured_model
from superpos.ssvm.learners._qp import WorkingSet, solve_one_simplex_qp, solve_simplex_qp


def _chain_data(rng, n=4, K=3, F=2, T=(1, 4)):
    X = [rng.normal(size=(rng.integers(T[0], T[1] + 1), F)) for _ in range(n)]
    Y = [rng.integers(0, K, size=len(x)) for x in X]
    Y[0][0] = K - 1
    return X, Y


def test_check_multiclass():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(6, 3))
    Y = np.array([0, 1, 2, 3, 1, 0])
    check_structured_model(MulticlassModel(), X, Y, random_state=0)
    cost = rng.uniform(0.5, 2, size=(4, 4))
    np.fill_diagonal(cost, 0)
    check_structured_model(MulticlassModel(cost=cost), X, Y, random_state=1)


@pytest.mark.parametrize("normalize", [True, False])
def test_check_chain(normalize):
    rng = np.random.default_rng(1)
    X, Y = _chain_data(rng)
    check_structured_model(ChainModel(normalize_loss=normalize), X, Y, random_state=2)


def _tree_data(rng, n=4, F=3):
    b = Basis(["add", "sin", "x1", "c"])
    ar = b.arities  # h0, add, sin, x1, c
    trees = [np.array(t) for t in ([3], [2, 3], [1, 3, 4], [1, 2, 4, 3])][:n]
    return ar, rng.normal(size=(len(trees), F)), trees


@pytest.mark.parametrize("loss", ["context", "pair"])
def test_check_tree(loss):
    rng = np.random.default_rng(2)
    ar, X, Y = _tree_data(rng)
    check_structured_model(TreeModel(ar, max_depth=3, loss=loss), X, Y, random_state=3)


def test_tree_joint_feature_matches_score_tensor():
    rng = np.random.default_rng(3)
    ar, X, Y = _tree_data(rng)
    m = TreeModel(ar, max_depth=3).initialize(X, Y)
    w = rng.normal(size=m.size_joint_feature)
    for x, y in zip(X, Y):
        S = m.score_tensor(x, w)
        assert np.isclose(w @ m.joint_feature(x, y), twins.score_tree_reference(S, ar, list(y)))


def test_tree_model_rejects_deep_trees():
    rng = np.random.default_rng(4)
    ar, X, Y = _tree_data(rng)
    with pytest.raises(SuperposError):
        TreeModel(ar, max_depth=1).initialize(X, Y)


def test_chain_viterbi_kernel_vs_reference_and_brute_force():
    rng = np.random.default_rng(5)
    for _ in range(30):
        T, K = int(rng.integers(1, 5)), int(rng.integers(1, 4))
        U = np.round(rng.normal(size=(T, K)), int(rng.integers(0, 2)))  # rounded: ties
        P = np.round(rng.normal(size=(K, K)), int(rng.integers(0, 2)))
        v, lab = _kernels.chain_viterbi(U, P)
        vr, labr = twins.chain_viterbi_reference(U.tolist(), P.tolist())
        assert np.isclose(v, vr) and list(lab) == labr
        best = max(sum(U[t, y[t]] for t in range(T)) + sum(P[y[t - 1], y[t]] for t in range(1, T))
                   for y in itertools.product(range(K), repeat=T))
        assert np.isclose(v, best)
    # the batch kernel equals one call per chain
    U = rng.normal(size=(9, 3))
    P = rng.normal(size=(3, 3))
    off = np.array([0, 2, 2, 6, 9])
    vals, labs = _kernels.chain_viterbi_batch(U, off, P)
    for b in range(4):
        v, lab = _kernels.chain_viterbi(U[off[b]:off[b + 1]], P)
        assert np.isclose(vals[b], v) and np.array_equal(labs[off[b]:off[b + 1]], lab)


def _scipy_qp(K, b, group, C):
    m = b.size
    cons = [{"type": "ineq", "fun": (lambda a, g=g: C - a[group == g].sum())} for g in np.unique(group)]
    res = minimize(lambda a: -(b @ a - 0.5 * a @ K @ a), np.zeros(m), jac=lambda a: -(b - K @ a),
                   bounds=[(0, None)] * m, constraints=cons, method="SLSQP", options={"ftol": 1e-14, "maxiter": 1000})
    return -res.fun


@pytest.mark.parametrize("seed", range(8))
def test_simplex_qp_vs_scipy_and_reference(seed):
    rng = np.random.default_rng(seed)
    m, dim = int(rng.integers(1, 8)), int(rng.integers(1, 6))
    A = rng.normal(size=(m, dim))
    K = A @ A.T
    b = rng.uniform(0, 2, size=m) * (rng.uniform(size=m) > 0.2)
    n_groups = int(rng.integers(1, 3))
    group = rng.integers(0, n_groups, size=m)
    group[0] = 0
    group = np.unique(group, return_inverse=True)[1].astype(np.int64)
    C = float(rng.uniform(0.1, 3))
    alpha, steps = solve_simplex_qp(K, b, group, C, tol=1e-12)
    assert np.all(alpha >= 0)
    for g in np.unique(group):
        assert alpha[group == g].sum() <= C * (1 + 1e-12)
    val = b @ alpha - 0.5 * alpha @ K @ alpha
    assert val >= _scipy_qp(K, b, group, C) - 1e-7
    ref, steps_ref = twins.simplex_qp_reference(K.tolist(), b.tolist(), group.tolist(), int(group.max()) + 1,
                                                     C, [0.0] * m, 1e-12, 200_000)
    assert steps == steps_ref and np.allclose(alpha, ref, atol=1e-12)


@pytest.mark.parametrize("seed", range(12))
def test_active_set_qp_vs_scipy_and_smo(seed):
    """The one-group active-set solver reaches SLSQP's optimum and SMO's, from a cold or a warm
    start, also with duplicated and collinear constraints (a singular K)."""
    rng = np.random.default_rng(100 + seed)
    m, dim = int(rng.integers(1, 9)), int(rng.integers(1, 6))
    A = rng.normal(size=(m, dim))
    if m > 2 and seed % 3 == 0:
        A[1] = A[0]
        A[2] = 2.0 * A[0]
    K = A @ A.T
    b = rng.uniform(0, 2, size=m) * (rng.uniform(size=m) > 0.2)
    C = float(rng.uniform(0.1, 3))
    group = np.zeros(m, np.int64)
    ref = _scipy_qp(K, b, group, C)
    smo, _ = solve_simplex_qp(K, b, group, C, tol=1e-12)
    for start in (None, rng.dirichlet(np.ones(m)) * C * rng.uniform(0, 1.2)):
        alpha, _ = solve_one_simplex_qp(K, b, C, start, tol=1e-12)
        assert np.all(alpha >= 0) and alpha.sum() <= C * (1 + 1e-12)
        val = b @ alpha - 0.5 * alpha @ K @ alpha
        assert val >= ref - 1e-7
        assert val == pytest.approx(b @ smo - 0.5 * smo @ K @ smo, abs=1e-8)


def test_working_set_prune_keeps_gram():
    rng = np.random.default_rng(9)
    ws = WorkingSet(4, capacity=2)
    A = rng.normal(size=(5, 4))
    ws.add(A, np.ones(5), np.zeros(5, np.int64))
    ws.alpha[:5] = [0, 1, 0, 2, 0]
    ws.prune(1e-5, 1)
    assert ws.m == 2 and np.allclose(ws.G[:2, :2], A[[1, 3]] @ A[[1, 3]].T)


def test_bcfw_table_pass_kernel_vs_reference():
    from scipy.sparse import csr_matrix
    rng = np.random.default_rng(11)
    n, d, C = 5, 6, 0.7
    counts = rng.integers(1, 4, size=n)
    offsets = np.r_[0, np.cumsum(counts)].astype(np.int64)
    R = int(offsets[-1])
    rows = rng.normal(size=(R, d)) * (rng.uniform(size=(R, d)) > 0.3)
    true_rows = (offsets[:-1] + rng.integers(0, counts)).astype(np.int64)
    losses = rng.uniform(0, 1, size=R)
    losses[true_rows] = 0.0
    P = csr_matrix(rows)
    w, Ln, B = np.zeros(d), np.zeros(n), np.zeros(d)
    alpha = np.zeros(R)
    alpha[true_rows] = 1.0
    q = np.sum(rows[true_rows] ** 2, axis=1)
    rw, rWn, rLn, ravg, k_ref = np.zeros(d), np.zeros((n, d)), np.zeros(n), np.zeros(d), 0
    k = 0
    for _ in range(4):
        order = rng.permutation(n)
        dL, k = _kernels.bcfw_table_pass(P.indptr.astype(np.int64), P.indices.astype(np.int64), P.data, offsets,
                                         true_rows, losses, w, alpha, Ln, q, C, order, B, k)
        rw, rWn, rLn, ravg, rdL, k_ref = twins.bcfw_table_pass_reference(rows, offsets, true_rows, losses, rw,
                                                                              rWn, rLn, C, order, ravg, k_ref)
        assert np.isclose(dL, rdL) and k == k_ref
        assert np.allclose(w, rw) and np.allclose(Ln, rLn)
        assert np.allclose(w - B / (0.5 * k * (k + 1)), ravg)
        for i in range(n):  # implicit blocks w_n = C (Psi_t - sum_r alpha_r Psi_r)
            u = alpha[offsets[i]:offsets[i + 1]] @ rows[offsets[i]:offsets[i + 1]]
            assert np.allclose(C * (rows[true_rows[i]] - u), rWn[i])
            assert np.isclose(q[i], u @ u)
