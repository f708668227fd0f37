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
