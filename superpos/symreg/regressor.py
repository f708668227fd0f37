"""SuperposRegressor: a scikit-learn regressor that finds a formula for one data set
(the work itself is :func:`superpos.symreg.pipeline.find_formula`)."""
from __future__ import annotations

import warnings

import numpy as np
import sympy
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from ..core.numeric import r2
from ..core.units import column_names, column_units
from ..exceptions import SuperposError
from .formula import evaluate_formula
from .pipeline import find_formula
from .render import rename_variables
from .settings import FormulaSettings
from .template import template_over_inputs
from .tuning import TUNING

__all__ = ["SuperposRegressor"]



class SuperposRegressor(RegressorMixin, BaseEstimator):
    """Symbolic regression for one data set, guided by a trained structure predictor.

    Parameters
    ----------
    predictor : None (the shipped default model), the path of a saved
        :class:`~superpos.StructurePredictor`, or a fitted one.
    top_k : skeletons taken from the decoder, most likely first.
    candidate_bonus : per-edge bonus added to log theta when listing the candidates (None:
        the predictor's own, tuned for the single best tree). The likelihood ranks larger
        trees too low; the data arbitrate between candidates anyway, so a wider list costs
        little (benchmarks/README.md compares the values).
    search_rounds : rounds of local search after the decoder's candidates are fitted (0: none):
        each round fits every tree one edit away from the ``search_seeds`` best-fitting
        candidates (:mod:`superpos.symreg.search`), which finds formulas the model ranks too low;
        about 0.1-0.2 s per round. The default, 2, is the command line's; 0 is the fast path
        (tens of milliseconds).
    validation_fraction : share of the points held out to choose between skeletons.
    cross_validate_below : data sets of fewer points choose by K-fold cross-validation
        instead of one split (leave-one-out up to 10 points, else 5 folds): each candidate's
        constants are refitted on every fold's other points and its pooled held-out error
        ranks it; one random 75/25 split of 12-30 points decides by chance.
    n_starts, lm_iterations : Levenberg-Marquardt starts and iterations per start of the
        constant fit of the best candidates (every candidate first gets a cheaper screen).
    simplify_seconds : wall-clock cap on ``sympy.simplify`` of the winner (0: skip).
    tie_rtol : validation errors within this relative distance of the best count as a tie;
        ties go to the simpler tree (nodes + free constants), then the more likely one.
        "auto" (the default): one standard error of a mean squared error over the n_v
        validation points, sqrt(2 / n_v) (the one-standard-error rule; 0.63 for 5 points, 0.2
        for 50): under noise, differences below it are noise; on exact data the true
        formula's error is orders of magnitude below any other, so the rule does not change it.
    max_points : points that choose the formula; a larger data set chooses on a sample of
        that many (each input's extremes and a uniform draw) and refits the winner on all
        points, so 1,000,000 rows cost about as much as 1,000 plus one refit. The structure
        model itself sees at most 200 of them (the largest data sets of its corpus).
    random_state : seeds the split of the points and the random starts.
    selection : how the finalists are chosen between: "best" (the default, PySR's: the
        steepest drop of log error per unit of complexity within 1.5x the least error),
        "validation" (the least cross-validated error, ties to the simpler tree) or "mdl" (the
        shortest description length, after Exhaustive Symbolic Regression's). With every rule a law (residuals with no
        structure left) goes before an approximation, and an approximation that explodes just
        beyond the data loses to one of similar error that does not.
    max_fits : the effort budget, in fitted trees (deterministic): the search stops proposing
        when it is spent.
    time_limit : seconds after which the search stops proposing (None, the default: no limit,
        so that results are reproducible).
    proposers : names of the candidate sources to use (None: all; ``superpos.symreg.plan.PROPOSER_NAMES``).
    precision : the data's relative precision (half a unit of the last written digit over the
        value, e.g. 5e-4 for 4 significant digits); a formula is ``exact`` when its error is
        what rounding to that precision makes. None: float64 round-off.
    template : the law's form with unknown parts, e.g. ``"f(x1, x2) + g(x3)"`` or
        ``"exp(f(x1)) * c"`` (:mod:`~superpos.symreg.template`): placeholders are names called
        with inputs (x1, x2, ... or a DataFrame's column names; the same name twice is one
        function), ``c`` a fitted constant; the placeholders are found, nothing else is
        searched. Inputs it does not name are ignored (with a warning).
    decompose, decompose_depth : solve separable laws (a sum or product of parts over disjoint
        groups of inputs, :mod:`~superpos.symreg.separable`) part by part, with parts within
        parts to ``decompose_depth`` levels; False or 0 turns it off.
    units : the columns' physical units: a mapping (column name, or x1, x2, ... without names,
        -> unit text; the target as ``"y"`` or by its Series name), or one unit text (or None)
        per input and the target last. Units also come from the column names (``"T [K]"``)
        and from the DataFrame's ``attrs["units"]`` (and a target Series' ``attrs["unit"]``);
        where two of these disagree on a column it is an error. With every column's unit,
        dimensional analysis joins the search (:mod:`superpos.core.dimensions`): the inputs
        reduced to dimensionless groups, constants that carry a unit kept unsnapped, and
        ``dimensions_`` says which constant carries which unit.
    tuning : the search's thresholds, a :class:`~superpos.symreg.tuning.Tuning` record (None:
        the shipped ``TUNING``; docs/tuning.md lists them): for a sensitivity study, e.g.
        ``tuning=TUNING.replace(edge_ratio=8.0)``. Internal values, checked on the benchmarks.

    Attributes
    ----------
    expr_ : sympy expression with the fitted constants, in the column names of a DataFrame
        (``feature_names_in_``; a unit in brackets taken off, each made an identifier: ``T [K]``
        is T, ``T hot`` T_hot), else in x1, x2, ...
    tree_, constants_ : the winning prefix tree and its constants (what ``predict`` uses).
    decomposition_, parts_ : "sum" or "product" and [(inputs (0-based), part as sympy)] where
        the formula was solved part by part over disjoint groups of inputs, else "" and [].
    candidates_ : list of :class:`superpos.symreg.candidates.Candidate`, best first: ``formula``,
        ``log_likelihood``, ``r2_validation``, ``size``, ``rank`` (decoder rank).
    n_features_in_ : number of input columns.
    constants_se_ : standard error of each constant (least-squares estimate).
    confidence_ : share of bootstrap resamples of the validation points on which the chosen
        structure still wins (1.0: always).
    noise_ : residual standard deviation of the formula on the data.
    inputs_ : the input columns (0-based) the formula uses; ``left_out_`` [(column, F)] the
        unused ones that still explain part of its residuals (cubic F-test at 0.1 %).
    pareto_front_ : [(complexity, validation error, formula)] of the candidates no other beats
        on both, simplest first.
    timings_ : seconds spent in decoding, fitting, refitting and simplifying.
    trace_ : the search's :class:`~superpos.symreg.trace.Trace`: for each context of the search
        plan and each proposer, whether it ran (or why not), the fits it spent, the candidates
        it added and the best error before and after; and which ordering of the selection put
        the winner ahead of the runner-up. ``trace_.text()`` reads it, ``trace_.to_dict()`` is
        its versioned JSON form (docs/trace.md).
    alike_ : formulas the data cannot tell from ``expr_`` that are other functions beyond the
        data (a law and its expansion on a narrow domain, two curves through noisy points):
        the data do not choose between them.
    dimensions_ : with every column's unit, :class:`~superpos.core.dimensions.Dimensional`:
        whether the formula's units agree and the unit of each constant that carries one
        (and the physical constant it matches); None otherwise.
    status_ : "exact" (to the data's precision), "law" (not exact, but no input explains its
        residuals and a smooth fit of them does not beat their mean) or "approximation".
    family_, parameters_, textbook_ : for a lab curve (:mod:`~superpos.symreg.families`: gaussian,
        logistic, hill, damped_oscillation, ...) its name, its named parameters (amplitude,
        center, sigma, ...) and its formula in textbook form (``expr_`` is the same function as
        sympy writes it); "", {} and "" for other formulas.
    scales_ : None, or for data beyond 10^±100 the formula as found on the data divided by
        powers of ten (tree, constants, k_x, k_y), which ``predict`` evaluates and scales back;
        ``candidates_`` are then those of the rescaled data (``pareto_front_`` is shown in the
        data's units).
    """

    def __init__(self, predictor=None, top_k: int = 200, candidate_bonus: float | None = 0.6,
                 search_rounds: int = 2, search_seeds: int = 10,
                 validation_fraction: float = 0.25, n_starts: int = 4, lm_iterations: int = 40,
                 simplify_seconds: float = 1.0, tie_rtol="auto", max_points: int = 1000,
                 cross_validate_below: int = 30, random_state=None, selection: str = "best",
                 max_fits: int = 200_000, time_limit: float | None = None, proposers=None,
                 precision: float | None = None, decompose: bool = True, decompose_depth: int = 3,
                 template: str | None = None, units=None, tuning=None):
        self.predictor = predictor
        self.top_k = top_k
        self.candidate_bonus = candidate_bonus
        self.search_rounds = search_rounds
        self.search_seeds = search_seeds
        self.validation_fraction = validation_fraction
        self.n_starts = n_starts
        self.lm_iterations = lm_iterations
        self.simplify_seconds = simplify_seconds
        self.tie_rtol = tie_rtol
        self.max_points = max_points
        self.cross_validate_below = cross_validate_below
        self.random_state = random_state
        self.selection = selection
        self.max_fits = max_fits
        self.time_limit = time_limit
        self.proposers = proposers
        self.precision = precision
        self.decompose = decompose
        self.decompose_depth = decompose_depth
        self.template = template
        self.units = units
        self.tuning = tuning

    def fit(self, X, y):
        """Find the formula; returns self."""
        options = {k: v for k, v in self.get_params(deep=False).items() if k not in ("predictor", "template", "units")}
        options["tuning"] = TUNING if self.tuning is None else self.tuning
        settings = FormulaSettings.from_options(**options)
        X_in, y_in = X, y
        X, y = validate_data(self, X, y, y_numeric=True, dtype=np.float64)
        if X.shape[0] < 5:
            raise SuperposError(f"SuperposRegressor needs at least 5 points; got n_samples = {X.shape[0]}")
        # 'T [K]' is T, 'T hot' T_hot: each column keeps a readable name
        names, header_units = column_names([str(n) for n in getattr(self, "feature_names_in_", [])])
        options["units"] = self._column_units(X_in, y_in, names or [f"x{j + 1}" for j in range(X.shape[1])],
                                              header_units)
        settings = FormulaSettings.from_options(**options)
        if self.template is not None:
            text, unused = template_over_inputs(self.template, names or [f"x{j + 1}" for j in range(X.shape[1])])
            if unused:
                warnings.warn(f"the template does not name {', '.join(unused)}: ignored", UserWarning, stacklevel=2)
            settings = FormulaSettings.from_options(**options, template=text)
        f = find_formula(X, y, self.predictor, settings)
        expr = rename_variables(f.expr, names) if names else f.expr
        self.tree_, self.constants_, self.basis_names_ = f.tree, f.constants, f.basis_names
        self.expr_, self.candidates_, self.timings_ = expr, f.candidates, f.timings
        self.constants_se_, self.confidence_, self.noise_ = f.standard_errors, f.confidence, f.noise
        self.inputs_, self.left_out_, self.scales_ = f.inputs, f.left_out, f.scales
        self.status_, self.trace_, self.dimensions_ = f.status, f.trace, f.dimensions
        self.alike_ = f.alike_formulas(names if expr is not f.expr else None)
        self.family_, self.parameters_ = f.family, dict(f.parameters)
        self.decomposition_, self.parts_ = f.decomposition, list(f.parts)
        self.textbook_ = f.shown(names if expr is not f.expr else None) if f.textbook else ""
        self.pareto_front_ = f.pareto_front(names if expr is not f.expr else None)
        return self

    def _column_units(self, X, y, names: list[str], header_units: list) -> tuple | None:
        """Each column's unit (the target last) from the column names, the DataFrame's and the
        Series' attributes and the ``units`` parameter; None where none has one."""
        target = str(getattr(y, "name", None) or "y")
        target = target if target not in names else "(the target)"  # an input named y keeps its own unit
        found = {n: u for n, u in zip(names, header_units) if u is not None}
        attrs = dict(getattr(X, "attrs", None) or {}).get("units", None)
        attrs = {} if attrs is None else attrs
        if not isinstance(attrs, dict):
            raise SuperposError("a DataFrame's attrs['units'] must map column names to unit texts")
        y_attrs = dict(getattr(y, "attrs", None) or {})
        y_unit = y_attrs.get("unit", y_attrs.get("units"))
        if isinstance(y_unit, dict):  # pandas copies a DataFrame's attrs onto its columns
            y_unit = y_unit.get(getattr(y, "name", None))
        if y_unit is not None:
            attrs = {**attrs, target: y_unit}
        merged = column_units(names, target, found, attrs)
        given = self.units
        if given is not None and not isinstance(given, dict):
            if not isinstance(given, (list, tuple)) or len(given) != len(names) + 1:
                raise SuperposError(f"units must be a mapping (column -> unit) or {len(names) + 1} unit texts, one per "
                                    "input and the target last")
            given = {n: u for n, u in zip(names + [target], given) if u is not None}
        found = None if merged is None else {n: u for n, u in zip(names + [target], merged) if u is not None}
        return column_units(names, target, found, given)

    def predict(self, X) -> np.ndarray:
        """The formula's values at X (n, n_features_in_); NaN where it is undefined."""
        check_is_fitted(self, "expr_")
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return evaluate_formula(self.tree_, self.basis_names_, self.constants_, getattr(self, "scales_", None), X)

    def score(self, X, y, sample_weight=None) -> float:
        """R^2 of the prediction, scikit-learn's; for y beyond 10^±100 computed on y scaled to
        unit magnitude (:func:`~superpos.core.numeric.r2`), so that data near 1e-300 or 1e200
        neither underflow to R^2 = 1 nor overflow to -inf."""
        y = np.asarray(y, dtype=np.float64)
        top = float(np.max(np.abs(y))) if y.size else 0.0
        if sample_weight is not None or not (top < 1e-100 or top > 1e100):
            return super().score(X, y, sample_weight=sample_weight)
        return r2(y, self.predict(X))

    def sympy(self) -> sympy.Expr:
        """The fitted formula as a sympy expression."""
        check_is_fitted(self, "expr_")
        return self.expr_

    def latex(self) -> str:
        """The fitted formula in LaTeX."""
        return sympy.latex(self.sympy())

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        tags.regressor_tags.poor_score = True
        return tags
