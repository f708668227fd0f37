"""superpos: predict the structure of the formula behind a data set.

The public names are imported on first use (PEP 562), so that ``superpos.cli`` and other
submodules start without loading what they do not need."""
from importlib import import_module

__version__ = "0.1.0"

_WHERE = {"Basis": "basis", "BasisFunction": "basis", "register_function": "basis",
          "Corpus": "corpus", "generate_corpus": "corpus", "write_corpus": "corpus",
          "SuperposError": "exceptions", "DatasetFeatures": "features", "write_features": "features",
          "StructurePredictor": "predictor", "SuperposRegressor": "regressor"}

__all__ = sorted(_WHERE) + ["__version__"]


def __getattr__(name: str):
    if name in _WHERE:
        value = getattr(import_module(f".{_WHERE[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return __all__
