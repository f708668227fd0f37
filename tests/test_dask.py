"""The same calls on a dask cluster through joblib give the single-process results."""
import numpy as np
import pytest

distributed = pytest.importorskip("distributed", reason="the dask extra is not installed")

from joblib import parallel_config  # noqa: E402

from superpos import Basis, DatasetFeatures, generate_corpus  # noqa: E402


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=40)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def test_corpus_and_features_on_a_local_cluster_equal_single_process(client):
    basis = Basis.default(n_variables=1)
    local = generate_corpus(basis, 120, random_state=5, chunk_size=30)
    with parallel_config(backend="dask"):
        remote = generate_corpus(basis, 120, random_state=5, chunk_size=30, n_jobs=2)
    assert np.array_equal(local.tree_flat, remote.tree_flat)
    assert np.array_equal(local.y_flat, remote.y_flat)
    datasets = local.datasets * 20  # over the 2,000-set threshold at which features go parallel
    single = DatasetFeatures().fit().transform(datasets)
    with parallel_config(backend="dask"):
        multi = DatasetFeatures(n_jobs=2).fit().transform(datasets)
    np.testing.assert_allclose(single, multi, rtol=0, atol=0)


def test_batch_prediction_on_a_local_cluster_equals_single_process(client, tmp_path):
    import json

    from typer.testing import CliRunner

    from superpos.cli import app

    x = np.linspace(0.5, 3, 30)
    for k, scale in enumerate((1.5, 2.5, 3.5)):
        (tmp_path / f"d{k}.csv").write_text("x1,y\n" + "".join(f"{a},{scale * np.sin(a)}\n" for a in x))
    args = ["predict", str(tmp_path), "--top-k", "10", "--search", "0", "--quiet"]
    runner = CliRunner()
    assert runner.invoke(app, args + ["-o", str(tmp_path / "local.jsonl")]).exit_code == 0
    with parallel_config(backend="dask"):
        r = runner.invoke(app, args + ["-o", str(tmp_path / "remote.jsonl"), "--jobs", "2"])
    assert r.exit_code == 0, r.output

    def rows(name):
        return [(d["file"], d["formula"], d["r2"]) for d in map(json.loads, (tmp_path / name).read_text().splitlines())]

    assert rows("local.jsonl") == rows("remote.jsonl") and len(rows("local.jsonl")) == 3
