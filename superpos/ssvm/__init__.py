"""Structural SVMs: a model (Psi, oracles, loss) and learners that only use that interface.

Objective of every learner: 0.5 ||w||^2 + C sum_n max_y [Delta(y_n, y) + <w, Psi(x_n, y) - Psi(x_n, y_n)>].
"""
from .base import StructuredModel, check_structured_model
from .learners import FrankWolfeSSVM, KernelSSVM, NSlackSSVM, OneSlackSSVM, StructuredPerceptron, SubgradientSSVM
from .learners._common import per_label_accuracy, primal_objective
from .models import ChainModel, MulticlassModel, TreeModel

__all__ = ["StructuredModel", "check_structured_model", "MulticlassModel", "ChainModel", "TreeModel",
           "StructuredPerceptron", "SubgradientSSVM", "NSlackSSVM", "OneSlackSSVM", "FrankWolfeSSVM", "KernelSSVM",
           "primal_objective", "per_label_accuracy"]
