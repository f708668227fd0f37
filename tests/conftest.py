"""Fixtures shared by the test modules: the shipped model, a tiny trained model, fast
search settings and small data sets with known laws."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from superpos import Basis, StructurePredictor, generate_corpus
from superpos.symreg.settings import FormulaSettings


@pytest.fixture(scope="session")
def shipped():
    """The shipped default structure model, loaded once."""
    from superpos.structure.shipped import load_predictor

    return load_predictor(None)


@pytest.fixture(scope="session")
def model_path(tmp_path_factory):
    """A tiny 3-variable model (seconds to train), saved: a path is clone- and pickle-safe."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.neural_network import MLPClassifier

    c = generate_corpus(Basis.default(3), 150, random_state=0, max_depth=3, max_size=7, n_points=(20, 40))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        p = StructurePredictor(context="parent+position+depth", size_bonus=0.0, random_state=0,
                               classifier=MLPClassifier((32,), max_iter=60, random_state=0)).fit(c)
    path = tmp_path_factory.mktemp("model") / "tiny.npz"
    p.save(path)
    return str(path)


@pytest.fixture
def fast() -> FormulaSettings:
    """Search settings for tests: few skeletons, no local search, seeded."""
    return FormulaSettings(top_k=40, search_rounds=0, random_state=0, simplify_seconds=0.5)


@pytest.fixture(scope="session")
def square_sin():
    """(X, y) of y = x^2 + sin x on 200 points of [0.1, 3]."""
    x = np.linspace(0.1, 3.0, 200)[:, None]
    return x, x[:, 0] ** 2 + np.sin(x[:, 0])


@pytest.fixture(scope="session")
def product_law():
    """(X, y) of y = 2 x1 x2 / x3 on 120 points of [1, 3]^3 (a reduction's law)."""
    X = np.random.default_rng(3).uniform(1.0, 3.0, (120, 3))
    return X, 2.0 * X[:, 0] * X[:, 1] / X[:, 2]


@pytest.fixture(scope="session")
def one_error_line():
    """check(result, code=2): the command printed exactly one ``error:`` line and exited with ``code``."""
    def check(r, code: int = 2) -> bool:
        return r.exit_code == code and r.output.startswith("error: ") and r.output.count("\n") == 1
    return check
