"""Learners: each sees a model only through the StructuredModel interface."""
from .cutting_plane import NSlackSSVM, OneSlackSSVM
from .frank_wolfe import FrankWolfeSSVM
from .kernel_dual import KernelSSVM
from .latent import LatentSSVM
from .perceptron import StructuredPerceptron
from .subgradient import SubgradientSSVM

__all__ = ["StructuredPerceptron", "SubgradientSSVM", "NSlackSSVM", "OneSlackSSVM", "FrankWolfeSSVM", "KernelSSVM",
           "LatentSSVM"]
