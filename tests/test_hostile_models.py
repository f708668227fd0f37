"""Crafted and damaged model and corpus files: each is refused with one SuperposError (a
one-line message saying what to do), never a hang, a huge allocation or another exception."""
import json
import warnings
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.neural_network import MLPClassifier

from superpos import Basis, StructurePredictor, SuperposError, generate_corpus
from superpos.core.basis import MAX_VARIABLES
from superpos.core.tree import edge_contexts, is_admissible
from superpos.structure.corpus import Corpus, corpus_length, iter_corpus, write_manifest
from superpos.structure.schema import admissible_forest
from superpos.symreg.pipeline import find_formula

_RNG = np.random.default_rng(3)
X3 = _RNG.uniform(0.5, 2.0, (30, 3))
Y3 = X3[:, 0] * X3[:, 1] + np.sin(X3[:, 2])


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A tiny MLP model (as in test_regressor), a gradient-boosted and a logistic one, and their corpus."""
    folder = tmp_path_factory.mktemp("hostile")
    c = generate_corpus(Basis.default(3), 150, random_state=0, max_depth=3, max_size=7, n_points=(20, 40))
    c.save(folder / "corpus.npz")
    clfs = {"mlp": MLPClassifier((32,), max_iter=60, random_state=0),
            "gbt": HistGradientBoostingClassifier(max_iter=2, max_leaf_nodes=6, random_state=0),
            "logistic": LogisticRegression(max_iter=20)}
    for kind, clf in clfs.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            p = StructurePredictor(context="parent+position+depth", size_bonus=0.0, random_state=0,
                                   classifier=clf).fit(c if kind == "mlp" else c.subset(slice(0, 60)))
        p.save(folder / f"{kind}.npz")
    return folder


def _read(path):
    with np.load(path, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    return arrays, json.loads(str(arrays.pop("meta")))


def _write(path, arrays, meta):
    """Save ``arrays`` with ``meta`` (a dict, dumped with NaN / Infinity allowed, or raw text)."""
    text = meta if isinstance(meta, str) else json.dumps(meta)
    np.savez(path, meta=np.array(text), **arrays)
    return path


def _edited(files, tmp_path, kind="mlp", header=None, drop=(), **arrays):
    """The ``kind`` model with header fields and arrays replaced; ``header`` maps a key (or
    "features.key") to a value, or is a function from the header's JSON text to new text."""
    a, meta = _read(files / f"{kind}.npz")
    for k in drop:
        a.pop(k)
    a.update(arrays)
    if callable(header):
        meta = header(json.dumps(meta))
    else:
        for key, value in (header or {}).items():
            if key.startswith("features."):
                meta["features"][key.split(".", 1)[1]] = value
            else:
                meta[key] = value
    return _write(tmp_path / "edited.npz", a, meta)


def _refused(path, loader=StructurePredictor.load, match=None):
    with pytest.raises(SuperposError, match=match) as info:
        loader(path)
    msg = str(info.value)
    assert "\n" not in msg and len(msg) < 600, msg
    return msg


def test_the_fixture_models_load_and_predict(files):
    for kind in ("mlp", "gbt", "logistic"):
        model = StructurePredictor.load(files / f"{kind}.npz")
        assert find_formula(X3, Y3, model, top_k=5).expr is not None
    assert len(Corpus.load(files / "corpus.npz")) == 150


# ------------------------------------------------------------------ model headers
@pytest.mark.parametrize("header", [
    {"version": float("inf")}, {"version": float("nan")}, {"version": -1}, {"version": True}, {"version": "1"},
    {"version": 1.5}, {"version": 10**30}, {"max_depth": -1}, {"max_depth": 0}, {"max_depth": 10**6},
    {"max_depth": 11}, {"max_depth": 2.0}, {"max_depth": True}, {"max_depth": None},
    {"features.n_grid": 10**9}, {"features.n_grid": 8}, {"features.max_variables": 1000},
    {"features.max_variables": 0}, {"features.n_jobs": 4}, {"features": [24, 3]},
    {"basis": ["add", "x100000000", "c"]}, {"basis": ["add", "x21", "c"]}, {"basis": ["add", "foo", "x1"]},
    {"basis": ["x1"] * 2}, {"basis": ["add"] * 70}, {"basis": "add,x1"}, {"basis": ["x1", "c"]},
    {"basis": [["add"], "x1"]},
    {"context": "siblings"}, {"context": None}, {"size_bonus": float("nan")}, {"size_bonus": float("-inf")},
    {"size_bonus": 1e6}, {"size_bonus": "auto"}, {"floor": 0}, {"floor": 1}, {"floor": -0.5},
    {"floor": float("nan")}, {"classifier": "pickle"}, {"classifier": ["mlp"]},
    {"format": "superpos-corpus"}, {"format": None},
], ids=lambda h: repr(h)[:40])
def test_bad_header_fields(files, tmp_path, header):
    _refused(_edited(files, tmp_path, header=header))


