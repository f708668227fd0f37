import numpy as np
import pytest

from superpos import Basis, SuperposError
from superpos.structure.corpus import Corpus, corpus_length, generate_corpus, iter_corpus, write_corpus
from superpos.structure.prior import sample_tree
from superpos.structure.features import DatasetFeatures, write_features
from superpos.core.symbolic import canonicalize
from superpos.core.tree import evaluate, is_admissible, tree_depth


@pytest.fixture(scope="module")
def basis():
    return Basis.default(n_variables=1)


@pytest.fixture(scope="module")
def corpus(basis):
    return generate_corpus(basis, 150, random_state=3, max_depth=4, max_size=10)


def test_sample_tree_is_admissible_and_bounded(basis):
    rng = np.random.default_rng(0)
    for _ in range(200):
        t = sample_tree(basis, rng, max_depth=4)
        assert is_admissible(t, basis.arities)
        assert tree_depth(t, basis.arities) <= 4


def test_corpus_trees_are_canonical_bounded_and_reproduce_the_data(basis, corpus):
    assert len(corpus) == 150
    for k, (t, c) in enumerate(zip(corpus.trees, corpus.constants)):
        assert is_admissible(t, basis.arities)
        assert t.size <= 10 and tree_depth(t, basis.arities) <= 4
        again, c2 = canonicalize(t, basis, c)
        assert np.array_equal(again, t)
        X, y = corpus.dataset(k)
        assert np.all(np.isfinite(y)) and np.std(y) > 0
        np.testing.assert_allclose(evaluate(t, basis, X, c), y, rtol=1e-9, atol=1e-9)


def test_corpus_has_no_duplicate_formula(basis, corpus):
    probe = np.linspace(-2.1, 2.7, 9)[:, None]
    prints = {tuple(np.round(evaluate(t, basis, probe, c), 5)) for t, c in zip(corpus.trees, corpus.constants)}
    assert len(prints) == len(corpus)


def test_corpus_is_reproducible_and_independent_of_jobs(basis):
    a = generate_corpus(basis, 60, random_state=11, chunk_size=25)
    b = generate_corpus(basis, 60, random_state=11, chunk_size=25, n_jobs=2)
    c = generate_corpus(basis, 60, random_state=12, chunk_size=25)
    assert np.array_equal(a.tree_flat, b.tree_flat) and np.array_equal(a.y_flat, b.y_flat)
    assert not np.array_equal(a.y_flat, c.y_flat)


def test_measured_prior_offsets_and_noise(basis):
    """offset_share: narrow ranges far from zero; noisy_share: targets off the law by SRBench
    noise (gamma <= 0.1 of rms); 0 and 0 regenerate the original prior exactly."""
    plain = generate_corpus(basis, 80, random_state=5, chunk_size=40)
    again = generate_corpus(basis, 80, random_state=5, chunk_size=40, offset_share=0.0, noisy_share=0.0)
    assert np.array_equal(plain.y_flat, again.y_flat)
    c = generate_corpus(basis, 80, random_state=5, chunk_size=40, offset_share=1.0, noisy_share=1.0)
    noisy = 0
    for k in range(len(c)):
        X, y = c.dataset(k)
        lo, hi = X.min(), X.max()
        assert 1.5 <= lo and hi <= 1.6 * 7.0 and hi / lo <= 1.6
        clean = evaluate(c.trees[k], basis, X, c.constants[k])
        rel = np.sqrt(np.mean((y - clean) ** 2) / np.mean(clean**2))
        assert rel < 0.2
        noisy += rel > 1e-4
    assert noisy >= 50  # gamma 0.001 can hide under 1e-4 on few points, not often
    with pytest.raises(SuperposError, match="noisy_share"):
        generate_corpus(basis, 10, noisy_share=1.5)


def test_corpus_save_load_round_trip(tmp_path, corpus):
    path = tmp_path / "c.npz"
    corpus.save(path)
    back = Corpus.load(path)
    assert back.basis == corpus.basis and len(back) == len(corpus)
    for name in ("tree_flat", "const_flat", "X_flat", "y_flat", "point_offsets"):
        assert np.array_equal(getattr(back, name), getattr(corpus, name))
    with np.load(path, allow_pickle=False) as z:
        assert "meta" in z.files


def test_corpus_load_refuses_foreign_file(tmp_path):
    p = tmp_path / "x.npz"
    np.savez(p, a=np.arange(3))
    with pytest.raises(SuperposError):
        Corpus.load(p)
    with pytest.raises(SuperposError):
        Corpus.load(tmp_path / "missing.npz")


_FIELDS = ("tree_flat", "tree_offsets", "const_flat", "const_offsets", "X_flat", "y_flat", "point_offsets")


