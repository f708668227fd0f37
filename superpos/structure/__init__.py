"""The structure model (seed 003): from a data set to theta(x) to the most likely trees.

``prior`` draws training formulas, ``corpus`` keeps them (memory or shards), ``features``
maps a data set to phi(x), ``contexts`` encodes an edge's context, ``export`` saves the
edge classifier as plain arrays, ``predictor`` is :class:`StructurePredictor`, ``decode``
the tree DP (best, k best, MBR, the seed's iteration), ``metrics`` the structure measures
on a held-out corpus and ``shipped`` the default model and model loading.
"""