@pytest.mark.parametrize("edit", [
    lambda t: t.replace('"max_depth": 3', '"max_depth": 1e999'),
    lambda t: t.replace('"max_depth": 3', '"max_depth": -1e999'),
    lambda t: t.replace('"version": 1', '"version": Infinity'),
    lambda t: t.replace('"version": 1', '"version": ' + "9" * 5000),
    lambda t: t.replace('"floor": 0.0001', '"floor": NaN'),
    lambda t: "[" + t + "]", lambda t: '"a string"', lambda t: "42", lambda t: "null", lambda t: "{",
    lambda t: "[" * 100_000 + "]" * 100_000, lambda t: t[:-1] + ', "pad": "' + "x" * 1_100_000 + '"}',
    lambda t: "",
])
def test_bad_header_text(files, tmp_path, edit):
    _refused(_edited(files, tmp_path, header=edit))


def test_missing_or_malformed_header_array(files, tmp_path):
    a, _ = _read(files / "mlp.npz")
    np.savez(tmp_path / "none.npz", **a)
    _refused(tmp_path / "none.npz")
    for meta in (np.array(["{}", "{}"]), np.array(3.0), np.array([b"{}"])):
        np.savez(tmp_path / "m.npz", meta=meta, **a)
        _refused(tmp_path / "m.npz")


def test_newer_version_says_upgrade(files, tmp_path):
    _refused(_edited(files, tmp_path, header={"version": 2}), match="upgrade superpos")


# ------------------------------------------------------------------ model arrays
def _mlp(files):
    return _read(files / "mlp.npz")[0]


@pytest.mark.parametrize("variant", [
    "W0 transposed", "W0 1-d", "W0 3-d", "W0 extra row", "W0 extra column", "b0 2-d", "b0 short", "W1 short",
    "W1 one column", "mean short", "scale short", "mean 2-d", "classes 2-d", "classes short", "n_layers 1-d",
    "n_layers 0", "n_layers 2.5", "n_layers 3", "n_layers 17", "n_layers huge", "activation softmax",
    "activation 1-d", "no W1", "no classes", "W0 text", "W0 int", "W0 complex",
])
def test_mlp_arrays_of_the_wrong_shape_or_type(files, tmp_path, variant):
    a = _mlp(files)
    W0, W1, b0 = a["clf_W0"], a["clf_W1"], a["clf_b0"]
    new = {
        "W0 transposed": {"clf_W0": W0.T}, "W0 1-d": {"clf_W0": W0.ravel()}, "W0 3-d": {"clf_W0": W0[None]},
        "W0 extra row": {"clf_W0": np.vstack([W0, W0[:1]])}, "W0 extra column": {"clf_W0": np.hstack([W0, W0[:, :1]])},
        "b0 2-d": {"clf_b0": b0[None]}, "b0 short": {"clf_b0": b0[:-1]}, "W1 short": {"clf_W1": W1[:-1]},
        "W1 one column": {"clf_W1": W1[:, :1], "clf_b1": a["clf_b1"][:1]},
        "mean short": {"clf_mean": a["clf_mean"][:-1]}, "scale short": {"clf_scale": a["clf_scale"][:-1]},
        "mean 2-d": {"clf_mean": a["clf_mean"][None]}, "classes 2-d": {"clf_classes_": a["clf_classes_"][None]},
        "classes short": {"clf_classes_": a["clf_classes_"][:-1]}, "n_layers 1-d": {"clf_n_layers": np.array([2])},
        "n_layers 0": {"clf_n_layers": np.array(0)}, "n_layers 2.5": {"clf_n_layers": np.array(2.5)},
        "n_layers 3": {"clf_n_layers": np.array(3)}, "n_layers 17": {"clf_n_layers": np.array(17)},
        "n_layers huge": {"clf_n_layers": np.array(2**62)},
        "activation softmax": {"clf_activation": np.array("softmax")},
        "activation 1-d": {"clf_activation": np.array(["relu"])}, "no W1": None, "no classes": None,
        "W0 text": {"clf_W0": W0.astype(str)}, "W0 int": {"clf_W0": W0.astype(np.int64)},
        "W0 complex": {"clf_W0": W0.astype(complex)},
    }[variant]
    drop = {"no W1": ("clf_W1",), "no classes": ("clf_classes_",)}.get(variant, ())
    _refused(_edited(files, tmp_path, drop=drop, **(new or {})))


