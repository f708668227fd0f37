"""Every learner on separable toy problems, the objective against LinearSVC, the estimator contract."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.svm import LinearSVC

from superpos import SuperposError
from superpos.ssvm import (ChainModel, FrankWolfeSSVM, MulticlassModel, NSlackSSVM, OneSlackSSVM,
                           StructuredPerceptron, SubgradientSSVM, primal_objective)

LEARNERS = {
    "perceptron": lambda m: StructuredPerceptron(m, max_iter=50, random_state=0),
    "subgradient": lambda m: SubgradientSSVM(m, C=10.0, max_iter=60, random_state=0),
    "subgradient_batch": lambda m: SubgradientSSVM(m, C=10.0, max_iter=60, batch_size=4, random_state=0),
    "nslack": lambda m: NSlackSSVM(m, C=10.0),
    "oneslack": lambda m: OneSlackSSVM(m, C=10.0),
    "frankwolfe": lambda m: FrankWolfeSSVM(m, C=10.0, max_iter=200, random_state=0),
    "frankwolfe_batch": lambda m: FrankWolfeSSVM(m, C=10.0, max_iter=300, batch_size=5, averaging=True,
                                                 random_state=0),
}


def _multiclass_toy(n=60, K=3, F=4, seed=0):
    rng = np.random.default_rng(seed)
    centers = 4.0 * rng.normal(size=(K, F))
    y = rng.integers(0, K, size=n)
    return centers[y] + 0.3 * rng.normal(size=(n, F)), y


def _chain_toy(n=30, K=3, seed=0):
    """Letters are noisy one-hot codes, except state 2 which looks like state 1 and is told
    apart only by the transition (it always follows state 0)."""
    rng = np.random.default_rng(seed)
    X, Y = [], []
    for _ in range(n):
        T = int(rng.integers(2, 6))
        y = rng.integers(0, 2, size=T)
        for t in range(1, T):
            if y[t - 1] == 0:
                y[t] = 2
        code = np.eye(2)[np.minimum(y, 1)] + 0.1 * rng.normal(size=(T, 2))
        X.append(np.hstack([code, np.ones((T, 1))]))
        Y.append(y)
    return X, Y


@pytest.mark.parametrize("name", sorted(LEARNERS))
def test_learners_fit_separable_multiclass(name):
    X, y = _multiclass_toy()
    est = LEARNERS[name](MulticlassModel()).fit(X, y)
    assert est.score(X, y) == 1.0
    assert est.w_.shape == (3 * 4,) and est.n_iter_ >= 1 and est.objective_curve_.size >= 1


@pytest.mark.parametrize("name", sorted(LEARNERS))
def test_learners_fit_separable_chain(name):
    X, Y = _chain_toy()
    est = LEARNERS[name](ChainModel()).fit(X, Y)
    assert est.score(X, Y) == 1.0
    pred = est.predict(X)
    assert all(np.array_equal(p, y) for p, y in zip(pred, Y))


def test_objective_matches_linearsvc_crammer_singer():
    """Our 0-1 multiclass objective is LinearSVC's crammer_singer objective: the optima agree."""
    X, y = _multiclass_toy(n=80, seed=1)
    X = X + 2.0 * np.random.default_rng(2).normal(size=X.shape)  # not separable
    C = 0.5
    svc = LinearSVC(multi_class="crammer_singer", fit_intercept=False, C=C, tol=1e-8, max_iter=100_000).fit(X, y)
    model = MulticlassModel().initialize(X, y)
    ref = primal_objective(model, X, y, svc.coef_.ravel(), C)
    # the hinge by hand: sum_n max_k (1[k != y_n] + w_k x_n - w_{y_n} x_n)
    W = svc.coef_
    s = X @ W.T
    hand = 0.5 * np.sum(W**2) + C * np.sum(np.max(s + 1 - np.eye(3)[y], axis=1) - s[np.arange(len(y)), y])
    assert np.isclose(ref, hand)
    for est in (OneSlackSSVM(MulticlassModel(), C=C, tol=1e-5), NSlackSSVM(MulticlassModel(), C=C, tol=1e-5),
                FrankWolfeSSVM(MulticlassModel(), C=C, tol=1e-4, max_iter=2000, random_state=0)):
        obj = est.fit(X, y).objective(X, y)
        assert obj <= ref * (1 + 1e-3) and obj >= ref * (1 - 1e-3), (type(est).__name__, obj, ref)


def test_estimator_contract():
    est = FrankWolfeSSVM(MulticlassModel(), C=2.0, random_state=3)
    params = est.get_params()
    assert params["C"] == 2.0 and isinstance(params["model"], MulticlassModel)
    c = clone(est)
    assert c.C == 2.0 and not hasattr(c, "w_")
    X, y = _multiclass_toy(n=20)
    est.fit(X, y)
    assert not hasattr(est.model, "n_classes_"), "fit must not modify the model parameter"
    with pytest.raises(SuperposError):
        FrankWolfeSSVM(MulticlassModel()).predict(X)
    with pytest.raises(SuperposError):
        OneSlackSSVM(MulticlassModel(), C=-1).fit(X, y)
    with pytest.raises(SuperposError):
        OneSlackSSVM("not a model").fit(X, y)


