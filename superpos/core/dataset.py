"""One data set as arrays: the checks every entry point applies before any work."""
from __future__ import annotations

import numpy as np

from ..exceptions import SuperposError
from .numeric import MAX_DATA

__all__ = ["check_dataset"]


def check_dataset(X, y, min_points: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """Validate one data set; returns float64 arrays X (n, m), y (n,)."""
    if np.iscomplexobj(X) or np.iscomplexobj(y):  # numpy would drop the imaginary parts with a warning
        raise SuperposError("X and y must be real numbers, not complex; give the real parts (or the magnitudes) "
                            "as columns of their own")
    try:
        X = np.asarray(X, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64).ravel()
    except (TypeError, ValueError) as exc:
        raise SuperposError(f"X and y must be numbers (arrays of floats): {exc}") from None
    if X.ndim == 1:
        X = X[:, None]
    if X.ndim != 2 or X.shape[0] != y.shape[0]:
        raise SuperposError(f"X must be (n, m) and y (n,) with the same n; got {X.shape} and {y.shape}")
    if X.shape[0] < min_points:
        raise SuperposError(f"a data set needs at least {min_points} points, got {X.shape[0]}")
    if X.shape[1] < 1:
        raise SuperposError("the data set has no input variable")
    if not (np.all(np.isfinite(X)) and np.all(np.isfinite(y))):
        raise SuperposError("the data contain NaN or infinite values; remove those rows")
    if np.max(np.abs(y)) > MAX_DATA or np.max(np.abs(X)) > MAX_DATA:
        raise SuperposError("the data contain values beyond 1e300; rescale them")
    return X, y