@pytest.mark.parametrize("classes", [
    lambda c: c + 100, lambda c: c - 1, lambda c: np.r_[-1, c[1:]], lambda c: c[::-1], lambda c: np.r_[c[0], c[:-1]],
    lambda c: c.astype(np.float64), lambda c: c.astype(str), lambda c: c.astype(np.uint64) + np.uint64(2**63),
], ids=["above", "zero", "negative", "unsorted", "duplicate", "float", "text", "uint64 overflow"])
def test_class_ids_out_of_range(files, tmp_path, classes):
    for kind in ("mlp", "gbt", "logistic"):
        c = _read(files / f"{kind}.npz")[0]["clf_classes_"]
        _refused(_edited(files, tmp_path, kind=kind, clf_classes_=classes(c)))


@pytest.mark.parametrize("name,value", [("clf_W0", np.nan), ("clf_W1", np.inf), ("clf_b0", np.nan),
                                        ("clf_mean", -np.inf), ("clf_scale", 0.0), ("clf_scale", -1.0)])
def test_non_finite_weights(files, tmp_path, name, value):
    a = _mlp(files)
    _refused(_edited(files, tmp_path, **{name: np.full_like(a[name], value)}))


def _gbt_edit(files, tmp_path, name, f):
    a = _read(files / "gbt.npz")[0]
    return _edited(files, tmp_path, kind="gbt", **{name: f(a[name].copy(), a)})


def _first_split(a):
    return int(np.flatnonzero(~a["clf_is_leaf"])[0])


def _set(arr, k, v):
    arr[k] = v
    return arr


@pytest.mark.parametrize("name,f", [
    ("clf_left", lambda x, a: _set(x, _first_split(a), 0)),  # a loop
    ("clf_right", lambda x, a: _set(x, _first_split(a), 10**6)),
    ("clf_left", lambda x, a: _set(x, _first_split(a), -5)),
    ("clf_feature", lambda x, a: _set(x, _first_split(a), 10**6)),
    ("clf_feature", lambda x, a: _set(x, _first_split(a), -1)),
    ("clf_threshold", lambda x, a: _set(x, _first_split(a), np.nan)),
    ("clf_value", lambda x, a: _set(x, 0, np.inf)),
    ("clf_baseline", lambda x, a: x[:-1]),
    ("clf_n_classes", lambda x, a: np.array(3)),
    ("clf_tree_offsets", lambda x, a: x[:-1]),
    ("clf_tree_offsets", lambda x, a: _set(x, 1, x[2])),
    ("clf_tree_offsets", lambda x, a: x[::-1]),
    ("clf_is_leaf", lambda x, a: x[:-1]),
    ("clf_is_leaf", lambda x, a: np.zeros_like(x)),
    ("clf_missing_left", lambda x, a: x.astype(np.float64)),
], ids=lambda v: v if isinstance(v, str) else "")
def test_gbt_arrays_that_would_loop_or_read_out_of_bounds(files, tmp_path, name, f):
    _refused(_gbt_edit(files, tmp_path, name, f))


