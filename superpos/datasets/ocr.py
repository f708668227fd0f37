"""Taskar's OCR letters (numpy archives, no pickle) for the chain S-SVM."""
from __future__ import annotations

from pathlib import Path

import numpy as np
from sklearn.utils import Bunch

from ..exceptions import SuperposError

__all__ = ["load_ocr_letters", "data_dir"]

_OCR = "ocr_letters.npz"


def data_dir() -> Path:
    """The folder with the shipped data: ``datasets/`` at the repository root (checkout),
    else ``superpos/datasets/data/`` inside an installed package."""
    for cand in (Path(__file__).resolve().parents[2] / "datasets", Path(__file__).resolve().parent / "data"):
        if (cand / _OCR).is_file():
            return cand
    raise SuperposError(f"{_OCR} not found next to the package: reinstall superpos or run from a checkout")


def load_ocr_letters(path=None) -> Bunch:
    """Taskar's OCR letters (Taskar, Guestrin & Koller 2003): 6,877 words, 52,152 letters.

    Returns a Bunch with ``X`` (list of (n_letters, 128) float64 arrays of 16x8 binary
    pixels), ``y`` (list of int64 arrays, a=0 ... z=25), ``folds`` (Taskar's fold 0..9 per
    word), ``words`` (the spelled words) and ``letters`` ("abc...z").
    The first (capital) letter of each word is not in the data, as in the original.
    """
    p = Path(path) if path is not None else data_dir() / _OCR
    with np.load(p, allow_pickle=False) as z:
        pixels = np.unpackbits(z["images"], axis=1)[:, :128].astype(np.float64)
        labels = z["labels"].astype(np.int64)
        lengths = z["word_lengths"].astype(np.int64)
        folds = z["folds"].astype(np.int64)
        words = z["words"]
    cuts = np.cumsum(lengths)[:-1]
    return Bunch(X=np.split(pixels, cuts), y=np.split(labels, cuts), folds=folds, words=words,
                 letters="abcdefghijklmnopqrstuvwxyz")
