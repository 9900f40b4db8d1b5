"""tf.contrib.factorization.KMeans against TF 1.15 (tests/contrib/cases.py, recorded by
tests/data/record_contrib.py): the same random initial centers, the same centers, assignments
and distances after five steps; and the NotImplementedError of what is not provided."""

import gzip
import json
import os

import numpy as np
import pytest

import flowloom as tf
from tests.contrib import cases

DATA = os.path.join(os.path.dirname(__file__), "..", "data")
VALUES = np.load(os.path.join(DATA, "contrib_tf.npz"), allow_pickle=False)
with gzip.open(os.path.join(DATA, "contrib_tf.json.gz"), "rt") as _f:
    META = json.load(_f)


def test_kmeans_follows_tf_from_its_initial_centers():
    g = tf.Graph()
    with g.as_default():
        facts, arrays = cases.CASES["kmeans"](tf)
    assert facts == META["cases"]["kmeans"]
    for key, value in arrays.items():
        if "_mini/" in key and not key.endswith("/initial"):
            # TF's mini-batch step reads the counts while its own scatter_add updates them
            # (no dependency between the two), so TF itself differs from run to run there.
            continue
        want = VALUES["kmeans/" + key]
        if value.dtype.kind in "iu":
            np.testing.assert_array_equal(value, want, err_msg=key)
        else:
            np.testing.assert_allclose(value, want, rtol=1e-4, atol=1e-5, err_msg=key)


def test_kmeans_not_provided_parts_are_named():
    x = tf.zeros([4, 2])
    with pytest.raises(NotImplementedError, match="kmeans_plus_plus"):
        tf.contrib.factorization.KMeans(x, 2, initial_clusters="kmeans_plus_plus")
    with pytest.raises(ValueError, match="Unsupported distance metric"):
        tf.contrib.factorization.KMeans(x, 2, distance_metric="manhattan")
    with pytest.raises(NotImplementedError, match="tf.contrib.factorization.WALSModel"):
        tf.contrib.factorization.WALSModel  # noqa: B018
