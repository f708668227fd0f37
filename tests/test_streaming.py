"""Streamed training from shards: the perceptron's gradients, resuming from a checkpoint."""
from __future__ import annotations

import numpy as np
import pytest

from superpos import Basis, StructurePredictor, SuperposError
from superpos.structure.corpus import write_corpus
from superpos.structure.features import DatasetFeatures
from superpos.structure.streaming import StreamedMLP, fit_streamed


def test_gradients_match_finite_differences():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 5))
    y = rng.choice([0, 2, 3], 12)
    net = StreamedMLP([0, 1, 2, 3], X.mean(axis=0), X.std(axis=0), hidden=(7, 6), alpha=0.1, random_state=1)
    net.params = [p.astype(np.float64) for p in net.params]
    _, grads = net.loss_and_gradients(X, y)
    for k, p in enumerate(net.params):
        for idx in [(0,) * p.ndim, tuple(s - 1 for s in p.shape)]:
            old = p[idx]
            p[idx] = old + 1e-6
            up, _ = net.loss_and_gradients(X, y)
            p[idx] = old - 1e-6
            down, _ = net.loss_and_gradients(X, y)
            p[idx] = old
            assert abs((up - down) / 2e-6 - grads[k][idx]) < 1e-5


def test_adam_steps_lower_the_loss():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(300, 4))
    y = (X[:, 0] + X[:, 1] > 0).astype(int) * 2
    net = StreamedMLP([0, 1, 2], X.mean(axis=0), X.std(axis=0), hidden=(16, 8), learning_rate=1e-2, random_state=0)
    first = net.step(X, y)
    for _ in range(100):
        last = net.step(X, y)
    assert last < 0.5 * first


@pytest.fixture(scope="module")
def shards(tmp_path_factory):
    basis = Basis.default(1)
    return write_corpus(tmp_path_factory.mktemp("c") / "c", basis, 300, shard_size=100, random_state=3, max_depth=4,
                        n_points=30, chunk_size=50)


def _predictor():
    return StructurePredictor(random_state=0, size_bonus=0.0, features=DatasetFeatures(max_variables=1))


def test_resumed_training_ends_where_an_uninterrupted_one_does(shards, tmp_path):
    whole = fit_streamed(_predictor(), shards, epochs=2, batch_size=64, checkpoint=tmp_path / "a.npz", held_out=20)
    ckpt = tmp_path / "b.npz"
    part = fit_streamed(_predictor(), shards, epochs=2, batch_size=64, checkpoint=ckpt, held_out=20, max_shards=3)
    assert not hasattr(part, "classifier_") and ckpt.exists()  # stopped after 3 of 4 shard passes (2 shards, 2 epochs)
    resumed = fit_streamed(_predictor(), shards, epochs=2, batch_size=64, checkpoint=ckpt, held_out=20)
    for a, b in zip(whole.classifier_.weights, resumed.classifier_.weights):
        np.testing.assert_array_equal(a, b)
    assert resumed.n_edges_ == whole.n_edges_ > 0
    resumed.save(tmp_path / "m.npz")
    model = StructurePredictor.load(tmp_path / "m.npz")
    X = np.linspace(-2, 2, 40)[:, None]
    assert model.predict_trees([(X, np.sin(X[:, 0]))], k=3)[0]
    with pytest.raises(SuperposError, match="another training run"):
        fit_streamed(_predictor(), shards, epochs=3, checkpoint=ckpt, held_out=20)


def test_streamed_training_refuses_what_it_cannot_do(shards, tmp_path):
    with pytest.raises(SuperposError, match="shard folder"):
        fit_streamed(_predictor(), tmp_path / "x.npz")
    with pytest.raises(SuperposError, match="classifier=None"):
        fit_streamed(StructurePredictor(classifier=object()), shards)


def test_command_line_stops_and_resumes(shards, tmp_path):
    from typer.testing import CliRunner

    from superpos.cli import app

    runner = CliRunner()
    args = ["fit", str(shards), str(tmp_path / "m.npz"), "--stream", "--epochs", "1", "--checkpoint",
            str(tmp_path / "c.npz"), "--quiet"]
    r = runner.invoke(app, args + ["--max-shards", "1"])
    assert r.exit_code == 0 and "resume" in r.output and not (tmp_path / "m.npz").exists()
    r = runner.invoke(app, args)
    assert r.exit_code == 0 and StructurePredictor.load(tmp_path / "m.npz").n_features_phi_ > 0
    r = runner.invoke(app, ["fit", str(tmp_path / "m.npz"), str(tmp_path / "n.npz"), "--stream"])
    assert r.exit_code == 2 and "shard folder" in r.output
