"""The feature map phi: a data set (X (n, m), y (n,)) of any n >= 5 -> a fixed vector.

Every feature is a function of the set of points, so phi is invariant to row order.
Per input variable (up to ``max_variables``; absent ones are zero) phi holds the
curve of y against that variable resampled on a fixed grid (standardised, with its
differences and Fourier magnitudes), the goodness of fit of y against transformed
inputs (x, x^2, x^3, sin x, cos x, exp x, log|x|, sqrt|x|, 1/x) and of polynomials of
degree 1-4, of y against x plus or times a transformed x, of transformed y (log|y|,
y^2, 1/y, ...) against x, and a log-log slope; globally, the scale and shape of y.
"""
from __future__ import annotations

import numpy as np

from ..core.dataset import check_dataset
from ..core.params import ParamsMixin
from ..exceptions import SuperposError

__all__ = ["DatasetFeatures", "write_features"]

_OUTER = (  # inverse-like maps of y: a good linear fit of g(y) on x hints at the root function
    lambda y: np.log(np.abs(y) + 1e-12),
    lambda y: np.sqrt(np.abs(y)),
    lambda y: np.sign(y) * np.abs(y) ** (1.0 / 3.0),
    lambda y: y**2,
    lambda y: 1.0 / np.where(np.abs(y) < 1e-6, 1e-6, y),
    lambda y: np.exp(np.clip(y, -30, 30)),
)

_TRANSFORMS = (
    lambda x: x,
    lambda x: x**2,
    lambda x: x**3,
    np.sin,
    np.cos,
    lambda x: np.exp(np.clip(x, -30, 30)),
    lambda x: np.log(np.abs(x) + 1e-12),
    lambda x: np.sqrt(np.abs(x)),
    lambda x: 1.0 / np.where(np.abs(x) < 1e-6, 1e-6, x),
)


_N_FFT = 6
_MIN_GRID = 2 * _N_FFT
_MAX_CURVE_GRID = 1024
_MAX_MODEL_VARIABLES = 64


def slog(v):
    """Signed log: sign(v) log(1 + |v|), a scale-compressing map that keeps sign."""
    return np.sign(v) * np.log1p(np.abs(v))


def _r2_score_fit(A, y, yc_ss):
    """1 - RSS / TSS of the least-squares fit y ~ A (A includes the intercept column)."""
    coef, *_ = np.linalg.lstsq(A, y, rcond=None)
    r = y - A @ coef
    return 1.0 - float(r @ r) / yc_ss


def _fit_quality(r2):
    """-log10(1 - R^2), clipped to [0, 12]: separates 0.99 from 0.999999."""
    q = np.clip(-np.log10(np.clip(1.0 - np.asarray(r2, dtype=np.float64), 1e-12, 1.0)), 0.0, 12.0)
    return float(q) if q.ndim == 0 else q


def _unit_columns(T):
    """Centred columns of unit norm, and which columns were usable (finite, not constant)."""
    finite = np.all(np.isfinite(T), axis=0)
    T = np.where(np.isfinite(T), T, 0.0)
    Tc = T - T.mean(axis=0)
    norm = np.sqrt(np.einsum("ij,ij->j", Tc, Tc))
    ok = finite & (norm > 1e-12 * (1.0 + np.abs(T).max(axis=0)))
    return Tc / np.where(ok, norm, 1.0) * ok, ok.astype(np.float64)


def _sign_changes(v, tol=1e-9):
    """Sign changes along v, ignoring entries within tol of zero (rounding noise)."""
    s = np.sign(v[np.abs(v) > tol])
    return float(np.sum(s[1:] != s[:-1]))


