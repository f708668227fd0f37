"""Every numba kernel of superpos, on plain arrays, grouped by concept.

``tree``: the tree DP, the seed's iteration, tree scores and edge rows; ``kbest``: the exact
k best trees; ``keys``: structural hashes of trees;
``program``: skeletons as prefix programs (evaluation, linear constants, the normalised
error); ``fit``: constant fitting of many skeletons; ``ensemble``: an exported
gradient-boosted classifier; ``ssvm``: chain Viterbi, the dual QP and the Frank-Wolfe pass;
``graph``: MAP inference on pairwise graphs (forest max-sum, loopy max-product).
Their plain-Python and numpy twins live in ``tests/twins.py`` and ``tests/twins_fit.py``.
"""
from .ensemble import gbt_raw_scores
from .graph import forest_map, forest_order, graph_energy, max_product
from .kbest import tree_kbest
from .ssvm import bcfw_table_pass, chain_viterbi, chain_viterbi_batch, simplex_qp
from .tree import NEG_INF, edge_rows_batch, seed_decode, tree_dp, tree_dp_batch, tree_scores

__all__ = ["NEG_INF", "edge_rows_batch", "tree_dp", "tree_dp_batch", "tree_kbest", "seed_decode", "tree_scores",
           "gbt_raw_scores", "chain_viterbi", "chain_viterbi_batch", "simplex_qp", "bcfw_table_pass",
           "forest_map", "forest_order", "graph_energy", "max_product"]
