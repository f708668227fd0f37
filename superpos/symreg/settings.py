"""The settings of one formula search, built and checked once (:class:`FormulaSettings`),
so that the pipeline passes one record instead of a dozen keyword arguments."""
from __future__ import annotations

import numbers
from dataclasses import dataclass, fields

import numpy as np

from ..exceptions import SuperposError

from .tuning import TUNING, Tuning

__all__ = ["FormulaSettings", "MAX_TOP_K", "SELECTION_RULES"]

SELECTION_RULES = ("mdl", "best", "validation")
"""``selection``: description length, PySR's "best", the least cross-validated error with ties to the simpler."""

MAX_TOP_K = 20_000
"""The most skeletons one search takes: memory grows by about 40 kB per skeleton (measured:
0.43 GB at 5,000, 1.0 GB at 20,000, 4.1 GB at 100,000 on 50 points)."""


def _is_int(v) -> bool:
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


@dataclass(frozen=True)
class FormulaSettings:
    """How :func:`~superpos.symreg.pipeline.find_formula` searches; the meaning of each field is
    :class:`~superpos.SuperposRegressor`'s parameter of the same name. Invalid values raise
    :class:`SuperposError` when the record is built, before any work."""

    top_k: int = 200
    candidate_bonus: float | None = 0.6
    search_rounds: int = 2
    search_seeds: int = 10
    validation_fraction: float = 0.25
    n_starts: int = 4
    lm_iterations: int = 40
    simplify_seconds: float = 1.0
    tie_rtol: float | str = "auto"
    max_points: int = 1000
    cross_validate_below: int = 30
    random_state: object = None
    selection: str = "best"
    max_fits: int = 200_000
    time_limit: float | None = None
    proposers: tuple | None = None
    precision: float | None = None
    decompose: bool = True
    decompose_depth: int = 3
    template: str | None = None
    units: tuple | None = None
    tuning: Tuning = TUNING
    """The thresholds of the search (:class:`~superpos.symreg.tuning.Tuning`): internal values,
    checked on the benchmarks, that a sensitivity sweep moves; the fields above are the user's."""

    screen: tuple[int, int] = (2, 8)
    """(starts, iterations) of the cheap first fit every candidate gets."""
    refit_top: int = 10
    """Candidates refitted at full effort after the screen."""
    screen_points: int = 64
    """Fitting points the screen uses at most (evenly spread over them; 0: all). Thousands of
    skeletons are screened only to choose the ``refit_top`` that are fitted on every point."""

    def __post_init__(self) -> None:
        if not (_is_int(self.top_k) and 1 <= self.top_k <= MAX_TOP_K):
            raise SuperposError(f"top_k must be an integer in [1, {MAX_TOP_K}] (each skeleton holds about 40 kB "
                                f"while it is decoded and fitted), got {self.top_k!r}")
        if self.candidate_bonus is not None and not (isinstance(self.candidate_bonus, numbers.Real)
                                                     and np.isfinite(self.candidate_bonus)):
            raise SuperposError(f"candidate_bonus must be a finite number or None, got {self.candidate_bonus!r}")
        if not (_is_int(self.search_rounds) and 0 <= self.search_rounds <= 100):
            raise SuperposError(f"search_rounds must be an integer in [0, 100], got {self.search_rounds!r}")
        if not (_is_int(self.search_seeds) and self.search_seeds >= 1):
            raise SuperposError(f"search_seeds must be an integer >= 1, got {self.search_seeds!r}")
        if not (isinstance(self.validation_fraction, numbers.Real) and 0.0 <= self.validation_fraction < 1.0):
            raise SuperposError(f"validation_fraction must be in [0, 1), got {self.validation_fraction!r}")
        if not (_is_int(self.n_starts) and 1 <= self.n_starts <= 1000):
            raise SuperposError(f"n_starts must be an integer in [1, 1000], got {self.n_starts!r}")
        if not (_is_int(self.lm_iterations) and 0 <= self.lm_iterations <= 100_000):
            raise SuperposError(f"lm_iterations must be an integer in [0, 100000], got {self.lm_iterations!r}")
        if not (isinstance(self.simplify_seconds, numbers.Real) and 0 <= self.simplify_seconds <= 3600):
            raise SuperposError(f"simplify_seconds must be a number of seconds in [0, 3600], got {self.simplify_seconds!r}")
        if not (_is_int(self.max_points) and 20 <= self.max_points <= 10_000_000):
            raise SuperposError(f"max_points must be an integer in [20, 10000000], got {self.max_points!r}")
        if not isinstance(self.decompose, (bool, np.bool_)):
            raise SuperposError(f"decompose must be True or False, got {self.decompose!r}")
        if not (_is_int(self.decompose_depth) and 0 <= self.decompose_depth <= 10):
            raise SuperposError(f"decompose_depth must be an integer in [0, 10], got {self.decompose_depth!r}")
        if not (_is_int(self.cross_validate_below) and 0 <= self.cross_validate_below <= 1000):
            raise SuperposError(f"cross_validate_below must be an integer in [0, 1000], got {self.cross_validate_below!r}")
        if not (_is_int(self.screen_points) and (self.screen_points == 0 or self.screen_points >= 8)):
            raise SuperposError(f"screen_points must be 0 (all points) or an integer >= 8, got {self.screen_points!r}")
        if isinstance(self.tie_rtol, str):
            if self.tie_rtol != "auto":
                raise SuperposError(f"tie_rtol must be a number >= 0 or 'auto', got {self.tie_rtol!r}")
        elif not (isinstance(self.tie_rtol, numbers.Real) and 0 <= self.tie_rtol < np.inf):
            raise SuperposError(f"tie_rtol must be a number >= 0 or 'auto', got {self.tie_rtol!r}")
        if self.random_state is not None and not (_is_int(self.random_state) and self.random_state >= 0) \
                and not isinstance(self.random_state, np.random.Generator):
            raise SuperposError(f"random_state must be None, an integer >= 0 or a numpy Generator, got {self.random_state!r}")

        if self.selection not in SELECTION_RULES:
            raise SuperposError(f"selection must be one of {', '.join(SELECTION_RULES)}, got {self.selection!r}")
        if not (_is_int(self.max_fits) and 1 <= self.max_fits <= 10**9):
            raise SuperposError(f"max_fits must be an integer in [1, 1000000000], got {self.max_fits!r}")
        if self.time_limit is not None and not (isinstance(self.time_limit, numbers.Real)
                                                and not isinstance(self.time_limit, bool) and self.time_limit > 0
                                                and np.isfinite(self.time_limit)):
            raise SuperposError(f"time_limit must be None or a positive number of seconds, got {self.time_limit!r}")
        if self.proposers is not None:  # the names are checked against the registry by proposers.chosen
            names = (self.proposers,) if isinstance(self.proposers, str) else self.proposers
            if not (isinstance(names, (tuple, list)) and names and all(isinstance(n, str) for n in names)):
                raise SuperposError(f"proposers must be None (all) or names of proposers, got {self.proposers!r}")
            object.__setattr__(self, "proposers", tuple(names))
        if self.template is not None:  # read against the data's inputs when the search starts
            import re

            import sympy

            from ..core.formula import parse_template

            if not isinstance(self.template, str):
                raise SuperposError(f"template must be None or a string such as 'f(x1, x2) + g(x3)', got "
                                    f"{type(self.template).__name__}")
            names = set(re.findall(r"\bx[1-9][0-9]{0,2}\b", self.template))
            parse_template(self.template, {n: sympy.Symbol(n, real=True) for n in names})
        if self.units is not None:  # their number is checked against the data's columns when the search starts
            from ..core.units import parse_unit

            if not (isinstance(self.units, (tuple, list)) and all(u is None or isinstance(u, str) for u in self.units)):
                raise SuperposError("units must be None or one unit text (or None) per input and the target last, "
                                    f"e.g. ('m', 'kg', 's'); got {self.units!r}")
            for u in self.units:
                if u is not None:
                    parse_unit(u)
            object.__setattr__(self, "units", tuple(self.units))
        if not isinstance(self.tuning, Tuning):
            raise SuperposError(f"tuning must be a superpos.symreg.tuning.Tuning record, got {type(self.tuning).__name__}")
        if self.precision is not None and not (isinstance(self.precision, numbers.Real)
                                               and not isinstance(self.precision, bool) and 0 < self.precision < 0.1):
            raise SuperposError(f"precision must be None (float64 round-off) or the data's relative precision in "
                                f"(0, 0.1), e.g. 5e-5 for 4 significant digits, got {self.precision!r}")

    @classmethod
    def from_options(cls, **options) -> "FormulaSettings":
        """The record from keyword settings; an unknown name is an error that lists the known ones."""
        known = [f.name for f in fields(cls)]
        unknown = sorted(set(options) - set(known))
        if unknown:
            raise SuperposError(f"unknown setting(s) {', '.join(unknown)}; choose from {', '.join(known)}")
        return cls(**options)

    def tie_tolerance(self, n_validation: int) -> float:
        """The relative tie tolerance: ``tie_rtol``, or for "auto" one standard error of a mean
        squared error over the n_v validation points, sqrt(2 / n_v)."""
        if self.tie_rtol == "auto":
            return float(np.sqrt(2.0 / max(n_validation, 1)))
        return float(self.tie_rtol)

    def exact_threshold(self, y: np.ndarray, n_inputs: int = 1) -> float:
        """The normalised error under which a fit is exact to the data's precision: float64
        round-off (``tuning.round_off``) by default; for data written to a relative precision p
        (half a unit of the last digit over the value), the error that rounding of y and of
        ``n_inputs`` inputs (elasticities up to 2) makes, p^2 (1 + 4 m) mean(y^2) / 3, with a
        safety factor (``rounding_safety``), over var(y); at most ``exact_cap``."""
        t = self.tuning
        if self.precision is None:
            return t.round_off
        y = np.asarray(y, dtype=np.float64)
        var = float(np.var(y))
        if not var > 0:
            return t.round_off
        rounding = t.rounding_safety * self.precision**2 * (1 + 4 * n_inputs) * float(np.mean(y * y)) / 3.0
        return float(min(max(t.round_off, rounding / var), t.exact_cap))
