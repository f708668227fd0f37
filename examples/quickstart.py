"""Quickstart: generate a corpus, train a structure predictor, predict the formula of a data set.

Run:  python examples/quickstart.py      (about a minute on 2 cores)
"""
import numpy as np

from superpos import Basis, StructurePredictor, generate_corpus
from superpos.core.tree import to_string

basis = Basis.default(n_variables=1)
train = generate_corpus(basis, 4000, random_state=0, n_jobs=2)
model = StructurePredictor(basis=basis, random_state=0).fit(train)

rng = np.random.default_rng(1)
X = rng.uniform(-3, 3, size=(100, 1))
y = 1.5 * np.sin(X[:, 0]) + X[:, 0]
print("data: y = 1.5*sin(x1) + x1 on 100 points in [-3, 3]")
for score, tree in model.predict_trees([(X, y)], k=5)[0]:
    print(f"  log-likelihood {score:8.3f}   {to_string(tree, basis)}")
print("best skeleton:", model.predict(X, y))

# The data then chooses between the 100 most likely skeletons, constants fitted:
from superpos import SuperposRegressor  # noqa: E402

reg = SuperposRegressor(predictor=model, top_k=100, random_state=0).fit(X, y)
print("formula:", reg.expr_, f"  R^2 = {reg.score(X, y):.6f}")