@pytest.mark.parametrize("name,f", [
    ("clf_coef_", lambda x: x[:, :-1]), ("clf_coef_", lambda x: x[:-1]), ("clf_coef_", lambda x: x.ravel()),
    ("clf_intercept_", lambda x: x[:-1]), ("clf_coef_", lambda x: np.full_like(x, np.nan)),
])
def test_logistic_arrays(files, tmp_path, name, f):
    a = _read(files / "logistic.npz")[0]
    _refused(_edited(files, tmp_path, kind="logistic", **{name: f(a[name])}))


def test_huge_array_refused_from_its_header(files, tmp_path):
    """A file whose array header claims 10^10 elements is refused before any data is read."""
    a, meta = _read(files / "mlp.npz")
    path = _write(tmp_path / "m.npz", a, meta)
    with zipfile.ZipFile(path, "a") as zf, zf.open("clf_extra.npy", "w") as fh:
        np.lib.format.write_array_header_2_0(fh, {"descr": "<f8", "fortran_order": False, "shape": (10**10,)})
    _refused(path, match="more than")
    np.savez(tmp_path / "obj.npz", meta=np.array(json.dumps(meta)), clf_W0=np.array([{}, 1], dtype=object))
    _refused(tmp_path / "obj.npz")
    with zipfile.ZipFile(tmp_path / "txt.npz", "w") as zf:
        zf.writestr("meta.npy", b"not an array")
    _refused(tmp_path / "txt.npz")
    (tmp_path / "plain.npz").write_bytes(np.lib.format.MAGIC_PREFIX + b"\x01\x00")
    _refused(tmp_path / "plain.npz")


def test_basis_bounds_its_variables():
    assert Basis(["add", f"x{MAX_VARIABLES}", "c"]).n_variables == MAX_VARIABLES
    for names in (["add", "x100000000"], ["add", f"x{MAX_VARIABLES + 1}"], ["add", "x" + "9" * 5000]):
        with pytest.raises(SuperposError, match="at most"):
            Basis(names)
    with pytest.raises(SuperposError):
        Basis(["add", "c"], n_variables=10**8)


def test_save_refuses_what_load_would_refuse(files, tmp_path):
    model = StructurePredictor.load(files / "mlp.npz")
    model.max_depth_ = 11
    with pytest.raises(SuperposError, match="cannot be saved"):
        model.save(tmp_path / "deep.npz")
    assert not (tmp_path / "deep.npz").exists()


# ------------------------------------------------------------------ corpus files
def _corpus_edit(files, tmp_path, header=None, **arrays):
    a, meta = _read(files / "corpus.npz")
    a.update(arrays)
    meta.update(header or {})
    return _write(tmp_path / "c.npz", a, meta)


def _corpus_case(a, case):
    t, to, X = a["tree_flat"], a["tree_offsets"], a["X_flat"]
    return {
        "id above": {"tree_flat": _set(t.copy(), 0, 99)}, "id negative": {"tree_flat": _set(t.copy(), 0, -1)},
        "root inside": {"tree_flat": _set(t.copy(), 0, 0)},
        "not admissible": {"tree_flat": _set(t.copy(), to[1] - 1, 1)},  # a leaf made an add
        "empty tree": {"tree_offsets": _set(to.copy(), 1, 0)},
        "offsets past end": {"tree_offsets": _set(to.copy(), -1, to[-1] + 5)},
        "X 1-d": {"X_flat": X[:, 0]}, "X extra column": {"X_flat": np.hstack([X, X[:, :1]])},
        "X short": {"X_flat": X[:-1]}, "y short": {"y_flat": a["y_flat"][:-1]},
        "var_counts zero": {"var_counts": np.zeros_like(a["var_counts"])},
        "var_counts above": {"var_counts": a["var_counts"] + 5},
        "var_counts short": {"var_counts": a["var_counts"][:-1]},
        "tree_flat float": {"tree_flat": t.astype(np.float64)}, "tree_flat 2-d": {"tree_flat": t[None]},
        "point_offsets decreasing": {"point_offsets": a["point_offsets"][::-1]},
        "empty data set": {"point_offsets": _set(a["point_offsets"].copy(), 1, 0)},
    }[case]


