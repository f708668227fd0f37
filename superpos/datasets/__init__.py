"""Data: reading a user's data set (``reader``), the shipped benchmark problems and the
exact-recovery check (``problems``), and the shipped data sets (``ocr``).

The public names are imported on first use, so that reading a CSV does not load
scikit-learn."""
from importlib import import_module

_WHERE = {"load_ocr_letters": "ocr", "data_dir": "ocr", "read_dataset": "reader", "load_problems": "problems",
          "available_problem_sets": "problems", "is_exact_recovery": "problems", "Problem": "problems"}

__all__ = sorted(_WHERE)


def __getattr__(name: str):
    if name in _WHERE:
        value = getattr(import_module(f".{_WHERE[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return __all__
