"""The training corpus: (data set, canonical tree) pairs, generated from the prior of
:mod:`.prior` in chunks of fixed seeds, kept in memory (:class:`Corpus`, ``.npz``) or
streamed to a folder of shards. Duplicate formulas (same values on fixed probe points)
and over-represented skeletons are dropped here, across chunks.
"""
from __future__ import annotations

import json
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed

from ..core.basis import Basis
from ..core.files import atomic_write_npz, atomic_write_text, one_line, parse_json, read_npz
from ..exceptions import SuperposError
from .prior import check_prior, draw_formulas
from .schema import SchemaError, check_corpus, check_manifest

__all__ = ["Corpus", "corpus_length", "generate_corpus", "iter_corpus", "write_corpus", "write_manifest"]

CORPUS_FORMAT = 1
_MANIFEST = "manifest.json"
_MAX_MANIFEST = 16_000_000  # bytes of a shard folder's manifest
# a corpus file may be larger than a model file: a default shard of 50,000 data sets of up to
# 200 points and 20 variables holds about 210 million numbers
MAX_CORPUS_ELEMENTS = 250_000_000
_ARRAYS = ("tree_flat", "tree_offsets", "const_flat", "const_offsets", "X_flat", "y_flat", "point_offsets")


@dataclass
class Corpus:
    """Pairs (data set, tree), stored flat: data sets may have different numbers of points.

    ``trees[k]`` is the canonical prefix tree of formula k, ``constants[k]`` the values of
    its ``c`` leaves, ``dataset(k)`` its points (X (n, m_k), y (n,)); data sets may use
    fewer variables than the basis (``var_counts``).
    """

    basis: Basis
    tree_flat: np.ndarray
    tree_offsets: np.ndarray
    const_flat: np.ndarray
    const_offsets: np.ndarray
    X_flat: np.ndarray
    y_flat: np.ndarray
    point_offsets: np.ndarray
    max_depth: int = 5
    max_size: int = 12
    var_counts: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.tree_offsets) - 1

    @property
    def trees(self) -> list[np.ndarray]:
        o = self.tree_offsets
        return [self.tree_flat[o[k]:o[k + 1]] for k in range(len(self))]

    @property
    def constants(self) -> list[np.ndarray]:
        o = self.const_offsets
        return [self.const_flat[o[k]:o[k + 1]] for k in range(len(self))]

    def dataset(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        a, b = self.point_offsets[k], self.point_offsets[k + 1]
        m = self.X_flat.shape[1] if self.var_counts is None else int(self.var_counts[k])
        return self.X_flat[a:b, :m], self.y_flat[a:b]

    @property
    def datasets(self) -> list[tuple[np.ndarray, np.ndarray]]:
        return [self.dataset(k) for k in range(len(self))]

    def subset(self, index) -> "Corpus":
        """A new corpus with the formulas ``index`` (array of positions or a slice)."""
        idx = np.arange(len(self))[index]
        trees, consts = self.trees, self.constants
        return Corpus.from_lists(self.basis, [trees[k] for k in idx], [consts[k] for k in idx],
                                 [self.dataset(k) for k in idx], self.max_depth, self.max_size)

    @classmethod
    def from_lists(cls, basis, trees, constants, datasets, max_depth=5, max_size=12) -> "Corpus":
        def flat(parts, dtype, width=None):
            parts = [np.asarray(p, dtype=dtype) for p in parts]
            off = np.zeros(len(parts) + 1, dtype=np.int64)
            off[1:] = np.cumsum([len(p) for p in parts])
            empty = np.empty((0,) if width is None else (0, width), dtype=dtype)
            return (np.concatenate(parts) if parts else empty), off

        m = basis.n_variables
        Xs = [np.asarray(X, dtype=np.float64).reshape(len(X), -1) for X, _ in datasets]
        counts = np.array([X.shape[1] for X in Xs], dtype=np.int64)
        if np.any(counts > m):
            raise SuperposError(f"a data set has more variables than the basis ({m})")
        tf, to = flat(trees, np.int64)
        cf, co = flat(constants, np.float64)
        Xf, po = flat([np.pad(X, ((0, 0), (0, m - X.shape[1]))) for X in Xs], np.float64, m)
        yf, _ = flat([y for _, y in datasets], np.float64)
        return cls(basis, tf, to, cf, co, Xf, yf, po, int(max_depth), int(max_size), counts)

    def save(self, path) -> None:
        """Write an ``.npz`` (no pickle) atomically."""
        meta = {"format": "superpos-corpus", "version": CORPUS_FORMAT, "basis": self.basis.to_list(),
                "max_depth": self.max_depth, "max_size": self.max_size}
        atomic_write_npz(path, meta=np.array(json.dumps(meta)), tree_flat=self.tree_flat,
                         tree_offsets=self.tree_offsets, const_flat=self.const_flat,
                         const_offsets=self.const_offsets, X_flat=self.X_flat, y_flat=self.y_flat,
                         point_offsets=self.point_offsets, var_counts=self._var_counts())

    @classmethod
    def concatenate(cls, parts) -> "Corpus":
        """One corpus from several over the same basis (e.g. the shards of a folder)."""
        parts = list(parts)
        if not parts:
            raise SuperposError("no corpus to concatenate")
        first = parts[0]
        if any(p.basis.to_list() != first.basis.to_list() for p in parts):
            raise SuperposError("cannot join corpora over different bases")

        def join(flat, off):
            shifts = np.cumsum([0] + [len(getattr(p, flat)) for p in parts[:-1]])
            offs = [getattr(p, off)[:-1] + s for p, s in zip(parts, shifts)]
            return (np.concatenate([getattr(p, flat) for p in parts]),
                    np.concatenate(offs + [[sum(len(getattr(p, flat)) for p in parts)]]).astype(np.int64))

        tf, to = join("tree_flat", "tree_offsets")
        cf, co = join("const_flat", "const_offsets")
        yf, po = join("y_flat", "point_offsets")
        Xf = np.concatenate([p.X_flat for p in parts])
        counts = np.concatenate([p._var_counts() for p in parts])
        return cls(first.basis, tf, to, cf, co, Xf, yf, po, first.max_depth, first.max_size, counts)

    @classmethod
    def load(cls, path) -> "Corpus":
        """Read a corpus ``.npz`` or a folder of shards written by :func:`write_corpus`."""
        if Path(path).is_dir():
            return cls.concatenate(iter_corpus(path))

        z, meta = read_npz(path, "superpos-corpus", CORPUS_FORMAT, max_elements=MAX_CORPUS_ELEMENTS)
        try:
            f = check_corpus(z, meta)
        except SuperposError as exc:
            raise SuperposError(f"{path}: damaged corpus file ({one_line(exc)}); regenerate it") from None
        return cls(f["basis"], *(f[k] for k in _ARRAYS), max_depth=f["max_depth"], max_size=f["max_size"],
                   var_counts=f["var_counts"])

    def _var_counts(self) -> np.ndarray:
        if self.var_counts is None:
            return np.full(len(self), self.X_flat.shape[1], dtype=np.int64)
        return np.asarray(self.var_counts, dtype=np.int64)


def generate_corpus(basis: Basis, n_formulas: int, *, random_state=None, max_depth: int = 5,
                    max_size: int = 12, min_size: int = 1, n_points=(20, 200), n_variables=None,
                    depth_decay: float = 0.75, max_skeleton_share: float = 0.01, offset_share: float = 0.0,
                    noisy_share: float = 0.0, n_jobs: int = 1, chunk_size: int = 500, progress=None) -> Corpus:
    """Generate ``n_formulas`` distinct (data set, canonical tree) pairs.

    ``n_points`` is an int or an inclusive range (lo, hi) drawn per data set;
    ``n_variables`` (default: all of the basis's) an int or a range. No skeleton (tree
    up to constant values) takes more than ``max_skeleton_share`` of the corpus, so
    that c*x1, the limit of many random trees, does not dominate. ``offset_share`` of the
    input ranges are narrow and far from zero, ``noisy_share`` of the targets noisy at
    the levels of :data:`~superpos.structure.prior.NOISE_LEVELS`. Work is split in
    chunks of fixed seeds, so the result depends on ``random_state`` only, not on
    ``n_jobs``. ``progress(done, total)`` is called as formulas are accepted.
    For corpora too large for memory, :func:`write_corpus` streams the same formulas to disk.
    """
    trees, consts, data = [], [], []
    for t_, c_, d_ in _accepted_waves(basis, n_formulas, random_state, max_depth, max_size, min_size, n_points,
                                      n_variables, depth_decay, max_skeleton_share, offset_share, noisy_share, n_jobs,
                                      chunk_size, progress):
        trees += t_
        consts += c_
        data += d_
    return Corpus.from_lists(basis, trees, consts, data, max_depth, max_size)


def write_corpus(folder, basis: Basis, n_formulas: int, *, shard_size: int = 50_000, random_state=None,
                 max_depth: int = 5, max_size: int = 12, min_size: int = 1, n_points=(20, 200),
                 n_variables=None, depth_decay: float = 0.75, max_skeleton_share: float = 0.01,
                 offset_share: float = 0.0, noisy_share: float = 0.0, n_jobs: int = 1, chunk_size: int = 500,
                 progress=None) -> Path:
    """Generate the same formulas as :func:`generate_corpus` and stream them to ``folder``
    as shards of about ``shard_size`` formulas (``part-00000.npz``, ...) plus a
    ``manifest.json`` written last, so memory stays bounded by one shard whatever
    ``n_formulas`` is. :meth:`Corpus.load` and :func:`iter_corpus` read the folder."""
    folder = Path(folder)
    if n_formulas < 1:
        raise SuperposError("n_formulas must be >= 1")
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise SuperposError(f"{folder} exists and is not an empty folder: choose a new output folder")
    if not folder.parent.is_dir():
        raise SuperposError(f"cannot write {folder}: the folder {folder.parent} does not exist")
    folder.mkdir(exist_ok=True)
    shards: list[dict] = []
    buf: tuple[list, list, list] = ([], [], [])

    def flush() -> None:
        name = f"part-{len(shards):05d}.npz"
        Corpus.from_lists(basis, *buf, max_depth, max_size).save(folder / name)
        shards.append({"file": name, "n": len(buf[0])})
        for part in buf:
            part.clear()

    for wave in _accepted_waves(basis, n_formulas, random_state, max_depth, max_size, min_size, n_points,
                                n_variables, depth_decay, max_skeleton_share, offset_share, noisy_share, n_jobs,
                                      chunk_size, progress):
        for part, new in zip(buf, wave):
            part += new
        if len(buf[0]) >= shard_size:
            flush()
    if buf[0]:
        flush()
    write_manifest(folder, basis, shards, max_depth, max_size)
    return folder


def write_manifest(folder, basis: Basis, shards: list[dict], max_depth: int = 5, max_size: int = 12) -> None:
    """Write ``folder/manifest.json`` (atomically) listing ``shards`` ([{"file", "n"}, ...]),
    the file :meth:`Corpus.load` and :func:`iter_corpus` read a sharded corpus from."""
    manifest = {"format": "superpos-corpus-shards", "version": CORPUS_FORMAT,
                "n_formulas": sum(s["n"] for s in shards), "basis": basis.to_list(), "max_depth": max_depth,
                "max_size": max_size, "shards": shards}
    atomic_write_text(Path(folder) / _MANIFEST, json.dumps(manifest, indent=1))


def iter_corpus(path):
    """The corpus at ``path`` piece by piece: one :class:`Corpus` for an ``.npz`` file,
    one per shard for a folder written by :func:`write_corpus`."""
    path = Path(path)
    if not path.is_dir():
        yield Corpus.load(path)
        return
    for name, n in _shard_files(path):
        shard = Corpus.load(path / name)
        if len(shard) != n:
            raise SuperposError(f"{path / name}: {len(shard)} formulas, but the manifest says {n}; "
                                "regenerate the corpus")
        yield shard


def corpus_length(path) -> int:
    """Number of formulas in a corpus file or shard folder (a folder's from its manifest,
    without reading the shards)."""
    path = Path(path)
    if path.is_dir():
        return sum(n for _, n in _shard_files(path))
    return len(Corpus.load(path))


def _shard_files(folder: Path) -> list[tuple[str, int]]:
    """The shards [(file name, formulas)] that ``folder``'s manifest lists, checked."""
    mf = folder / _MANIFEST
    try:
        if mf.stat().st_size > _MAX_MANIFEST:
            raise SchemaError(f"larger than {_MAX_MANIFEST:,} bytes")
        return check_manifest(parse_json(mf.read_text(encoding="utf-8")), CORPUS_FORMAT)
    except FileNotFoundError:
        raise SuperposError(f"{folder}: no {_MANIFEST}; not a finished corpus folder (regenerate it)") from None
    except SchemaError as exc:
        raise SuperposError(f"{mf}: damaged corpus manifest ({one_line(exc)}); regenerate the corpus") from None
    except SuperposError as exc:
        raise SuperposError(f"{folder}: {exc}") from None
    except (OSError, ValueError):  # unreadable, not UTF-8, not JSON
        raise SuperposError(f"{mf}: damaged corpus manifest; regenerate the corpus") from None


def _accepted_waves(basis, n_formulas, random_state, max_depth, max_size, min_size, n_points, n_variables,
                    depth_decay, max_skeleton_share, offset_share, noisy_share, n_jobs, chunk_size, progress,
                    wave_chunks: int = 16):
    """Accepted formulas as lists (trees, constants, data sets), ``wave_chunks`` chunks at a time.

    The chunks' seeds and the order they are read in are fixed by ``random_state``, so the
    formulas do not depend on ``n_jobs`` or on the wave size; only the fingerprints of
    accepted formulas and the per-skeleton counts stay in memory between waves. Workers
    run ahead of the reader by a few chunks (joblib's pre-dispatch), so memory stays bounded."""
    check_prior(basis, n_formulas, max_depth, max_size, min_size, n_points, n_variables, depth_decay, offset_share,
                noisy_share)
    nv = basis.n_variables if n_variables is None else n_variables
    ss = np.random.SeedSequence(np.random.default_rng(random_state).integers(2**63))
    seen: set = set()
    per_skeleton: dict = {}
    cap = max(1, int(np.ceil(max_skeleton_share * n_formulas)))
    total = 0
    names = basis.to_list()
    wave: tuple[list, list, list] = ([], [], [])
    # one seed per chunk, spawned in order: the same seeds whatever n_jobs; the budget of
    # chunks only stops a basis and limits that cannot give n_formulas distinct formulas
    budget = 50 * -(-int(n_formulas * 1.05) // chunk_size) + 50
    seeds = (ss.spawn(1)[0] for _ in range(budget))
    # chunks come back in seed order while the workers go on with the next ones
    chunks = Parallel(n_jobs=n_jobs, return_as="generator")(
        delayed(draw_formulas)(names, s, chunk_size, max_depth, max_size, n_points, nv, depth_decay, min_size,
                               offset_share, noisy_share)
        for s in seeds)
    for done, (t_, c_, d_, p_) in enumerate(chunks, start=1):
        for t, c, d, p in zip(t_, c_, d_, p_):
            key = t.tobytes()
            if p in seen or total >= n_formulas or per_skeleton.get(key, 0) >= cap:
                continue
            seen.add(p)
            per_skeleton[key] = per_skeleton.get(key, 0) + 1
            wave[0].append(t)
            wave[1].append(c)
            wave[2].append(d)
            total += 1
        if total >= n_formulas or done % wave_chunks == 0:
            if progress is not None:
                progress(total, n_formulas)
            yield wave
            wave = ([], [], [])
        if total >= n_formulas:
            with warnings.catch_warnings():  # joblib warns that it cancels them
                warnings.simplefilter("ignore", UserWarning)
                chunks.close()  # the chunks still running cannot be accepted: stop them
            return
    raise SuperposError("could not generate enough distinct formulas: relax the limits or the basis")