@pytest.mark.parametrize("case", [
    "id above", "id negative", "root inside", "not admissible", "empty tree", "offsets past end", "X 1-d",
    "X extra column", "X short", "y short", "var_counts zero", "var_counts above", "var_counts short",
    "tree_flat float", "tree_flat 2-d", "point_offsets decreasing", "empty data set",
])
def test_corpus_arrays(files, tmp_path, case):
    a, _ = _read(files / "corpus.npz")
    _refused(_corpus_edit(files, tmp_path, **_corpus_case(a, case)), loader=Corpus.load, match="regenerate")


@pytest.mark.parametrize("header", [
    {"max_depth": float("inf")}, {"max_depth": 10**6}, {"max_depth": -1}, {"max_depth": 3.0},
    {"max_size": float("nan")}, {"max_size": 0}, {"max_size": 10**9}, {"basis": ["add", "x100000000", "c"]},
    {"basis": None}, {"version": float("inf")},
], ids=lambda h: repr(h)[:40])
def test_corpus_header(files, tmp_path, header):
    _refused(_corpus_edit(files, tmp_path, header=header), loader=Corpus.load)


def test_corpus_depth_is_bounded_at_generation():
    with pytest.raises(SuperposError, match="max_depth"):
        generate_corpus(Basis.default(1), 5, max_depth=11)


@pytest.mark.parametrize("shards", [
    [{"file": "../c.npz", "n": 150}], [{"file": "/tmp/c.npz", "n": 150}], [{"file": "sub/c.npz", "n": 150}],
    [{"file": "c.txt", "n": 150}], [{"file": "c.npz", "n": -1}], [{"file": "c.npz", "n": "150"}],
    [{"file": "c.npz", "n": float("nan")}], [{"file": "c.npz"}], ["c.npz"], "c.npz", None,
    [{"file": "c.npz", "n": 149}],  # the manifest's count is checked against the shard
], ids=lambda s: repr(s)[:40])
def test_shard_manifest(files, tmp_path, shards):
    folder = tmp_path / "shards"
    folder.mkdir()
    (folder / "c.npz").write_bytes((files / "corpus.npz").read_bytes())
    write_manifest(folder, Basis.default(3), [{"file": "c.npz", "n": 150}], 3, 7)
    assert corpus_length(folder) == 150 and len(Corpus.load(folder)) == 150
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["shards"] = shards
    (folder / "manifest.json").write_text(json.dumps(manifest))
    readers = (Corpus.load, lambda p: list(iter_corpus(p)))
    for loader in readers if shards == [{"file": "c.npz", "n": 149}] else (*readers, corpus_length):
        _refused(folder, loader=loader)
    for text in ("[", '{"format": "superpos-corpus-shards", "version": Infinity, "shards": []}', "\xff"):
        (folder / "manifest.json").write_text(text, encoding="latin-1")
        _refused(folder, loader=corpus_length)


@given(st.lists(st.lists(st.integers(-1, 19), min_size=0, max_size=8), min_size=1, max_size=6))
@settings(max_examples=200, deadline=None)
def test_admissible_forest_agrees_with_is_admissible(trees):
    ar = Basis.default(3).arities
    off = np.r_[0, np.cumsum([len(t) for t in trees])].astype(np.int64)
    flat = np.array([c for t in trees for c in t], dtype=np.int64)
    assert admissible_forest(flat, off, ar) == all(is_admissible(t, ar) for t in trees)


# ------------------------------------------------------------------ fuzzing
_SPECIAL = [np.nan, np.inf, -np.inf, 0, 1, -1, 2, 3, 19, 10**6, -(10**6), 2**62, 1e300, -1e-300, 0.5]
_JSON = st.one_of(
    st.sampled_from([float("nan"), float("inf"), -float("inf"), 0, -1, 1, 2, 3, 10, 11, 24, 10**9, 10**30, -(2**63),
                     1e300, 0.5, True, False, None, "", "mlp", "gbt", "relu", "x1", "x100000000",
                     [], {}, [[1, 2], [3]], {"n_grid": 24}, ["add", "x1"], ["x1", "c", "x2", "add"]]),
    st.integers(), st.floats(), st.text(max_size=12), st.lists(st.integers(-3, 30), max_size=4))
