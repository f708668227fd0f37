"""The shipped OCR letters and their loader."""
from __future__ import annotations

import numpy as np

from superpos.datasets import data_dir, load_ocr_letters


def test_load_ocr_letters():
    d = load_ocr_letters()
    assert (data_dir() / "ocr_letters.npz").is_file()
    assert len(d.X) == len(d.y) == d.folds.size == 6877
    assert sum(len(y) for y in d.y) == 52152
    assert all(x.shape == (len(y), 128) and x.dtype == np.float64 for x, y in zip(d.X[:50], d.y[:50]))
    assert set(np.unique(np.concatenate(d.X[:100]))) <= {0.0, 1.0}
    assert np.concatenate(d.y).min() == 0 and np.concatenate(d.y).max() == 25
    assert all("".join(d.letters[k] for k in y) == str(w) for y, w in zip(d.y[:200], d.words[:200]))
    counts = np.bincount(d.folds, minlength=10)
    assert counts[0] == 626 and counts[1] == 704
