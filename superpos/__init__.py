"""superpos: predict the structure of the formula behind a data set.

Subpackages: ``core`` (basis, trees, files), ``structure`` (corpus, features, predictor,
decoding), ``symreg`` (one data set's formula: fitting, selection, search, the regressor),
``datasets`` (reading data, benchmark problems, shipped data), ``ssvm`` (structural SVMs)
and ``_kernels`` (every numba kernel); ``cli`` is the ``superpos`` command.

The public names are imported on first use (PEP 562), so that ``superpos.cli`` and other
submodules start without loading what they do not need."""
from importlib import import_module

__version__ = "0.1.0"

_WHERE = {"Basis": "core.basis", "BasisFunction": "core.basis", "register_function": "core.basis",
          "Corpus": "structure.corpus", "generate_corpus": "structure.corpus", "write_corpus": "structure.corpus",
          "iter_corpus": "structure.corpus", "SuperposError": "exceptions", "DatasetFeatures": "structure.features",
          "write_features": "structure.features", "StructurePredictor": "structure.predictor",
          "find_formula": "symreg.pipeline", "Formula": "symreg.pipeline", "FormulaSettings": "symreg.settings",
          "SuperposRegressor": "symreg.regressor"}

__all__ = sorted(_WHERE) + ["__version__"]


def __getattr__(name: str):
    if name in _WHERE:
        value = getattr(import_module(f".{_WHERE[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return __all__
