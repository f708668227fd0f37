"""Structured models: multiclass, chain (seed 000), SSF tree, and graph CRFs."""
from .chain import ChainModel
from .graph import EdgeFeatureGraphModel, GraphModel, grid_edges
from .latent import LatentNodeModel
from .multiclass import MulticlassModel
from .multilabel import MultiLabelModel
from .tree import TreeModel

__all__ = ["MulticlassModel", "ChainModel", "TreeModel", "GraphModel", "EdgeFeatureGraphModel", "grid_edges",
           "MultiLabelModel", "LatentNodeModel"]
