"""Figures (needs the ``plot`` extra, matplotlib): data against the fitted formula, and the
predicted tree with its edge probabilities."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from .exceptions import SuperposError

__all__ = ["plot_prediction"]


def plot_prediction(path, X: np.ndarray, y: np.ndarray, formula, predictor, names: list[str], title: str) -> None:
    """Write a PNG: left, y against the variable with the values of ``formula`` (with several
    inputs: the formula's values against the observed target) (a
    :class:`superpos.symreg.pipeline.Formula`); right, its tree (networkx), edges labelled with the
    probabilities ``predictor`` (anything :func:`~superpos.structure.shipped.load_predictor` takes) gives them."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise SuperposError("--plot needs matplotlib: pip install 'superpos[plot]'") from None
    import networkx as nx

    from .core.basis import Basis
    from .core.files import atomic_write
    from .core.tree import edge_contexts, to_networkx
    from .structure.shipped import load_predictor

    pred = load_predictor(predictor)
    basis = Basis(formula.basis_names)
    tree = formula.tree
    probs = None
    if basis == pred.basis_:  # the model's own basis: its edge probabilities label the tree
        theta = np.exp(pred.log_theta([(X, y)])[0])
        e = edge_contexts(tree, basis.arities)
        Dd, G, _, A, _ = theta.shape
        probs = theta[np.minimum(e[:, 0] - 1, Dd - 1), e[:, 1] if G > 1 else 0, e[:, 2], np.minimum(e[:, 3], A - 1),
                      e[:, 4]]
    g = to_networkx(tree, basis, probs)

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.5))
    with np.errstate(all="ignore"):
        fitted = formula.predict(X)
    if X.shape[1] == 1:
        order = np.argsort(X[:, 0])
        ax1.scatter(X[:, 0], y, s=12, color="0.3", label="data")
        ax1.plot(X[order, 0], fitted[order], color="C1", label="formula")
        ax1.set_xlabel(names[0])
        ax1.set_ylabel("target")
    else:  # several inputs: a curve against one of them zig-zags; predicted against observed does not
        lo, hi = float(np.nanmin(y)), float(np.nanmax(y))
        ax1.scatter(y, fitted, s=10, color="0.3", label="data points")
        ax1.plot([lo, hi], [lo, hi], color="C1", label="predicted = observed")
        ax1.set_xlabel("observed target")
        ax1.set_ylabel("formula")
    ax1.legend()
    ax1.set_title(title, fontsize=9)
    depth = nx.shortest_path_length(g, 0)
    layers: dict[int, list[int]] = {}
    for node, d in depth.items():
        layers.setdefault(d, []).append(node)
    pos = {n: ((k + 1) / (len(ns) + 1), -d) for d, ns in layers.items() for k, n in enumerate(sorted(ns))}
    labels = {n: g.nodes[n]["name"] for n in g.nodes}
    nx.draw_networkx(g, pos, ax=ax2, labels=labels, node_color="#dde8f5", node_size=900, font_size=9, arrows=False)
    if probs is not None:
        nx.draw_networkx_edge_labels(g, pos, ax=ax2, font_size=7,
                                     edge_labels={(u, v): f"{d.get('probability', 0):.2f}" for u, v, d in g.edges(data=True)})
    ax2.set_axis_off()
    ax2.set_title("predicted tree, edge probabilities" if probs is not None else "formula tree", fontsize=9)
    fig.tight_layout()
    atomic_write(Path(path), lambda fh: fig.savefig(fh, format="png", dpi=110))
    plt.close(fig)
