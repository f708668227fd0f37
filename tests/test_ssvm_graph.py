"""Graph CRFs: inference against brute force, the models' self-check, learning, bad input."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from superpos.exceptions import SuperposError
from superpos.ssvm import (EdgeFeatureGraphModel, FrankWolfeSSVM, GraphModel, MultiLabelModel, NSlackSSVM,
                           OneSlackSSVM, StructuredPerceptron, SubgradientSSVM, check_structured_model, grid_edges)
from superpos.ssvm.inference import brute_force, energy, infer, is_forest
from superpos.ssvm.models.multilabel import chow_liu_edges


def random_forest(rng, n, drop=0.3):
    """Random forest on n nodes: a random tree with some edges dropped, random orientations."""
    edges = [[int(rng.integers(i)), i] for i in range(1, n) if rng.random() > drop]
    edges = np.array(edges, dtype=np.int64).reshape(-1, 2)
    flip = rng.random(len(edges)) < 0.5
    edges[flip] = edges[flip][:, ::-1]
    return edges


def random_graph(rng, n, p=0.5):
    edges = [(i, j) for i in range(n) for j in range(i + 1, n) if rng.random() < p]
    return np.array(edges, dtype=np.int64).reshape(-1, 2)


def test_grid_edges():
    e = grid_edges(2, 3)
    assert e.tolist() == [[0, 1], [1, 2], [3, 4], [4, 5], [0, 3], [1, 4], [2, 5]]
    assert grid_edges(12, 12).shape == (264, 2)
    assert not is_forest(6, e) and is_forest(3, grid_edges(1, 3))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), st.integers(1, 7), st.integers(2, 3))
def test_forest_methods_equal_brute_force(seed, n, K):
    rng = np.random.default_rng(seed)
    edges = random_forest(rng, n)
    unary, pairwise = rng.normal(size=(n, K)), rng.normal(size=(len(edges), K, K))
    best = energy(unary, pairwise, edges, brute_force(unary, pairwise, edges))
    for method in ("exact", "auto", "max-product", "lp"):
        y = infer(unary, pairwise, edges, method)
        assert y.shape == (n,) and y.dtype == np.int64
        assert energy(unary, pairwise, edges, y) == pytest.approx(best, abs=1e-6), method


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6))
def test_loopy_methods_bounded_by_brute_force(seed):
    rng = np.random.default_rng(seed)
    n, K = 6, 3
    edges = random_graph(rng, n)
    unary, pairwise = rng.normal(size=(n, K)), rng.normal(size=(len(edges), K, K))
    best = energy(unary, pairwise, edges, brute_force(unary, pairwise, edges))
    y, info = infer(unary, pairwise, edges, "lp", return_info=True)
    e = energy(unary, pairwise, edges, y)
    assert e <= best + 1e-9
    if not info.fractional:  # an integral LP solution is optimal
        assert e == pytest.approx(best, abs=1e-6)
    assert energy(unary, pairwise, edges, infer(unary, pairwise, edges, "max-product")) <= best + 1e-9


def test_exact_on_a_cycle_names_the_alternatives():
    edges = np.array([[0, 1], [1, 2], [2, 0]])
    with pytest.raises(SuperposError, match="max-product.*lp"):
        infer(np.zeros((3, 2)), np.zeros((2, 2)), edges, "exact")


def test_ruled_out_states_are_never_chosen():
    rng = np.random.default_rng(1)
    edges = random_graph(rng, 6, 0.6)
    unary = rng.normal(size=(6, 4))
    unary[:, :2] = -np.inf  # only states 2 and 3 allowed
    unary[0, 3] = -np.inf
    pairwise = rng.normal(size=(len(edges), 4, 4)) * 3
    for method in ("max-product", "lp", "brute"):
        y = infer(unary, pairwise, edges, method)
        assert np.all(y >= 2) and y[0] == 2, method
    tree = random_forest(rng, 6, 0.0)
    y = infer(unary, pairwise[:len(tree)], tree, "exact")
    assert np.all(y >= 2) and y[0] == 2


def test_lp_counts_fractional_solutions():
    """A frustrated 3-cycle (every edge wants different labels of 2): the LP optimum is 1/2."""
    edges = np.array([[0, 1], [1, 2], [0, 2]])
    P = np.array([[0.0, 1.0], [1.0, 0.0]])
    _, info = infer(np.zeros((3, 2)), P, edges, "lp", return_info=True)
    assert info.fractional and not info.exact
    model = GraphModel(n_states=2, inference="lp", directed=True).initialize(
        [(np.ones((3, 1)), edges)], [np.zeros(3, np.int64)])
    w = np.concatenate([np.zeros(2), P.ravel()])
    model.inference((np.ones((3, 1)), edges), w)
    assert model.inference_stats_["fractional"] == 1 and model.inference_stats_["calls"] == 1


def small_graphs(rng, n_graphs=3, F=2, K=3, loopy=False, edge_features=0):
    X, Y = [], []
    for _ in range(n_graphs):
        n = int(rng.integers(2, 5))
        edges = random_graph(rng, n, 0.7) if loopy else random_forest(rng, n, 0.2)
        x = (rng.normal(size=(n, F)), edges)
        if edge_features:
            x = x + (rng.normal(size=(len(edges), edge_features)),)
        X.append(x)
        Y.append(rng.integers(0, K, n))
    Y[0][0] = K - 1
    return X, Y


@pytest.mark.parametrize("directed", [False, True])
def test_graph_model_exact_self_check(directed):
    rng = np.random.default_rng(0)
    X, Y = small_graphs(rng)
    check_structured_model(GraphModel(inference="exact", directed=directed, class_weight=[1.0, 2.0, 0.5]), X, Y,
                           random_state=0)
    X, Y = small_graphs(rng, loopy=True)
    check_structured_model(GraphModel(inference="brute", directed=directed), X, Y, random_state=0)


@pytest.mark.parametrize("inference", ["max-product", "lp"])
def test_graph_model_approximate_self_check(inference):
    rng = np.random.default_rng(1)
    X, Y = small_graphs(rng, loopy=True)
    model = GraphModel(inference=inference)
    check_structured_model(model, X, Y, random_state=0)
    assert not model.exact_inference_


def test_edge_feature_model_self_check_and_symmetry():
    rng = np.random.default_rng(2)
    X, Y = small_graphs(rng, edge_features=3)
    model = EdgeFeatureGraphModel(inference="exact", symmetric_edge_features=[0], antisymmetric_edge_features=[1])
    check_structured_model(model, X, Y, random_state=0)
    K = model.n_states_
    psi = model.joint_feature(X[0], Y[0])[K * model.n_features_:].reshape(3, K, K)
    assert np.allclose(psi[0], psi[0].T) and np.allclose(psi[1], -psi[1].T)
    X, Y = small_graphs(rng, loopy=True, edge_features=2)
    check_structured_model(EdgeFeatureGraphModel(inference="brute"), X, Y, random_state=0)


def test_multilabel_self_check_and_chow_liu():
    rng = np.random.default_rng(3)
    Y = rng.integers(0, 2, (60, 4))
    Y[:, 1] = Y[:, 0]  # label 1 copies label 0
    Y[:, 3] = 1 - Y[:, 2]
    tree = chow_liu_edges(Y)
    assert len(tree) == 3 and is_forest(4, tree)
    pairs = {tuple(sorted(e)) for e in tree.tolist()}
    assert (0, 1) in pairs and (2, 3) in pairs
    X = rng.normal(size=(60, 3))
    for edges, inference in ((None, "auto"), ("tree", "auto"), ("full", "brute"), (np.array([[0, 2]]), "exact")):
        check_structured_model(MultiLabelModel(edges=edges, inference=inference), X[:4], Y[:4], random_state=0)
    check_structured_model(MultiLabelModel(edges="full", inference="max-product"), X[:4], Y[:4], random_state=0)


def test_multilabel_learns_label_dependence():
    """Labels 0 and 1 are always equal and 2 is their opposite: the Chow-Liu tree's learned 2x2
    tables favour agreement on (0, 1) and disagreement on the edge to 2, and predictions (tree or
    full graph) keep those relations."""
    rng = np.random.default_rng(4)
    n = 200
    y0 = rng.integers(0, 2, n)
    Y = np.column_stack([y0, y0, 1 - y0])
    X = np.column_stack([2.0 * y0 - 1 + rng.normal(0, 1.0, n), np.ones(n)])
    for edges, inference in (("tree", "auto"), ("full", "max-product")):
        est = OneSlackSSVM(MultiLabelModel(edges=edges, inference=inference), C=1.0).fit(X[:100], Y[:100])
        m = est.model_
        T = est.w_[3 * 2:].reshape(-1, 2, 2)
        for (k, l), t in zip(m.edges_.tolist() if edges == "tree" else [], T):
            agree = t[0, 0] + t[1, 1] - t[0, 1] - t[1, 0]
            assert agree > 0 if (k, l) == (0, 1) else agree < 0, (edges, k, l, t)
        P = np.array(est.predict(X[100:]))
        assert np.all(P[:, 0] == P[:, 1]) and np.all(P[:, 2] == 1 - P[:, 0])
        assert est.score(X[100:], Y[100:]) > 0.75


def denoising(rng, n, size=8, noise=0.9):
    edges = grid_edges(size, size)
    X, Y = [], []
    for _ in range(n):
        img = np.zeros((size, size), np.int64)
        r, c = rng.integers(0, size - 3, 2)
        img[r:r + 4, c:c + 4] = 1
        y = img.ravel()
        X.append((np.column_stack([np.eye(2)[y] + rng.normal(0, noise, (y.size, 2)), np.ones(y.size)]), edges))
        Y.append(y)
    return X, Y


@pytest.mark.parametrize("learner", [
    lambda m: OneSlackSSVM(m, C=1.0, max_iter=200),
    lambda m: NSlackSSVM(m, C=1.0, max_iter=30),
    lambda m: FrankWolfeSSVM(m, C=1.0, max_iter=30, random_state=0),
    lambda m: SubgradientSSVM(m, C=1.0, max_iter=30, random_state=0),
    lambda m: StructuredPerceptron(m, max_iter=10, random_state=0),
])
def test_every_learner_denoises_a_grid(learner):
    rng = np.random.default_rng(5)
    X, Y = denoising(rng, 16)
    argmax = np.mean(np.concatenate([x[0][:, :2].argmax(1) == y for x, y in zip(X[8:], Y[8:])]))
    est = learner(GraphModel(inference="max-product")).fit(X[:8], Y[:8])
    pred = est.predict(X[8:])
    assert len(pred) == 8 and all(p.shape == (64,) for p in pred)
    assert est.score(X[8:], Y[8:]) > argmax + 0.05
    assert not est.exact_inference_ and est.inference_stats_["max-product"] > 0


def test_auto_inference_is_exact_on_forests():
    rng = np.random.default_rng(6)
    X, Y = small_graphs(rng)
    est = OneSlackSSVM(GraphModel(), C=1.0).fit(X, Y)
    assert est.exact_inference_ and est.inference_stats_["max-product"] == 0


GOOD = (np.zeros((3, 2)), np.array([[0, 1], [1, 2]]))


@pytest.mark.parametrize("x, y, match", [
    ((np.zeros((3, 2)), np.array([[0, 3]])), [0, 0, 0], "index nodes"),
    ((np.zeros((3, 2)), np.array([[1, 1]])), [0, 0, 0], "self-loop"),
    ((np.zeros((3, 2)), np.array([[0, 1], [0, 1]])), [0, 0, 0], "duplicate"),
    ((np.zeros((3, 2)), np.array([[0, 1], [1, 0]])), [0, 0, 0], "duplicate"),
    ((np.zeros((3, 2)), np.array([[0.0, 1.0]])), [0, 0, 0], "integer"),
    ((np.zeros((3, 2)), np.array([[0, -1]])), [0, 0, 0], "index nodes"),
    ((np.zeros((3, 2)), np.array([[0, np.nan]])), [0, 0, 0], "integer"),
    ((np.zeros((0, 2)), np.zeros((0, 2), np.int64)), np.zeros(0, np.int64), "at least one node"),
    ((np.full((3, 2), np.nan), np.array([[0, 1]])), [0, 0, 0], "NaN"),
    ((np.zeros((3, 3)), np.array([[0, 1]])), [0, 0, 0], "same features"),
    (GOOD, [0, 0, 5], r"\[0, 2\)"),
    (GOOD, [0, -1, 1], r"\[0, 2\)"),
    (GOOD, [0, 1], "one integer per node"),
])
def test_bad_graphs_raise_at_initialize_and_predict(x, y, match):
    good_y = np.array([0, 1, 0])
    with pytest.raises(SuperposError, match=match):
        GraphModel(n_states=2).initialize([GOOD, x], [good_y, np.asarray(y, dtype=np.int64)])
    if match in ("one integer per node", r"\[0, 2\)"):
        return
    est = OneSlackSSVM(GraphModel(n_states=2), C=1.0, max_iter=3).fit([GOOD], [good_y])
    with pytest.raises(SuperposError, match=match):
        est.predict([x])


@pytest.mark.parametrize("kwargs, match", [
    ({"n_states": 1}, "n_states"),
    ({"class_weight": [1.0]}, "class_weight"),
    ({"class_weight": [1.0, -1.0]}, "class_weight"),
    ({"inference": "qpbo"}, "unknown inference"),
])
def test_bad_model_settings(kwargs, match):
    with pytest.raises(SuperposError, match=match):
        GraphModel(**kwargs).initialize([GOOD], [np.array([0, 1, 0])])


def test_bad_edge_features():
    x = (np.zeros((3, 2)), np.array([[0, 1], [1, 2]]), np.zeros((1, 2)))
    with pytest.raises(SuperposError, match="one row per edge"):
        EdgeFeatureGraphModel().initialize([x], [np.array([0, 1, 0])])
    x2 = (np.zeros((3, 2)), np.array([[0, 1], [1, 2]]), np.zeros((2, 3)))
    with pytest.raises(SuperposError, match="edge features"):
        EdgeFeatureGraphModel().initialize([(x[0], x[1], np.zeros((2, 2))), x2], [np.array([0, 1, 0])] * 2)
    with pytest.raises(SuperposError, match="triple"):
        EdgeFeatureGraphModel().initialize([GOOD], [np.array([0, 1, 0])])


def test_multilabel_accepts_boolean_targets():
    rng = np.random.default_rng(10)
    X = np.column_stack([rng.normal(size=(40, 2)), np.ones(40)])
    Y = X[:, :2] > 0
    est = OneSlackSSVM(MultiLabelModel(edges="tree"), C=1.0).fit(X, Y)
    assert est.score(X, Y) > 0.9 and np.array(est.predict(X)).dtype == np.int64


def test_bad_multilabel_input():
    with pytest.raises(SuperposError, match="0/1"):
        MultiLabelModel().initialize(np.zeros((2, 3)), np.array([[0, 2], [1, 0]]))
    with pytest.raises(SuperposError, match="edges"):
        MultiLabelModel(edges="star").initialize(np.zeros((2, 3)), np.array([[0, 1], [1, 0]]))
    est = OneSlackSSVM(MultiLabelModel(), C=1.0, max_iter=3).fit(np.zeros((2, 3)), np.array([[0, 1], [1, 0]]))
    with pytest.raises(SuperposError, match="length 3"):
        est.predict(np.zeros((2, 4)))


def test_load_snakes():
    from superpos.datasets import load_snakes

    s = load_snakes()
    assert len(s.X_train) == 200 and len(s.X_test) == 100
    assert s.X_train[0].shape[2] == 3 and s.X_train[0].shape[:2] == s.Y_train[0].shape
    assert sum(y.size for y in s.Y_train) == 7566 and max(int(y.max()) for y in s.Y_train) == 10


def star_groups(rng, n_graphs, group=5, noise=1.5):
    """Two groups of visible nodes per graph, each group a star around its own hidden node;
    a group's nodes share its label and see it through heavy noise."""
    X, Y = [], []
    for _ in range(n_graphs):
        labels = rng.integers(0, 2, 2)
        y = np.repeat(labels, group)
        f = np.column_stack([2.0 * y - 1 + rng.normal(0, noise, y.size), np.ones(y.size)])
        edges = np.array([[i, 2 * group + i // group] for i in range(2 * group)])
        X.append((f, edges, 2))
        Y.append(y)
    return X, Y


def test_latent_model_self_check_and_completion():
    from superpos.ssvm import LatentNodeModel
    from superpos.ssvm.inference import brute_force

    rng = np.random.default_rng(7)
    X, Y = star_groups(rng, 2, group=2)
    model = LatentNodeModel(n_hidden_states=2, inference="exact").initialize(X, Y)
    H = model.init_latent(X, Y, random_state=0)
    assert all(h.shape == (6,) and np.all(h[4:] >= 2) and np.all(h[:4] == y) for h, y in zip(H, Y))
    check_structured_model(LatentNodeModel(n_hidden_states=2, inference="exact"), X, H, random_state=0)
    w = rng.normal(size=model.size_joint_feature)
    for x, y in zip(X, Y):
        h = model.latent(x, y, w)
        assert np.array_equal(h[:4], y)
        # the completion is the best over the hidden states, by enumeration
        best = max((np.concatenate([y, [2 + a, 2 + b]]) for a in (0, 1) for b in (0, 1)),
                   key=lambda c: w @ model.joint_feature(x, c))
        assert w @ model.joint_feature(x, h) == pytest.approx(w @ model.joint_feature(x, best))
    assert model.loss(H[0], np.concatenate([H[0][:4], [3, 3]])) == 0  # hidden states cost nothing
    del brute_force


def test_latent_ssvm_beats_independent_nodes():
    from superpos.ssvm import LatentNodeModel, LatentSSVM

    rng = np.random.default_rng(8)
    X, Y = star_groups(rng, 60)
    Xtr, Ytr, Xte, Yte = X[:30], Y[:30], X[30:], Y[30:]
    plain = OneSlackSSVM(GraphModel(n_states=2), C=1.0).fit([(f, np.zeros((0, 2), np.int64)) for f, _, _ in Xtr], Ytr)
    base_acc = plain.score([(f, np.zeros((0, 2), np.int64)) for f, _, _ in Xte], Yte)
    lat = LatentSSVM(OneSlackSSVM(LatentNodeModel(n_hidden_states=2), C=1.0), latent_iter=5, random_state=0)
    lat.fit(Xtr, Ytr)
    pred = lat.predict(Xte)
    assert all(p.shape == (10,) for p in pred)
    assert lat.score(Xte, Yte) > base_acc + 0.1
    assert lat.base_ssvm_.warm_start and lat.n_iter_ >= 1


def test_warm_start_starts_from_the_previous_w():
    rng = np.random.default_rng(9)
    X, Y = denoising(rng, 6)
    for make in (lambda: OneSlackSSVM(GraphModel(inference="max-product"), C=1.0, max_iter=30),
                 lambda: SubgradientSSVM(GraphModel(inference="max-product"), C=1.0, max_iter=3, random_state=0),
                 lambda: StructuredPerceptron(GraphModel(inference="max-product"), max_iter=2, random_state=0)):
        est = make().fit(X, Y)
        first = est.objective(X, Y) if hasattr(est, "C") else None
        est.set_params(warm_start=True, max_iter=1)
        est.fit(X, Y)
        cold = make().set_params(max_iter=1).fit(X, Y)
        assert not np.allclose(est.w_, cold.w_)
        if first is not None:  # one more step from a good w stays near it; a cold single step does not
            assert est.objective(X, Y) <= max(first * 1.5, cold.objective(X, Y))
