"""Files without pickle: ``.npz`` of plain arrays plus a JSON header, written atomically."""
from __future__ import annotations

import json
import os
import tempfile
import zipfile
from pathlib import Path

import numpy as np

from ..exceptions import SuperposError

__all__ = ["atomic_write", "atomic_write_npz", "atomic_write_text", "read_npz"]


def atomic_write(path, write) -> None:
    """Call ``write(fh)`` on a temporary file in ``path``'s folder, then rename it to ``path``:
    readers see the old file or the whole new one, never a part."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise SuperposError(f"cannot write {path}: the folder {folder} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def atomic_write_npz(path, **arrays) -> None:
    """np.savez_compressed to a temporary file in the same folder, then rename."""
    atomic_write(path, lambda fh: np.savez_compressed(fh, **arrays))


def atomic_write_text(path, text: str) -> None:
    atomic_write(path, lambda fh: fh.write(text.encode("utf-8")))


def read_npz(path, kind: str, version: int) -> tuple[dict, dict]:
    """Load an ``.npz`` written by superpos: (arrays, header). Refuses pickled objects,
    other kinds of file and newer format versions with a :class:`SuperposError`."""
    path = Path(path)
    if not path.is_file():
        raise SuperposError(f"{path}: no such file")
    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise SuperposError(f"{path}: not a readable superpos file ({exc}); regenerate it") from None
    try:
        meta = json.loads(str(arrays.pop("meta")))
        file_version = int(meta.get("version", -1))
    except (KeyError, ValueError, TypeError, AttributeError):
        raise SuperposError(f"{path}: not a superpos {kind} file (no valid header)") from None
    if meta.get("format") != kind:
        raise SuperposError(f"{path}: this is a {meta.get('format')!r} file, expected a {kind!r} file")
    if file_version > version:
        raise SuperposError(f"{path}: {kind} format version {meta.get('version')} is newer than this superpos "
                            f"understands ({version}); upgrade superpos")
    return arrays, meta
