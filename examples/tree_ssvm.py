"""SSF as a structural SVM: TreeModel against the classifier route on one generated corpus.

A small corpus of formulas over {add, mul, sin, exp, x1, c} (depth <= 3) is split into
train and test. Route 1 (S-SVM): phi(x) from DatasetFeatures, standardised and reduced by
PCA, plus a bias, is the input of TreeModel (context parent+position+depth); block-coordinate
Frank-Wolfe learns w, and prediction is the tree DP on S = w . phi(x).
Route 2 (seed 003 / DESIGN section 1): StructurePredictor, an edge classifier giving
log theta[d, i, p, j](x) and the same DP. Both are scored by skeleton exact match
and seed 003's edge Hamming loss on the test formulas.

Run:  python examples/tree_ssvm.py   (about a minute on one core)
"""
from __future__ import annotations

import time

import numpy as np
from sklearn.decomposition import PCA
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from superpos.core.basis import Basis
from superpos.structure.corpus import generate_corpus
from superpos.structure.features import DatasetFeatures
from superpos.structure.predictor import StructurePredictor
from superpos.ssvm import FrankWolfeSSVM, TreeModel
from superpos.core.tree import hamming_loss, to_string


def main(n_formulas: int = 400, n_test: int = 100, max_depth: int = 3, C: float = 0.1, n_components: int = 50,
         seed: int = 0) -> dict:
    basis = Basis(["add", "mul", "sin", "exp", "x1", "c"])
    corpus = generate_corpus(basis, n_formulas, random_state=seed, max_depth=max_depth, max_size=7,
                             n_points=(30, 60), max_skeleton_share=0.05)
    train, test = corpus.subset(slice(0, len(corpus) - n_test)), corpus.subset(slice(len(corpus) - n_test, None))
    ar = basis.arities
    print(f"corpus: {len(train)} train / {len(test)} test formulas over {basis.names[1:]}, depth <= {max_depth}")

    # --- route 1: TreeModel S-SVM -------------------------------------------------------
    t0 = time.perf_counter()
    feats = DatasetFeatures().fit()
    reduce = make_pipeline(StandardScaler(), PCA(n_components=n_components, random_state=seed))
    phi_tr = reduce.fit_transform(np.nan_to_num(feats.transform(train.datasets)))
    phi_te = reduce.transform(np.nan_to_num(feats.transform(test.datasets)))
    phi_tr = np.hstack([phi_tr, np.ones((len(phi_tr), 1))])
    phi_te = np.hstack([phi_te, np.ones((len(phi_te), 1))])
    ssvm = FrankWolfeSSVM(TreeModel(ar, max_depth=max_depth), C=C, tol=1e-2, max_iter=100, averaging=True,
                          random_state=seed).fit(phi_tr, train.trees)
    pred_s = ssvm.predict(phi_te)
    t_s = time.perf_counter() - t0

    # --- route 2: edge classifier + DP ----------------------------------------------------
    t0 = time.perf_counter()
    clf = HistGradientBoostingClassifier(max_iter=60, learning_rate=0.15, max_leaf_nodes=31,
                                         min_samples_leaf=20, random_state=seed)  # default, smaller for speed
    sp = StructurePredictor(basis=basis, max_depth=max_depth, classifier=clf, random_state=seed).fit(train)
    pred_c = [r[0][1] for r in sp.predict_trees(test.datasets)]
    t_c = time.perf_counter() - t0

    def summary(pred):
        exact = np.mean([np.array_equal(p, t) for p, t in zip(pred, test.trees)])
        ham = np.mean([hamming_loss(p, t, ar) for p, t in zip(pred, test.trees)])
        return exact, ham

    out = {}
    print(f"{'route':<28} {'exact match':>11} {'edge Hamming':>12} {'time (s)':>9}")
    for name, pred, t in (("S-SVM TreeModel (BCFW)", pred_s, t_s), ("edge classifier + DP", pred_c, t_c)):
        exact, ham = summary(pred)
        out[name] = (exact, ham, t)
        print(f"{name:<28} {exact:>11.3f} {ham:>12.3f} {t:>9.1f}")
    print(f"S-SVM: {ssvm.n_iter_} Frank-Wolfe passes, objective {ssvm.objective_curve_[-1]:.4g}")
    for p, t in list(zip(pred_s, test.trees))[:5]:
        print(f"  true {to_string(t, basis):<28} S-SVM {to_string(p, basis)}")
    return out


if __name__ == "__main__":
    with threadpool_limits(1):  # the machine's cores are better spent elsewhere than on BLAS threads
        main()
