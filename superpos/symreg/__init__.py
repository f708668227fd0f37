"""One data set's formula (symbolic regression guided by the structure model).

``settings`` is the validated record of a search's settings, ``fitting`` the constant fit
(one compiled path), ``candidates`` the decoded skeletons fitted on a split of the points,
``selection`` the rule that picks the winner and the plausibility check, ``search`` the local
search by single edits, ``units`` the power-of-ten normalisation and the map back, ``inputs``
data with more inputs than the model knows, ``uncertainty`` standard errors, confidence and
the accuracy-complexity front, ``render`` constant rounding and capped simplification,
``pipeline`` :func:`find_formula` top-down, and ``regressor`` :class:`SuperposRegressor`.
"""
