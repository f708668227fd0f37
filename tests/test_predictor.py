import numpy as np
import pytest
import sympy
from sklearn.linear_model import LogisticRegression

from superpos import Basis, StructurePredictor, SuperposError, generate_corpus
from superpos.core.tree import is_admissible, tree_depth


@pytest.fixture(scope="module")
def corpora():
    b = Basis.default(n_variables=1)
    return (generate_corpus(b, 800, random_state=0, max_depth=3, max_size=7),
            generate_corpus(b, 100, random_state=1, max_depth=3, max_size=7))


@pytest.fixture(scope="module")
def fitted(corpora):
    return StructurePredictor(random_state=0).fit(corpora[0])


def test_predict_returns_sympy_and_admissible_tree(fitted, corpora):
    X, y = corpora[1].dataset(0)
    expr = fitted.predict(X, y)
    assert isinstance(expr, sympy.Expr)
    t = fitted.predict_tree(X, y)
    assert is_admissible(t, fitted.basis_.arities) and tree_depth(t, fitted.basis_.arities) <= 3


def test_theta_is_a_distribution_over_children(fitted, corpora):
    X, y = corpora[1].dataset(1)
    theta = fitted.predict_proba(X, y)
    H = len(fitted.basis_)
    assert theta.shape == (3, H, H, 2, H)
    np.testing.assert_allclose(theta[0, 0, 0, 0].sum(), 1.0)
    assert theta[0, 0, 0, 0, 0] == 0.0  # the root is never a child
    assert np.all(theta[0, 0, 0, 0, 1:] > 0)  # floor: never log 0


def test_learns_better_than_chance(fitted, corpora):
    score = fitted.score(corpora[1])
    assert 0.05 < score <= 1.0
    assert fitted.score(corpora[0]) >= score - 0.05


def test_kbest_contains_the_best(fitted, corpora):
    res = fitted.predict_trees(corpora[1].datasets[:5], k=5)
    for b, r in enumerate(res):
        vals = [v for v, _ in r]
        assert vals == sorted(vals, reverse=True) and len(r) == 5
        assert np.array_equal(r[0][1], fitted.predict_tree(*corpora[1].dataset(b)))
        assert len({t.tobytes() for _, t in r}) == 5


@pytest.mark.parametrize("context", ["parent", "parent+position+depth"])
def test_other_contexts(context, corpora):
    p = StructurePredictor(context=context, random_state=0,
                           classifier=LogisticRegression(max_iter=200)).fit(corpora[0].subset(slice(0, 150)))
    t = p.predict_tree(*corpora[1].dataset(0))
    assert is_admissible(t, p.basis_.arities)


def test_fit_on_lists_and_get_params(corpora):
    c = corpora[0].subset(slice(0, 120))
    p = StructurePredictor(basis=c.basis, max_depth=3, classifier=LogisticRegression(max_iter=500))
    assert p.get_params()["max_depth"] == 3
    assert p.fit(c.datasets, c.trees) is p
    assert hasattr(p, "classifier_") and not hasattr(StructurePredictor(), "classifier_")


def test_save_load_same_predictions(fitted, corpora, tmp_path):
    path = tmp_path / "model.npz"
    fitted.save(path)
    back = StructurePredictor.load(path)
    L1 = fitted.log_theta(corpora[1].datasets[:10])
    L2 = back.log_theta(corpora[1].datasets[:10])
    np.testing.assert_allclose(L1, L2, rtol=1e-10, atol=1e-10)


def test_exported_gbt_matches_sklearn(corpora):
    from sklearn.ensemble import HistGradientBoostingClassifier

    from superpos.structure.export import ExportedGBT

    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 5))
    X[::17, 2] = np.nan
    for n_classes in (2, 4):
        y = (X[:, 0] > 0).astype(int) + (n_classes > 2) * 2 * (X[:, 1] > 0)
        clf = HistGradientBoostingClassifier(max_iter=20, random_state=0).fit(X, y)
        np.testing.assert_allclose(ExportedGBT.from_sklearn(clf).predict_proba(X), clf.predict_proba(X),
                                   rtol=1e-9, atol=1e-12)


def test_load_refuses_bad_files(tmp_path, corpora):
    with pytest.raises(SuperposError):
        StructurePredictor.load(tmp_path / "nope.npz")
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(SuperposError):
        StructurePredictor.load(bad)
    corpus_file = tmp_path / "c.npz"
    corpora[1].save(corpus_file)
    with pytest.raises(SuperposError, match="expected"):
        StructurePredictor.load(corpus_file)


