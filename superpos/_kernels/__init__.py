"""Every numba kernel of superpos, on plain arrays, kept together in this package.

``tree``: the tree DP, k-best and the seed's iteration; ``ensemble``: an exported
gradient-boosted classifier; ``ssvm``: chain Viterbi, the dual QP and the Frank-Wolfe pass.
Reference twins in plain Python live in ``superpos/_reference.py``.
"""
from .ensemble import gbt_raw_scores
from .ssvm import chain_viterbi, chain_viterbi_batch, simplex_qp, bcfw_table_pass
from .tree import NEG_INF, edge_rows_batch, tree_dp, tree_dp_batch, _merge_children, _combine, tree_kbest, seed_decode, tree_scores

__all__ = ['NEG_INF', 'edge_rows_batch', 'tree_dp', 'tree_dp_batch', '_merge_children', '_combine', 'tree_kbest', 'seed_decode', 'tree_scores', 'gbt_raw_scores', 'chain_viterbi', 'chain_viterbi_batch', 'simplex_qp', 'bcfw_table_pass']
