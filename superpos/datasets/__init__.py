"""Data: reading a user's data set (``reader``), the shipped benchmark problems and the
exact-recovery check (``problems``), and the shipped data sets (``ocr``, loaded on first use
so that reading a CSV does not import scikit-learn)."""
from __future__ import annotations

from pathlib import Path

from .problems import Problem, Recovery, available_problem_sets, is_exact_recovery, load_problems, solve_problem
from .reader import read_dataset

__all__ = ["Problem", "Recovery", "available_problem_sets", "data_dir", "is_exact_recovery", "load_ocr_letters",
           "load_problems", "load_snakes", "read_dataset", "solve_problem"]


def load_ocr_letters(path=None):
    """Taskar's OCR letters; see :func:`superpos.datasets.ocr.load_ocr_letters`."""
    from .ocr import load_ocr_letters as load

    return load(path)


def load_snakes(path=None):
    """The snakes grid task; see :func:`superpos.datasets.ocr.load_snakes`."""
    from .ocr import load_snakes as load

    return load(path)


def data_dir() -> Path:
    """The folder with the shipped data; see :func:`superpos.datasets.ocr.data_dir`."""
    from .ocr import data_dir as where

    return where()