class DatasetFeatures(ParamsMixin):
    """phi(x): a transformer (scikit-learn conventions) over a list of data sets [(X, y), ...].

    Parameters
    ----------
    n_grid : points of the resampled curve per variable.
    max_variables : variables covered; data sets with more raise an error.
    n_jobs : parallel workers for large lists (joblib).
    """

    def __init__(self, n_grid: int = 24, max_variables: int = 3, n_jobs: int = 1):
        self.n_grid = n_grid
        self.max_variables = max_variables
        self.n_jobs = n_jobs

    def fit(self, datasets=None, y=None):
        self._check_params()
        self.n_features_out_ = len(self.feature_names())
        return self

    def fit_transform(self, datasets, y=None) -> np.ndarray:
        return self.fit(datasets).transform(datasets)

    def __sklearn_tags__(self):
        from sklearn.utils import TransformerTags

        tags = super().__sklearn_tags__()
        tags.transformer_tags = TransformerTags()
        return tags

    def _check_params(self) -> None:
        if not (isinstance(self.n_grid, (int, np.integer)) and _MIN_GRID <= self.n_grid <= _MAX_CURVE_GRID):
            raise SuperposError(f"n_grid must be an integer in [{_MIN_GRID}, {_MAX_CURVE_GRID}] (the curve's "
                                f"{_N_FFT} Fourier magnitudes need {_MIN_GRID} points), got {self.n_grid!r}")
        if not (isinstance(self.max_variables, (int, np.integer)) and 1 <= self.max_variables <= _MAX_MODEL_VARIABLES):
            raise SuperposError(f"max_variables must be an integer in [1, {_MAX_MODEL_VARIABLES}], got {self.max_variables!r}")

    def _variable_names(self) -> list[str]:
        """The names of one variable's block: the one definition of its width."""
        g = self.n_grid
        return ([f"curve{k}" for k in range(g)] + [f"diff{k}" for k in range(g - 1)]
                + [f"fft{k}" for k in range(_N_FFT)] + [f"fit{k}" for k in range(len(_TRANSFORMS))]
                + [f"poly{k}" for k in range(1, 5)] + [f"xplus{k}" for k in range(len(_TRANSFORMS) - 1)]
                + [f"xtimes{k}" for k in range(len(_TRANSFORMS) - 1)] + [f"outer{k}" for k in range(2 * len(_OUTER))]
                + ["lo", "hi", "y_lo", "y_hi", "y_0", "loglog_slope", "loglog_fit", "mono", "sign_changes",
                   "curv_changes", "even", "odd"])

    def feature_names(self) -> list[str]:
        """Every column of phi, in order: per variable, then global, then per pair of variables."""
        per = self._variable_names()
        names = [f"x{v + 1}_{n}" for v in range(self.max_variables) for n in per]
        glob = ["m", "log_n", "y_mean", "y_std", "y_min", "y_max", "y_med", "y_pos", "y_skew", "y_kurt",
                "y_intlike", "y_logstd", "linear_all", "quad_all"]
        pair = [f"pair{a}{b}_{k}" for a in range(self.max_variables) for b in range(a + 1, self.max_variables)
                for k in ("prod", "ratio", "sum")]
        return names + glob + pair

    def get_feature_names_out(self, input_features=None):
        return np.array(self.feature_names(), dtype=object)

    def transform(self, datasets, progress=None) -> np.ndarray:
        """phi of each data set, shape (len(datasets), n_features); ``progress(done, total)``
        is called after each block of 1,000 data sets."""
        self._check_params()
        if hasattr(datasets, "datasets"):
            datasets = datasets.datasets
        datasets = list(datasets)
        blocks = [datasets[k:k + 1000] for k in range(0, len(datasets), 1000)]
        if self.n_jobs == 1 or len(datasets) < 2000:
            parts = map(self._block, blocks)
        else:
            from joblib import Parallel, delayed  # a corpus only: predict starts without it

            parts = Parallel(n_jobs=self.n_jobs, return_as="generator")(delayed(self._block)(c) for c in blocks)
        rows: list = []
        for part in parts:
            rows += part
            if progress is not None:
                progress(len(rows), len(datasets))
        return np.array(rows, dtype=np.float64).reshape(len(datasets), -1)

    def _block(self, datasets):
        return [self.transform_one(X, y) for X, y in datasets]

    def transform_one(self, X, y) -> np.ndarray:
        X, y = check_dataset(X, y)
        # magnitudes far beyond the corpus's would overflow squares and break least squares:
        # such columns are seen in units of their largest value
        big = np.max(np.abs(X), axis=0) > 1e100
        if big.any():
            X = X / np.where(big, np.max(np.abs(X), axis=0), 1.0)
        if np.max(np.abs(y)) > 1e100:
            y = y / np.max(np.abs(y))
        with np.errstate(all="ignore"):
            try:
                return self._transform_one(X, y)
            except np.linalg.LinAlgError:  # numerically hopeless data: phi says nothing
                return np.zeros(len(self.feature_names()))

    def _transform_one(self, X, y) -> np.ndarray:
        n, m = X.shape
        if m > self.max_variables:
            raise SuperposError(f"the data set has {m} variables; this feature map covers at most {self.max_variables}")
        mu = float(np.mean(y))
        sd = float(np.std(y))
        scale = sd if sd > 1e-12 * (1.0 + abs(mu)) else 1.0
        z = (y - mu) / scale
        zss = float(z @ z) if sd > 0 else 1.0
        if zss <= 0:
            zss = 1.0
        per_var = []
        for v in range(self.max_variables):
            per_var.append(self._variable_block(X[:, v], y, z, zss, m) if v < m else
                           np.zeros(len(self._variable_names())))
        zc = z - z.mean()
        skew = float(np.mean(zc**3))
        kurt = float(np.mean(zc**4))
        ones = np.ones(n)
        lin = _fit_quality(_r2_score_fit(np.column_stack([ones, X]), z, zss))
        quad = _fit_quality(_r2_score_fit(np.column_stack([ones, X, X**2]), z, zss)) if n > 2 * m + 2 else 0.0
        glob = [m, np.log(n), slog(mu), np.log1p(sd), slog(y.min()), slog(y.max()), slog(np.median(y)),
                np.mean(y > 0), np.clip(skew, -20, 20), np.log1p(kurt),
                float(np.mean(np.abs(y - np.round(y)) < 1e-9)), np.log10(sd + 1e-300)]
        glob += [lin, quad]
        pair = []
        for a in range(self.max_variables):
            for b in range(a + 1, self.max_variables):
                if b < m:
                    xa, xb = X[:, a], X[:, b]
                    cols = (xa * xb, xa / np.where(np.abs(xb) < 1e-6, 1e-6, xb), xa + xb)
                    pair += [_fit_quality(_r2_score_fit(np.column_stack([ones, c]), z, zss)) for c in cols]
                else:
                    pair += [0.0, 0.0, 0.0]
        phi = np.concatenate([*per_var, np.asarray(glob, dtype=np.float64), np.asarray(pair, dtype=np.float64)])
        # values far beyond the corpus's (|y| up to 1e6) can overflow a feature: 0 says "no information"
        return np.where(np.isfinite(phi), phi, 0.0)

    def _variable_block(self, x, y, z, zss, m) -> np.ndarray:
        n = x.size
        order = np.lexsort((z, x))
        xs, zs = x[order], z[order]
        if m > 1:
            w = max(1, n // 10)
            kernel = np.ones(w) / w
            zs = np.convolve(np.pad(zs, (w // 2, w - 1 - w // 2), mode="edge"), kernel, mode="valid")
        lo, hi = float(xs[0]), float(xs[-1])
        width = hi - lo
        grid = np.linspace(lo, hi, self.n_grid)
        curve = np.interp(grid, xs, zs) if width > 0 else np.zeros(self.n_grid)
        diff = np.diff(curve)
        fft = np.abs(np.fft.rfft(curve - curve.mean()))[1:_N_FFT + 1]
        fft = fft / (np.linalg.norm(fft) + 1e-12)
        zu, _ = _unit_columns(z[:, None])
        zu = zu[:, 0]
        with np.errstate(all="ignore"):
            T = np.column_stack([f(x) for f in _TRANSFORMS])
            U, ok = _unit_columns(T)
            r = U.T @ zu
            fits = _fit_quality(r**2) * ok
            r12 = U[:, 1:].T @ U[:, 0]
            den = 1.0 - r12**2
            two = np.where(den > 1e-9, (r[0] ** 2 + r[1:] ** 2 - 2 * r[0] * r[1:] * r12) / np.where(den > 1e-9, den, 1.0),
                           r[0] ** 2)
            plus = _fit_quality(two) * ok[1:]
            UT, okt = _unit_columns(x[:, None] * T[:, 1:])
            times = _fit_quality((UT.T @ zu) ** 2) * okt
            G, okg = _unit_columns(np.column_stack([g(y) for g in _OUTER]))
            ux, uq = U[:, 0], _unit_columns((x - x.mean())[:, None] ** 2)[0][:, 0]
            g1 = G.T @ ux
            g2 = G.T @ uq
            c12 = float(ux @ uq)
            d12 = 1.0 - c12**2
            gtwo = (g1**2 + g2**2 - 2 * g1 * g2 * c12) / d12 if d12 > 1e-9 else g1**2
            outer = np.column_stack([_fit_quality(g1**2) * okg, _fit_quality(gtwo) * okg]).ravel()
            u = (x - (lo + hi) / 2) / (width / 2 if width > 0 else 1.0)
            Q, _ = np.linalg.qr(np.vander(u, 5, increasing=True))
            proj = np.cumsum((Q[:, 1:].T @ z) ** 2) / zss
            poly = [_fit_quality(proj[d - 1]) if n > d + 1 else 0.0 for d in range(1, 5)]
            sel = (np.abs(x) > 1e-3) & (np.abs(y) > 1e-12)
            slope, llfit = 0.0, 0.0
            if sel.sum() >= 3:
                lx, ly = np.log(np.abs(x[sel])), np.log(np.abs(y[sel]))
                lxc, lyc = lx - lx.mean(), ly - ly.mean()
                vx, vy = float(lxc @ lxc), float(lyc @ lyc)
                if vx > 0 and vy > 0:
                    slope = float(np.clip((lxc @ lyc) / vx, -10, 10))
                    llfit = _fit_quality((lxc @ lyc) ** 2 / (vx * vy))
        y0 = float(np.interp(0.0, xs, zs)) if lo <= 0.0 <= hi else 0.0
        mono = float(np.mean(np.sign(diff))) if diff.size else 0.0
        sign_changes = _sign_changes(curve)
        curv_changes = _sign_changes(np.diff(diff))
        if lo < 0 < hi:
            r = min(-lo, hi)
            g = np.linspace(0, r, 8)
            a, b = np.interp(g, xs, zs), np.interp(-g, xs, zs)
            even = float(np.mean(np.abs(a - b)))
            odd = float(np.mean(np.abs(a + b)))
        else:
            even = odd = -1.0
        scal = [slog(lo), slog(hi), curve[0], curve[-1], y0, slope, llfit, mono, sign_changes, curv_changes,
                even, odd]
        return np.concatenate([curve, diff, fft, fits, poly, plus, times, outer, np.asarray(scal, dtype=np.float64)])


def write_features(source, path, features: DatasetFeatures | None = None, progress=None) -> np.ndarray:
    """phi of every data set of a corpus, streamed to the ``.npy`` file ``path`` and returned
    memory-mapped read-only.

    ``source`` is a :class:`~superpos.structure.corpus.Corpus`, a corpus ``.npz`` or a folder of shards
    from :func:`~superpos.structure.corpus.write_corpus`; it is read one shard at a time and rows are
    appended to the file, so memory holds one shard and its features, not the corpus.
    ``progress(done, total)`` is called after each shard."""
    from ..core.files import atomic_write
    from .corpus import Corpus, corpus_length, iter_corpus

    features = DatasetFeatures() if features is None else features
    n = len(source) if isinstance(source, Corpus) else corpus_length(source)
    features._check_params()
    width = len(features.feature_names())

    def write(fh) -> None:
        np.lib.format.write_array_header_1_0(fh, {"descr": np.lib.format.dtype_to_descr(np.dtype("<f8")),
                                                  "fortran_order": False, "shape": (n, width)})
        done = 0
        for part in ([source] if isinstance(source, Corpus) else iter_corpus(source)):
            phi = np.ascontiguousarray(features.transform(part), dtype="<f8")
            fh.write(phi.tobytes())
            done += len(phi)
            if progress is not None:
                progress(done, n)
        if done != n:
            raise SuperposError(f"{source}: the corpus holds {done} data sets, its manifest says {n}")

    atomic_write(path, write)
    return np.load(path, mmap_mode="r")

