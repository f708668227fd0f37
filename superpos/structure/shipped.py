"""The shipped default model and loading a structure predictor from what a user passes
(None, a path, or a fitted instance), each model file read once per version."""
from __future__ import annotations

import os
from pathlib import Path

from ..exceptions import SuperposError

__all__ = ["default_model_path", "load_predictor"]

_CACHE: dict = {}


def default_model_path() -> Path:
    """Where the shipped default model lives: ``superpos/models/default.npz``."""
    return Path(__file__).resolve().parent.parent / "models" / "default.npz"


def load_predictor(predictor=None):
    """A fitted StructurePredictor from None (the shipped default), a path or an instance.

    Paths are loaded once per file version (cached by path and modification time).
    A ``sklearn.frozen.FrozenEstimator`` around a predictor is unwrapped."""
    from .predictor import StructurePredictor

    if predictor is None:
        path = default_model_path()
        if not path.is_file():
            raise SuperposError(f"no default model is installed ({path} is missing): pass "
                                "predictor=StructurePredictor(...).fit(corpus) or the path of a saved model")
        predictor = path
    if isinstance(predictor, (str, os.PathLike)):
        path = Path(predictor)
        if not path.is_file():
            raise SuperposError(f"{path}: no such model file")
        key = (str(path.resolve()), path.stat().st_mtime_ns)
        if key not in _CACHE:
            _CACHE.clear()
            _CACHE[key] = StructurePredictor.load(path)
        return _CACHE[key]
    inner = getattr(predictor, "estimator", None)
    if type(predictor).__name__ == "FrozenEstimator" and inner is not None:
        predictor = inner
    if not hasattr(predictor, "predict_trees"):
        raise SuperposError(f"predictor must be None, a model path or a StructurePredictor, got {type(predictor).__name__}")
    if not hasattr(predictor, "classifier_"):
        raise SuperposError("the StructurePredictor is not fitted (scikit-learn's clone() drops its training): "
                            "fit it, or pass its saved path or sklearn.frozen.FrozenEstimator(predictor)")
    return predictor