_DTYPES = [np.float64, np.float32, np.int64, np.uint64, np.bool_, np.int8, "<U6", np.complex128]


@st.composite
def _array_like(draw, original):
    """A replacement for ``original``: a filled array of some shape and type, or ``original``
    with a few entries changed (the near misses that pass the shape checks)."""
    shape = original.shape
    if draw(st.booleans()) and original.size and original.dtype.kind in "biuf":
        out = original.copy().astype(np.float64 if original.dtype.kind == "f" else np.int64)
        for _ in range(draw(st.integers(1, 3))):
            k = draw(st.integers(0, out.size - 1))
            v = draw(st.sampled_from(_SPECIAL))
            if out.dtype.kind == "i":
                v = int(v) if np.isfinite(v) and abs(v) < 2**62 else -1
            out.flat[k] = v
        return out
    shapes = [shape, shape[::-1], (), (0,), (1,), (3, 2), shape + (1,), (2,) + shape,
              tuple(max(0, s + draw(st.integers(-1, 1))) for s in shape)]
    new_shape = draw(st.sampled_from(shapes))
    dtype = draw(st.sampled_from(_DTYPES))
    value = draw(st.sampled_from(_SPECIAL + ["relu", "x"]))
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return np.full(new_shape, value).astype(dtype)
        except (ValueError, OverflowError, TypeError):
            return np.zeros(new_shape, dtype=dtype)


@st.composite
def _mutated(draw, arrays, meta):
    """(arrays, header text) with one to three fields replaced or removed."""
    arrays, meta = dict(arrays), json.loads(json.dumps(meta))
    for _ in range(draw(st.sampled_from([1, 1, 2, 3]))):
        target = draw(st.sampled_from(["header", "array", "array", "drop"]))
        if target == "header":
            keys = sorted(meta) + ["features.n_grid", "features.max_variables", "basis.item", "new"]
            key = draw(st.sampled_from(keys))
            value = draw(_JSON)
            if key.startswith("features.") and isinstance(meta.get("features"), dict):
                meta["features"][key.split(".")[1]] = value
            elif key == "basis.item" and isinstance(meta.get("basis"), list) and meta["basis"]:
                meta["basis"][draw(st.integers(0, len(meta["basis"]) - 1))] = value
            else:
                meta[key] = value
        elif target == "array":
            name = draw(st.sampled_from(sorted(arrays)))
            arrays[name] = draw(_array_like(arrays[name]))
        else:
            arrays.pop(draw(st.sampled_from(sorted(arrays))), None)
    return arrays, json.dumps(meta)


def _load_or_refuse(path, loader, use):
    try:
        obj = loader(path)
    except SuperposError as exc:
        assert "\n" not in str(exc)
        return
    try:
        use(obj)
    except SuperposError:  # e.g. no proposed formula over the data's variables: still the one error
        pass


def _fuzz(source, path, load, use) -> None:
    """Hypothesis mutations of the file ``source`` written to ``path``: each is refused or used."""
    arrays, meta = _read(source)

    @given(_mutated(arrays, meta))
    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
    def run(case):
        _write(path, *case)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            _load_or_refuse(path, load, use)

    run()


@pytest.mark.parametrize("kind", ["mlp", "gbt"])
def test_fuzz_model_files(files, tmp_path_factory, kind):
    _fuzz(files / f"{kind}.npz", tmp_path_factory.mktemp(f"fuzz_{kind}") / "m.npz", StructurePredictor.load,
          lambda m: find_formula(X3, Y3, m, top_k=5, search_rounds=0))


def _use_corpus(c):
    """What the readers of a corpus rely on: admissible trees, data sets of matching lengths."""
    for t in c.trees:
        edge_contexts(t, c.basis.arities)
    for k in range(len(c)):
        X, y = c.dataset(k)
        assert X.shape[0] == y.shape[0] and 1 <= X.shape[1] <= c.basis.n_variables
    assert len(c.constants) == len(c)
    c.subset(slice(0, 3))


def test_fuzz_corpus_files(files, tmp_path_factory):
    _fuzz(files / "corpus.npz", tmp_path_factory.mktemp("fuzz_corpus") / "c.npz", Corpus.load, _use_corpus)
