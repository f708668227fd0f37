"""scikit-learn's parameter convention without importing scikit-learn.

The estimators that the command line needs at start-up (the structure predictor and the
feature map) take their parameters from this mixin instead of ``sklearn.base.BaseEstimator``:
importing scikit-learn costs about 0.9 s, most of a warm ``superpos predict``. The
convention is the same (parameters are the ``__init__`` arguments, stored unchanged under
their names; ``get_params`` / ``set_params`` with ``a__b`` for nested ones), so
``sklearn.base.clone`` and grid searches work on them.
"""
from __future__ import annotations

import inspect

__all__ = ["ParamsMixin"]


class ParamsMixin:
    @classmethod
    def _get_param_names(cls) -> list[str]:
        sig = inspect.signature(cls.__init__)
        return sorted(p.name for p in sig.parameters.values()
                      if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD))

    def get_params(self, deep: bool = True) -> dict:
        out = {}
        for name in self._get_param_names():
            value = getattr(self, name)
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                out.update({f"{name}__{k}": v for k, v in value.get_params().items()})
            out[name] = value
        return out

    def set_params(self, **params):
        valid = self._get_param_names()
        nested: dict[str, dict] = {}
        for key, value in params.items():
            name, _, sub = key.partition("__")
            if name not in valid:
                raise ValueError(f"invalid parameter {name!r} for {type(self).__name__}; valid: {', '.join(valid)}")
            if sub:
                nested.setdefault(name, {})[sub] = value
            else:
                setattr(self, name, value)
        for name, sub in nested.items():
            getattr(self, name).set_params(**sub)
        return self

    def __sklearn_tags__(self):
        """scikit-learn's default tags (imported only when scikit-learn asks, so it is loaded)."""
        from sklearn.base import BaseEstimator

        return BaseEstimator.__sklearn_tags__(self)

    def __repr__(self) -> str:
        defaults = {p.name: p.default for p in inspect.signature(type(self).__init__).parameters.values()}
        shown = []
        for name in self._get_param_names():
            value = getattr(self, name)
            default = defaults.get(name, inspect.Parameter.empty)
            try:
                same = value is default or bool(value == default)
            except Exception:  # noqa: BLE001 - arrays and odd objects compare oddly
                same = False
            if not same:
                shown.append(f"{name}={value!r}")
        return f"{type(self).__name__}({', '.join(shown)})"
