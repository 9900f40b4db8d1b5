"""tf.contrib.factorization.KMeans: TF 1.15's graph interface (six outputs, init op, train op)
clustering separated blobs, and the NotImplementedError of what is not provided. (flowloom's
initial centers are not TF's yet: see /work/notes/contrib.md.)"""

import numpy as np
import pytest

import flowloom as tf


def _blobs():
    rs = np.random.RandomState(0)
    centers = ([0, 0, 3], [3, 0, 0], [0, 3, 0])
    return np.concatenate([rs.normal(0, 0.3, (20, 3)) + c for c in centers]).astype(np.float32)


@pytest.mark.parametrize("metric,mini", [("cosine", True), ("squared_euclidean", False),
                                         ("squared_euclidean", True), ("cosine", False)])
def test_kmeans_clusters_separated_blobs(metric, mini):
    data = _blobs()
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [None, 3])
    km = tf.contrib.factorization.KMeans(inputs=x, num_clusters=3, distance_metric=metric,
                                         use_mini_batch=mini)
    graph = km.training_graph()
    assert len(graph) == 6
    all_scores, cluster_idx, scores, initialized, init_op, train_op = graph
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer(), {x: data})
        assert not sess.run(initialized)
        sess.run(init_op, {x: data})
        assert sess.run(initialized)
        for _ in range(5):
            _, idx, dist, every = sess.run([train_op, cluster_idx[0], scores[0],
                                            all_scores[0]], {x: data})
    assert every.shape == (60, 3) and dist.shape == (60,)
    # cosine: half the squared distance of unit vectors, which is 1 - cos (the scores).
    np.testing.assert_allclose(dist, every.min(axis=1), rtol=1e-4, atol=1e-4)
    # Each blob ends in one cluster of its own.
    assert sorted(len(set(idx[i * 20:(i + 1) * 20])) for i in range(3)) == [1, 1, 1]
    assert len(set(idx)) == 3


def test_kmeans_not_provided_parts_are_named():
    x = tf.zeros([4, 2])
    with pytest.raises(NotImplementedError, match="kmeans_plus_plus"):
        tf.contrib.factorization.KMeans(x, 2, initial_clusters="kmeans_plus_plus")
    with pytest.raises(ValueError, match="Unsupported distance metric"):
        tf.contrib.factorization.KMeans(x, 2, distance_metric="manhattan")
    with pytest.raises(NotImplementedError, match="tf.contrib.factorization.WALSModel"):
        tf.contrib.factorization.WALSModel  # noqa: B018
