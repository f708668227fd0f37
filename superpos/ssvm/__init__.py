"""Structural SVMs: a model (Psi, oracles, loss) and learners that only use that interface.

Objective of every learner: 0.5 ||w||^2 + C sum_n max_y [Delta(y_n, y) + <w, Psi(x_n, y) - Psi(x_n, y_n)>]
(with MulticlassModel and the 0-1 loss, LinearSVC(multi_class="crammer_singer",
fit_intercept=False)'s objective).

>>> from superpos.ssvm import ChainModel, FrankWolfeSSVM
>>> from superpos.datasets import load_ocr_letters
>>> ocr = load_ocr_letters()                                          # doctest: +SKIP
>>> ssvm = FrankWolfeSSVM(ChainModel(), C=0.1).fit(ocr.X[:500], ocr.y[:500])  # doctest: +SKIP
>>> ssvm.score(ocr.X[500:], ocr.y[500:])                               # doctest: +SKIP
"""
from .base import StructuredModel, check_structured_model
from .learners import (FrankWolfeSSVM, KernelSSVM, LatentSSVM, NSlackSSVM, OneSlackSSVM, StructuredPerceptron,
                       SubgradientSSVM)
from .learners._common import per_label_accuracy, primal_objective
from .models import (ChainModel, EdgeFeatureGraphModel, GraphModel, LatentNodeModel, MulticlassModel,
                     MultiLabelModel, TreeModel, grid_edges)

__all__ = ["StructuredModel", "check_structured_model", "MulticlassModel", "ChainModel", "TreeModel",
           "GraphModel", "EdgeFeatureGraphModel", "grid_edges", "MultiLabelModel", "LatentNodeModel", "LatentSSVM",
           "StructuredPerceptron", "SubgradientSSVM", "NSlackSSVM", "OneSlackSSVM", "FrankWolfeSSVM", "KernelSSVM",
           "primal_objective", "per_label_accuracy"]