def test_streamed_corpus_equals_the_in_memory_one(basis, tmp_path):
    ref = generate_corpus(basis, 400, random_state=5, max_depth=4, n_points=30, chunk_size=50)
    seen = []
    folder = write_corpus(tmp_path / "c", basis, 400, random_state=5, max_depth=4, n_points=30, chunk_size=50,
                          shard_size=100, progress=lambda d, n: seen.append((d, n)))
    shards = list(iter_corpus(folder))
    assert len(shards) >= 2 and sum(len(s) for s in shards) == 400 == corpus_length(folder)
    assert seen[-1] == (400, 400) and [d for d, _ in seen] == sorted(d for d, _ in seen)
    joined = Corpus.load(folder)
    for f in _FIELDS:
        np.testing.assert_array_equal(getattr(joined, f), getattr(ref, f))
    feats = DatasetFeatures(max_variables=1)
    phi = write_features(folder, tmp_path / "phi.npy", feats)
    np.testing.assert_array_equal(phi, feats.transform(ref))


def test_write_corpus_keeps_existing_files_and_needs_a_manifest(basis, tmp_path):
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "mine.txt").write_text("keep")
    with pytest.raises(SuperposError, match="not an empty folder"):
        write_corpus(tmp_path / "old", basis, 10)
    assert (tmp_path / "old" / "mine.txt").read_text() == "keep"
    (tmp_path / "half").mkdir()
    with pytest.raises(SuperposError, match="manifest"):
        Corpus.load(tmp_path / "half")


def test_multivariable_corpus(tmp_path):
    b = Basis.default(n_variables=3)
    c = generate_corpus(b, 60, random_state=0, n_variables=(1, 3))
    widths = {c.dataset(k)[0].shape[1] for k in range(len(c))}
    assert widths == {1, 2, 3}
    for k in range(len(c)):
        X, _ = c.dataset(k)
        used = {b.functions[i].index for i in c.trees[k] if b.functions[i].kind == "variable"}
        assert max(used) < X.shape[1]
    c.save(tmp_path / "m.npz")
    back = Corpus.load(tmp_path / "m.npz")
    assert [back.dataset(k)[0].shape for k in range(len(c))] == [c.dataset(k)[0].shape for k in range(len(c))]
    assert c.subset(slice(0, 10)).dataset(3)[0].shape == c.dataset(3)[0].shape


@pytest.mark.parametrize("n", [5, 20, 300])
@pytest.mark.parametrize("m", [1, 2, 3])
def test_features_fixed_length_and_row_order_invariant(n, m):
    rng = np.random.default_rng(n + m)
    X = rng.uniform(-2, 3, size=(n, m))
    y = np.sin(X[:, 0]) + X[:, -1] ** 2
    f = DatasetFeatures().fit()
    v = f.transform([(X, y)])[0]
    perm = rng.permutation(n)
    w = f.transform([(X[perm], y[perm])])[0]
    assert v.shape == (f.n_features_out_,) == (len(f.get_feature_names_out()),)
    assert np.all(np.isfinite(v))
    np.testing.assert_allclose(v, w, rtol=1e-6, atol=1e-8)  # summation order only


def test_features_distinguish_formulas():
    x = np.linspace(-2, 2, 50)[:, None]
    f = DatasetFeatures().fit()
    a, b = f.transform([(x, np.sin(x[:, 0])), (x, x[:, 0] ** 2)])
    assert np.linalg.norm(a - b) > 1.0


@pytest.mark.parametrize("X,y", [
    (np.ones((4, 1)), np.arange(4.0)),
    (np.ones((6, 1)), np.array([1, 2, np.nan, 4, 5, 6.0])),
    (np.ones((6, 1)), np.arange(5.0)),
    (np.ones((6, 4)), np.arange(6.0)),
])
def test_features_reject_bad_data(X, y):
    with pytest.raises(SuperposError):
        DatasetFeatures().fit().transform([(X, y)])


def test_runaway_call_is_capped():
    """The corpus rejects a draw whose canonical form runs away (a stalled corpus, before);
    the cap raises in the main thread and is off elsewhere."""
    import threading
    import time

    from superpos.core.timecap import CapExceeded, capped

    def spin():
        end = time.perf_counter() + 5.0
        while time.perf_counter() < end:
            pass
        return "finished"

    t0 = time.perf_counter()
    with pytest.raises(CapExceeded):
        capped(spin, 0.2)
    assert time.perf_counter() - t0 < 2.0
    assert capped(lambda: 3, 0.2) == 3
    out = []
    th = threading.Thread(target=lambda: out.append(capped(lambda: "uncapped", 0.01)))
    th.start()
    th.join()
    assert out == ["uncapped"]