def test_unfitted_and_bad_context(corpora):
    with pytest.raises(SuperposError):
        StructurePredictor().predict(*corpora[1].dataset(0))
    with pytest.raises(SuperposError):
        StructurePredictor(context="siblings").fit(corpora[1])


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_exported_mlp_matches_sklearn():
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from superpos.structure.export import ExportedMLP

    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 6)) * 5 + 2
    y = (X[:, 0] > 2).astype(int) + 2 * (X[:, 1] > 2)
    for clf in (make_pipeline(StandardScaler(), MLPClassifier((16, 8), max_iter=50, random_state=0)),
                MLPClassifier((8,), activation="tanh", max_iter=50, random_state=0)):
        clf.fit(X, y)
        e = ExportedMLP.from_sklearn(clf)
        np.testing.assert_allclose(e.predict_proba(X), clf.predict_proba(X), rtol=1e-9, atol=1e-12)
        back = ExportedMLP.from_arrays(e.to_arrays("p_"), "p_")
        np.testing.assert_allclose(back.predict_proba(X), clf.predict_proba(X), rtol=1e-9, atol=1e-12)
        A, B = X[:4, :4], X[:7, 4:]
        rows = np.hstack([np.repeat(A, len(B), axis=0), np.tile(B, (len(A), 1))])
        np.testing.assert_allclose(e.predict_proba_blocks(A, B), clf.predict_proba(rows), rtol=1e-9, atol=1e-12)


def test_parameters_follow_scikit_learn_without_importing_it():
    import subprocess
    import sys

    from sklearn.base import clone

    from superpos import DatasetFeatures, StructurePredictor

    p = StructurePredictor(features=DatasetFeatures(n_grid=16), max_depth=4)
    q = clone(p)
    assert q.get_params()["features__n_grid"] == 16 and q.features is not p.features
    q.set_params(features__n_grid=8, floor=1e-3)
    assert (q.features.n_grid, q.floor, p.features.n_grid) == (8, 1e-3, 16)
    assert repr(q) == "StructurePredictor(features=DatasetFeatures(n_grid=8), floor=0.001, max_depth=4)"
    with pytest.raises(ValueError, match="invalid parameter"):
        q.set_params(depth=3)
    from sklearn.frozen import FrozenEstimator
    from sklearn.utils import get_tags

    assert get_tags(DatasetFeatures()).transformer_tags is not None
    assert get_tags(FrozenEstimator(p)).estimator_type is None
    # the command line's predict path starts without scikit-learn (about 0.9 s of imports)
    code = ("import sys, superpos.cli, superpos.symreg.pipeline, superpos.datasets.reader; "
            "sys.exit(any(m.split('.')[0] in ('sklearn', 'scipy') for m in sys.modules))")
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def test_fit_decision_is_the_canonical_skeleton_predict_finds(fitted, corpora, monkeypatch):
    """decision="fit": the top-1 tree is find_formula's winner, canonicalised with its fitted
    constants like the corpus labels (x1 - 1.5 is sub(x1, c), not add(c, x1)); the k best stay
    the most likely trees; bad settings fail before any work; failures count as the tree c."""
    import sympy as sp

    import superpos.symreg.pipeline
    from superpos.structure.metrics import _fitted_skeleton, structure_metrics
    from superpos.core.symbolic import from_sympy
    from superpos.symreg.settings import FormulaSettings

    small = corpora[1].subset(slice(0, 30))
    ml = structure_metrics(fitted, small, k=5)
    fit = structure_metrics(fitted, small, k=5, decision="fit", fit_options=dict(top_k=20))
    assert fit["all"]["topk"] == ml["all"]["topk"] and fit["all"]["n"] == 30
    assert structure_metrics(fitted, small, k=5, decision="fit", fit_options=dict(top_k=20), n_jobs=2) == fit
    b = fitted.basis_
    X = np.linspace(-2, 3, 40)[:, None]
    x1 = sp.Symbol("x1")
    for truth in (x1 - 1.5, 2.5 * x1 + 0.7):
        y = np.asarray(sp.lambdify(x1, truth)(X[:, 0]), dtype=float)
        assert np.array_equal(_fitted_skeleton(fitted, X, y, FormulaSettings(top_k=50, random_state=0)), from_sympy(truth, b)[0])
    for bad in (dict(top_k=0), dict(search_rounds=-1), dict(topk=5)):
        with pytest.raises(SuperposError):
            structure_metrics(fitted, small, decision="fit", fit_options=bad)
    with pytest.raises(SuperposError, match="decision"):
        structure_metrics(fitted, small, decision="map")

    def fail(*args, **kwargs):
        raise SuperposError("the model proposed no formula over this data's variables")

    monkeypatch.setattr(superpos.symreg.pipeline, "find_formula", fail)
    assert _fitted_skeleton(fitted, X, X[:, 0], FormulaSettings()).tolist() == [b.constant]
