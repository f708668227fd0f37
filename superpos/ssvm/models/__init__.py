"""Structured models: multiclass, chain (seed 000) and SSF tree."""
from .chain import ChainModel
from .multiclass import MulticlassModel
from .tree import TreeModel

__all__ = ["MulticlassModel", "ChainModel", "TreeModel"]
