"""One data set's formula (symbolic regression guided by the structure model).

``settings`` is the validated record of a search's settings, ``fitting`` the constant fit
(one compiled path), ``candidates`` the decoded skeletons fitted on a split of the points,
``selection`` the rule that picks the winner, ``search`` the local search by single edits,
``render`` constant rounding and capped simplification, ``pipeline`` :func:`find_formula`
top-down, and ``regressor`` :class:`SuperposRegressor`.
"""
