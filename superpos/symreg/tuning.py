"""The tuning record: every threshold of the search, the fits, the snapping and the selection,
named once, with its meaning and unit (:class:`Tuning`).

The search reads these values from the record its settings carry
(``FormulaSettings.tuning``, ``SuperposRegressor(tuning=...)``), never from module constants,
so that one record moves them together: a sensitivity sweep builds ``TUNING.replace(name=v)``
and runs the same search. The shipped values are :data:`TUNING`; why a value is what it is
(the data it was checked on) is told in ``benchmarks/decisions.md`` under the field's name.

Units: "share of var" is a share of the variance of the target (1 - R^2 for an unexplained
share, R^2 for an explained one); "nmse" a mean squared error over the target's variance;
"count" a number of things; "times" a ratio of two like quantities.
"""
from __future__ import annotations

from dataclasses import dataclass, fields, replace

__all__ = ["Tuning", "TUNING", "tuning_markdown"]


@dataclass(frozen=True)
class Tuning:
    """The thresholds of one formula search (frozen: a search cannot change them). Each field's
    docstring gives its meaning and unit in one line; :meth:`replace` gives a changed copy."""

    # --- exactness and the data's scale
    round_off: float = 1e-10
    """nmse under which a fit is exact when the data's precision is float64's (nmse)."""
    rounding_safety: float = 4.0
    """Safety factor on the error that rounding of data written to a given precision makes (times)."""
    exact_cap: float = 1e-3
    """Largest exactness threshold for data of a stated precision (nmse)."""
    decade_low: float = 0.75
    """The model's decade is [decade_low, 10 decade_low): where max|v| is brought (value)."""
    extreme_decades: int = 100
    """Columns beyond 10^+-this are brought into the model's decade before any search (decades)."""
    model_points: int = 200
    """The structure model sees at most this many points (its corpus's size of data set) (count)."""

    # --- separable parts (sums and products of parts)
    separable_explained: float = 0.98
    """Explained share a partition's additive polynomial model needs to be proposed (share of var)."""
    merge_gain: float = 0.5
    """A merge of two parts is taken where it multiplies the SSE by at most this (times)."""
    merge_typical: float = 5.0
    """... or where its SSE gain is this many times the median merge's of as many parts (times)."""
    merge_min_gain: float = 0.1
    """... and then at least this share of the SSE (share of SSE)."""
    separable_exact: float = 1e-12
    """A partition whose SSE is under this share of the variance is exact (share of var)."""
    separable_points_per_input: int = 10
    """The separability tests abstain below this many points per input (count)."""
    separable_degrees: tuple = ((1, 5), (2, 4), (3, 3), (4, 3))
    """(inputs of a part, degree of its polynomial); 2 for larger parts (degree)."""
    signed_split_inputs: int = 7
    """The product test of a y that changes sign tries every split of at most this many inputs (count)."""
    rival_split: float = 2.0
    """A split within this factor of the best one's unexplained share is a rival that must agree (times)."""
    als_rounds: int = 30
    """Rounds of alternating least squares per start of a signed product (count)."""
    misfit_negligible: float = 1e-9
    """Misfits of parts at or below this are round-off: the parts keep their order (share of var)."""
    misfit_richer: int = 2
    """A part's misfit is measured with polynomials this many degrees above its own (degree)."""
    backfit_passes: int = 2
    """Backfitting passes over a separable or template split's parts (count)."""
    factor_away_from_zeros: float = 0.2
    """A factor's target y / g is searched where |g| is at least this share of its largest (share)."""

    # --- reductions (y = g(z) prod w^a) and groups
    max_law_exponent: float = 6.0
    """An exponent beyond this is no law's: the reduction or split is not offered (exponent)."""
    reduction_explained: float = 0.98
    """Explained share a reduction's log (or surrogate) fit needs to be proposed (share of var)."""
    reduction_trimmed: float = 0.9
    """Each log fit is redone on the points whose residual is under this quantile (quantile)."""
    reduction_quiet: float = 0.05
    """Log fits leave out points where |y| is under this share of y's root mean square (share)."""
    reductions_searched: int = 3
    """Reductions of the data searched, each one search of the model (count)."""
    decompose_signed_explained: float = 0.999
    """Explained share a cubic in the inner inputs needs for a split whose g changes sign (share of var)."""
    group_grid_inputs: int = 4
    """Over at most this many inputs the groups of exponents -1, 0, 1 are tried (count)."""
    group_bic_tie: float = 2.0
    """Groups whose log fits' BIC are within this of the least are alike to the data (BIC)."""
    hessian_rank_one: float = 0.05
    """A Hessian is rank one where its second eigenvalue is under this share of its first (times)."""
    index_smooth: float = 0.05
    """y sorted by a group z is smooth in z where its von Neumann ratio is under this (ratio)."""
    index_interpolated: float = 0.005
    """y is a function of z alone where interpolation in z misses under this share of var (share of var)."""
    relevance_f: float = 16.27 / 3
    """F statistic above which an input is relevant: F(3, n - 4) at 0.1 % for large n (F)."""
    pair_gain: float = 0.5
    """A pair x_i op x_j leaves at most this share of the full fit's and each rival's unexplained (times)."""
    pair_explained: float = 0.9
    """Explained share (adjusted R^2) of the pair's surrogate fit (share of var)."""
    pair_points_per_input: int = 10
    """The pair test abstains below this many points per input (count)."""
    pair_max_degree: int = 8
    """Degree of the pair test's polynomial surrogates, at most (degree)."""
    translation_explained: float = 0.9
    """Explained share the translations' polynomial surrogate needs (share of var)."""
    translation_symmetry: float = 0.05
    """A pair enters as x_i -+ x_j where its gradients' asymmetry is under this share (share)."""

    # --- sums of terms and rational functions
    sum_max_degree: int = 6
    """Largest power of an input in the term library (degree)."""
    max_backward: int = 40
    """Backward elimination starts from at most this many columns (count)."""
    sum_explained: float = 0.98
    """Explained share one of the selected sums needs for sums to be proposed (share of var)."""
    sum_exact: float = 1e-10
    """A sum leaving under this share of var describes the data exactly (share of var)."""
    grown_max_factors: int = 6
    """A grown term is a product of at most this many atoms (count)."""
    grown_beam: int = 3
    """Grown paths start from each of this many best first terms (count)."""
    paired_atoms: int = 16
    """With at most this many atoms, grown paths may also add two atoms a step (count)."""
    monomial_exponents: tuple = (-2, 4)
    """Least and largest integer exponent of a monomial term (exponent)."""
    monomial_columns: int = 30_000
    """The monomial library holds at most this many terms (count)."""
    monomial_beam: int = 3
    """Stepwise paths over the monomials start from each of this many first terms (count)."""
    monomial_rows: int = 400
    """The monomial terms are chosen on at most this many points (count)."""
    noisy_sum_terms: int = 3
    """A sum of at most this many terms may describe noisy data (count)."""
    noise_floor_slack: float = 1.5
    """... where its implied noise variance is at most this times a smooth polynomial's (times)."""
    noisy_sum_unexplained: float = 1e-3
    """... and it leaves at most this share of var (share of var)."""
    surrogate_settled: float = 0.8
    """The polynomial has settled where its noise variance is this share of one degree less's (times)."""
    settled_sum_unexplained: float = 1e-2
    """... where the sum need only leave this share of var (share of var)."""
    rational_quartic_inputs: int = 3
    """A numerator of degree 4 is tried over exactly this many inputs (count)."""
    rational_explained: float = 0.98
    """Explained share a sparse P / Q needs to be proposed (share of var)."""
    rational_max_terms: int = 6
    """Terms of P and Q together, at most (count)."""
    rational_gain: float = 0.5
    """P / Q leaves at most this share of what P alone leaves (times)."""
    rational_gram_floor: float = 1e-13
    """Eigenvalues of the Gram matrices under this are round-off (value)."""
    rational_max_columns: int = 60
    """Pairs of degrees with more monomials than this are not tried (count)."""
    rational_keep: int = 3
    """Rational fits returned, the least errors first (count)."""
    rational_reweights: int = 3
    """Sanathanan-Koerner reweighting steps (count)."""
    trig_inputs: int = 3
    """Trigonometric rational fits for data of at most this many inputs (count)."""
    trig_exact: float = 1e-10
    """A trigonometric ratio is proposed where it fits to this (nmse) ..."""
    trig_short: int = 4
    """... or keeps at most this many columns on noisy data (count) ..."""
    trig_noisy_explained: float = 0.99
    """... which explain this share of var (share of var)."""

    # --- other proposers
    affine_explained: float = 0.98
    """Explained share of the affine model A(x_R) + B(x_R) h(x_j) on the fitting points (share of var)."""
    affine_gain: float = 0.1
    """... which leaves at most this share of the additive model's unexplained (times)."""
    affine_additive: float = 1e-8
    """... and the additive model leaves more than this share of var (share of var)."""
    affine_offset: float = 1e-3
    """Without A, B h may leave twice the error plus this share of var (share of var)."""
    affine_keep: int = 2
    """Affine splits solved (count)."""
    outer_gain: float = 0.5
    """T(y) is tried where its separable model leaves at most this share of y's unexplained (times)."""
    outer_keep: int = 2
    """Formulas of g = T(y) given back to y (count)."""
    residual_finalists: int = 3
    """Most accurate readable candidates whose residuals are searched (count)."""
    readable_nodes: int = 15
    """Nodes of a readable finalist on up to 3 inputs, 2 more per further input (nodes)."""
    residual_knee: float = 0.05
    """The front's simplest candidate under this nmse is a finalist too (nmse)."""
    residual_away_from_zero: float = 0.05
    """y / f is searched only where min |f| is this share of max |f| (share)."""
    residual_gain: float = 0.5
    """An extended formula is kept under this share of the pool's least error (times)."""
    residual_keep: int = 2
    """Formulas of each residual put back beside f (count)."""
    min_power_span: float = 0.1
    """x^b varies over the data by at least this in its log, else it is a logarithm (log)."""
    template_degrees: tuple = ((1, 5), (2, 3))
    """(inputs of a placeholder, degree of its polynomial surrogate); 2 beyond (degree)."""
    template_ridge: float = 1e-5
    """Weight of the surrogates' constant terms in the template's least squares (weight)."""
    dominated_share: float = 1e-4
    """A sum's other term stays under this share of its constant at every point (share)."""
    probe_beyond: float = 0.075
    """Plausibility probes lie up to this share of each input's range beyond it (share of range)."""

    # --- snapping constants to simple values
    snap_law_unexplained: float = 0.01
    """A fit leaving at most this share of var is a law measured with noise, for snapping (share of var)."""
    snap_se: float = 3.0
    """A value may snap to a simple one within this many standard errors (standard errors) ..."""
    snap_cap: float = 0.02
    """... and within this relative distance (times) ..."""
    snap_cap_law: float = 0.1
    """... or this one where the fit is a law (times)."""
    snap_sharp: float = 0.002
    """A value the data pin to this relative standard error may snap to a multiple of pi (times)."""
    profile_chi2: float = 3.84
    """A snapped constant is kept where the refit's SSE rises by at most this times s^2 (chi-square 1 dof, 95 %)."""
    max_profiles: int = 20
    """Profile refits per snapping call, at most (count)."""
    redundant_singular: float = 1e-5
    """A direction the fit does not change along: singular value under this share of the largest (times)."""
    max_restarts: int = 8
    """Restarts of a snapped fit per call, at most (count)."""
    restart_rows: int = 20_000
    """Restarts on data of at most this many rows (count)."""
    unit_near: float = 0.02
    """A constant within this of +-1 is tried at it (absolute)."""

    # --- edges, status and selection
    edge_share: float = 0.15
    """Share of the points held out as one edge (share of points)."""
    edge_ratio: float = 4.0
    """A law's edge error is at most this times what a right formula makes there (times)."""
    edge_shared_weight: float = 10.83 / 4.0
    """Weight of the prediction variance in a right formula's edge error: chi2_1 at 0.1 % over edge_ratio (times)."""
    edge_floor: float = 1e-20
    """Edge error that always passes at float64 precision (nmse)."""
    edge_defined: float = 0.8
    """The edge error is taken over defined edge points when they are this share (share of points)."""
    edge_min_points: int = 20
    """Below this many points the edge test abstains (count)."""
    structure_level: float = 0.001
    """Level of the tests that call residuals structured by chance (probability)."""
    smooth_points_per_feature: int = 4
    """The smooth test abstains with fewer points than this per feature (count)."""
    neighbours: int = 5
    """The local smooth fit predicts a residual by this many nearest points' (count)."""
    alike_times: float = 2.0
    """Errors practically alike (a law's beside the least): at most this times the least ... (times)"""
    alike_more: float = 1e-3
    """... or this more (nmse)."""
    law_worse_share: float = 0.05
    """A law's claim gives way to a law better by this share of its error beyond the noise (times)."""
    cv_finalists: int = 10
    """Candidates of each ordering ranked again by cross-validation (count)."""
    written_variants: int = 50
    """Candidates of least error whose forms with unit constants may join the front (count)."""
    practical_margin: tuple = (0.05, 0.01)
    """Errors within this relative share of the best and this nmse are practically equal (times, nmse)."""
    approximation_window: tuple = (10.0, 0.01, 0.05)
    """An approximation shown has at most (times) the least nmse, (nmse) more always allowed, (nmse) more at most."""
    law_worse_se: float = 3.0
    """A law needs its held-out error within this many standard errors of the least law's (standard errors)."""
    brevity_rate: float = 1.0
    """An approximation gives up at most this much log error per node saved (log error per node)."""
    noise_tie_se: float = 2.0
    """A shorter finalist ties with the leader on noisy data while its paired cross-validated error is within this many standard errors (standard errors)."""
    alike_beyond: float = 0.05
    """A finalist as good on the data is another function where it parts from the winner by more than this (relative) on more than this share of a box far wider than the data (share)."""

    # --- writing the formula
    factor_time_share: float = 0.25
    """sympy's factor runs under this share of the simplification's time cap (share of time)."""
    cancelled_share: float = 1e-9
    """A term under this share of y's root mean square at every point is a cancelling pair (share)."""

    def replace(self, **changes) -> "Tuning":
        """A copy with the named fields changed; an unknown name is an error that lists the known ones."""
        known = {f.name for f in fields(self)}
        unknown = sorted(set(changes) - known)
        if unknown:
            from ..exceptions import SuperposError

            raise SuperposError(f"unknown tuning value(s) {', '.join(unknown)}; see docs/tuning.md for the names")
        return replace(self, **changes)


TUNING = Tuning()
"""The shipped record."""


def _docs() -> dict[str, str]:
    """Each field's one-line docstring, read from this module's source (dataclass fields keep none)."""
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(Tuning))
    body = tree.body[0].body
    out = {}
    for a, b in zip(body, body[1:]):
        if isinstance(a, ast.AnnAssign) and isinstance(b, ast.Expr) and isinstance(b.value, ast.Constant):
            out[a.target.id] = " ".join(str(b.value.value).split())
    return out


def tuning_markdown() -> str:
    """The record as a markdown table (name, shipped value, meaning and unit): docs/tuning.md's."""
    docs = _docs()
    rows = ["| name | value | meaning (unit) |", "|---|---|---|"]
    for f in fields(Tuning):
        rows.append(f"| `{f.name}` | `{getattr(TUNING, f.name)!r}` | {docs.get(f.name, '')} |")
    return "\n".join(rows) + "\n"