def test_kernel_dual_linear_matches_primal_and_rbf_separates():
    from superpos.ssvm import KernelSSVM
    X, y = _multiclass_toy(n=50, seed=3)
    X = X + 1.5 * np.random.default_rng(4).normal(size=X.shape)
    C = 0.3
    kd = KernelSSVM(MulticlassModel(), C=C, kernel="linear", tol=1e-5, max_iter=500, random_state=0).fit(X, y)
    w = (kd.dual_coef_.T @ X).ravel()  # linear kernel: w_k = sum_n beta_nk x_n
    model = MulticlassModel().initialize(X, y)
    ref = OneSlackSSVM(MulticlassModel(), C=C, tol=1e-6).fit(X, y).objective(X, y)
    assert np.isclose(primal_objective(model, X, y, w, C), ref, rtol=1e-3)
    assert np.array_equal(kd.predict(X), np.argmax(X @ w.reshape(3, -1).T, axis=1))
    # XOR-like classes: not linearly separable, separable with an RBF kernel
    rng = np.random.default_rng(5)
    Z = rng.uniform(-1, 1, size=(80, 2))
    z = ((Z[:, 0] > 0) ^ (Z[:, 1] > 0)).astype(int)
    Z += 0.2 * np.sign(Z)
    rbf = KernelSSVM(MulticlassModel(), C=100.0, kernel="rbf", kernel_params={"gamma": 2.0}, random_state=0).fit(Z, z)
    assert rbf.score(Z, z) == 1.0
    assert clone(rbf).get_params()["kernel"] == "rbf"


def test_frank_wolfe_compiled_table_path_equals_oracle_path():
    """MulticlassModel tabulates its outputs: the compiled BCFW pass must give the same w as the
    oracle loop (a model without the table)."""

    class NoTable(MulticlassModel):
        def output_table(self, X, Y):
            return None

    X, y = _multiclass_toy(n=40, seed=6)
    X = X + 2.0 * np.random.default_rng(7).normal(size=X.shape)
    for averaging in (False, True):
        a = FrankWolfeSSVM(MulticlassModel(), C=0.3, max_iter=7, tol=0, averaging=averaging, random_state=1).fit(X, y)
        b = FrankWolfeSSVM(NoTable(), C=0.3, max_iter=7, tol=0, averaging=averaging, random_state=1).fit(X, y)
        assert np.allclose(a.w_, b.w_) and np.allclose(a.objective_curve_, b.objective_curve_)


@pytest.mark.parametrize("name", ["oneslack", "frankwolfe", "perceptron"])
def test_learners_fit_separable_trees(name):
    """TreeModel: each data set's feature vector names its tree (one-hot): every learner
    recovers every tree exactly."""
    from superpos.core.basis import Basis
    from superpos.ssvm import TreeModel

    ar = Basis(["add", "sin", "x1", "c"]).arities
    trees = [np.array(t) for t in ([3], [2, 3], [1, 3, 4], [1, 2, 4, 3], [2, 2, 4], [1, 4, 4])]
    rng = np.random.default_rng(0)
    X = np.hstack([np.eye(len(trees)) + 0.05 * rng.normal(size=(len(trees), len(trees))), np.ones((len(trees), 1))])
    est = LEARNERS[name](TreeModel(ar, max_depth=3)).fit(X, trees)
    assert all(np.array_equal(p, t) for p, t in zip(est.predict(X), trees))


@pytest.mark.parametrize("params", [dict(max_iter=0), dict(check_every=0), dict(batch_size=0)])
def test_frank_wolfe_rejects_bad_counts(params):
    from superpos import SuperposError
    from superpos.ssvm import FrankWolfeSSVM, MulticlassModel

    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    with pytest.raises(SuperposError, match="must be >= 1"):
        FrankWolfeSSVM(MulticlassModel(), **params).fit(X, np.array([0, 1]))


@pytest.mark.parametrize("name", ["nslack", "oneslack", "frankwolfe", "frankwolfe_batch"])
def test_reported_objective_is_the_one_primal_objective(name):
    """The curves the learners record (aggregate hinge, per-sample hinges, the batch oracle)
    are all primal_objective: the best / last entry equals it at the returned w."""
    X, y = _multiclass_toy(n=40, seed=3)
    X = X + 1.5 * np.random.default_rng(4).normal(size=X.shape)  # not separable: hinges > 0
    est = LEARNERS[name](MulticlassModel()).set_params(C=0.5).fit(X, y)
    ref = primal_objective(est.model_, X, y, est.w_, 0.5)
    got = est.objective_curve_.min() if "slack" in name else est.objective_curve_[-1]
    assert got == pytest.approx(ref, rel=1e-12) and ref > 0.5 * est.w_ @ est.w_
