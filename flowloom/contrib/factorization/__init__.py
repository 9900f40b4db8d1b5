"""`tf.contrib.factorization`: KMeans (TF1's graph builder: random initial centers, squared
Euclidean or cosine distance, full-batch or mini-batch updates). k-means++/kmc2 initial
centers and the other factorization models raise NotImplementedError naming them."""

from flowloom import variables as tf_variables
from flowloom.framework import dtypes
from flowloom.framework.graph import control_dependencies
from flowloom.framework.ops import convert_to_tensor
from flowloom.ops.array import array_ops
from flowloom.ops.checks import check_ops
from flowloom.ops.control_flow import cond as cond_lib
from flowloom.ops.control_flow import control_flow_ops
from flowloom.ops.math import math_ops, segment_ops
from flowloom.ops.nn import nn_impl
from flowloom.ops.nn.clustering_ops import nearest_neighbors
from flowloom.ops.random import random_ops
from flowloom.ops.state import state_ops

SQUARED_EUCLIDEAN_DISTANCE = "squared_euclidean"
COSINE_DISTANCE = "cosine"
RANDOM_INIT = "random"
KMEANS_PLUS_PLUS_INIT = "kmeans_plus_plus"
KMC2_INIT = "kmc2"
CLUSTERS_VAR_NAME = "clusters"


class KMeans:
    """Builds the graph of k-means clustering over `inputs`.

    Args:
      inputs: a [num_points, dims] tensor (or a list of them).
      num_clusters: the number of clusters (or initial_clusters as a tensor/array).
      initial_clusters: 'random' (points drawn uniformly, TF's op seeds), a callable
        `(inputs, num) -> centers`, or the centers themselves.
      distance_metric: 'squared_euclidean' or 'cosine'.
      use_mini_batch: mini-batch updates (running per-cluster counts) instead of full batch.
      mini_batch_steps_per_iteration: only 1 is provided.
      random_seed: the op seed of the random initialization.
    Raises:
      ValueError: an unknown initialization or distance.
      NotImplementedError: k-means++ / kmc2 initialization, mini_batch_steps_per_iteration>1.
    """

    def __init__(self, inputs, num_clusters, initial_clusters=RANDOM_INIT,
                 distance_metric=SQUARED_EUCLIDEAN_DISTANCE, use_mini_batch=False,
                 mini_batch_steps_per_iteration=1, random_seed=0, kmeans_plus_plus_num_retries=2,
                 kmc2_chain_length=200):
        if isinstance(initial_clusters, str) and initial_clusters not in [
                RANDOM_INIT, KMEANS_PLUS_PLUS_INIT, KMC2_INIT]:
            raise ValueError("Unsupported initialization algorithm '%s'" % initial_clusters)
        if initial_clusters in (KMEANS_PLUS_PLUS_INIT, KMC2_INIT):
            raise NotImplementedError("tf.contrib.factorization.KMeans with initial_clusters="
                                      "'%s'" % initial_clusters)
        if distance_metric not in [SQUARED_EUCLIDEAN_DISTANCE, COSINE_DISTANCE]:
            raise ValueError("Unsupported distance metric '%s'" % distance_metric)
        if use_mini_batch and int(mini_batch_steps_per_iteration) > 1:
            raise NotImplementedError("tf.contrib.factorization.KMeans with "
                                      "mini_batch_steps_per_iteration > 1")
        self._inputs = inputs if isinstance(inputs, list) else [inputs]
        self._num_clusters = num_clusters
        self._initial_clusters = initial_clusters
        self._distance_metric = distance_metric
        self._use_mini_batch = use_mini_batch
        # tf.contrib's KMeans gives `random_seed` to the sampler as its op seed.
        self._seed = random_seed

    def _distances(self, inputs, clusters):
        if self._distance_metric == SQUARED_EUCLIDEAN_DISTANCE:
            return [math_ops.reduce_sum(math_ops.square(inp), 1, keepdims=True) -
                    2 * math_ops.matmul(inp, clusters, transpose_b=True) +
                    array_ops.transpose(math_ops.reduce_sum(math_ops.square(clusters), 1,
                                                            keepdims=True))
                    for inp in inputs]
        return [1 - math_ops.matmul(inp, clusters, transpose_b=True) for inp in inputs]

    def _clusters_l2_normalized(self):
        return self._distance_metric == COSINE_DISTANCE and not self._use_mini_batch

    def _infer_graph(self, inputs, clusters):
        scores = self._distances(inputs, clusters)
        if self._distance_metric == COSINE_DISTANCE and not self._clusters_l2_normalized():
            clusters = nn_impl.l2_normalize(clusters, axis=1)
        output = []
        for inp, score in zip(inputs, scores):
            indices, distances = nearest_neighbors(inp, clusters, 1)
            if self._distance_metric == COSINE_DISTANCE:
                distances *= 0.5
            output.append((score, array_ops.squeeze(distances, [-1]),
                           array_ops.squeeze(indices, [-1])))
        return zip(*output)

    def training_graph(self):
        """(all_scores, cluster_idx, scores, cluster_centers_initialized, init_op,
        training_op), as TF 1.15's KMeans.training_graph."""
        if isinstance(self._initial_clusters, str) or callable(self._initial_clusters):
            num_clusters = convert_to_tensor(self._num_clusters)
        else:
            self._initial_clusters = convert_to_tensor(self._initial_clusters)
            num_clusters = array_ops.shape(self._initial_clusters)[0]
        init_value = array_ops.placeholder_with_default([], shape=None)
        centers_var = tf_variables.Variable(init_value, name=CLUSTERS_VAR_NAME,
                                            validate_shape=False)
        initialized = tf_variables.Variable(False, dtype=dtypes.bool_, name="initialized")
        total_counts = tf_variables.Variable(array_ops.ones([num_clusters], dtype=dtypes.int64)) \
            if self._use_mini_batch else None
        init_op = self._init_op(num_clusters, centers_var, initialized)
        inputs = self._inputs
        centers = centers_var
        if self._distance_metric == COSINE_DISTANCE:
            inputs = [nn_impl.l2_normalize(inp, axis=1) for inp in inputs]
            if not self._clusters_l2_normalized():
                centers = nn_impl.l2_normalize(centers, axis=1)
        all_scores, scores, cluster_idx = self._infer_graph(inputs, centers)
        if self._use_mini_batch:
            with control_dependencies([control_flow_ops.no_op()]):
                training_op = self._mini_batch_training_op(inputs, cluster_idx, centers_var,
                                                           total_counts)
        else:
            training_op = self._full_batch_training_op(inputs, num_clusters, cluster_idx,
                                                       centers_var)
        return all_scores, cluster_idx, scores, initialized, init_op, training_op

    def _init_op(self, num_clusters, centers_var, initialized):
        num_selected = array_ops.shape(centers_var)[0]
        num_remaining = num_clusters - num_selected
        num_data = math_ops.add_n([array_ops.shape(i)[0] for i in self._inputs])

        def choose():
            if callable(self._initial_clusters):
                return self._initial_clusters(self._inputs, num_remaining)
            if not isinstance(self._initial_clusters, str):
                return self._initial_clusters

            def random_centers():
                indices = random_ops.random_uniform(
                    array_ops.reshape(num_remaining, [-1]), minval=0,
                    maxval=math_ops.cast(num_data, dtypes.int64), seed=self._seed,
                    dtype=dtypes.int64)
                return array_ops.gather(array_ops.concat(self._inputs, 0), indices)
            return cond_lib.cond(num_data <= num_remaining,
                                 lambda: array_ops.concat(self._inputs, 0), random_centers)

        def initialize():
            with control_dependencies([check_ops.assert_positive(num_remaining)]):
                new_centers = choose()
                if self._distance_metric == COSINE_DISTANCE:
                    new_centers = nn_impl.l2_normalize(new_centers, axis=1)
                all_centers = cond_lib.cond(
                    math_ops.equal(num_selected, 0), lambda: new_centers,
                    lambda: array_ops.concat([centers_var, new_centers], 0))
                a = state_ops.assign(centers_var, all_centers, validate_shape=False)
                now_remaining = num_clusters - array_ops.shape(a)[0]
                return cond_lib.cond(math_ops.equal(now_remaining, 0),
                                     lambda: state_ops.assign(initialized, True),
                                     control_flow_ops.no_op)

        return cond_lib.cond(math_ops.equal(num_remaining, 0),
                             lambda: check_ops.assert_equal(initialized, True), initialize)

    def _mini_batch_training_op(self, inputs, cluster_idx_list, centers, total_counts):
        update_ops = []
        for inp, cluster_idx in zip(inputs, cluster_idx_list):
            cluster_idx = array_ops.reshape(cluster_idx, [-1])
            unique_ids, unique_idx = segment_ops.unique(cluster_idx)
            num_unique = array_ops.size(unique_ids)
            old_counts = array_ops.gather(total_counts, unique_ids)
            old_centers = array_ops.gather(centers, unique_ids)
            count_updates = segment_ops.unsorted_segment_sum(
                array_ops.ones_like(unique_idx, dtype=total_counts.dtype), unique_idx,
                num_unique)
            center_updates = segment_ops.unsorted_segment_sum(inp, unique_idx, num_unique)
            broadcast_shape = array_ops.concat([
                array_ops.reshape(num_unique, [1]),
                array_ops.ones(array_ops.reshape(array_ops.rank(inp) - 1, [1]),
                               dtype=dtypes.int32)], 0)
            center_updates -= math_ops.cast(array_ops.reshape(count_updates, broadcast_shape),
                                            inp.dtype) * old_centers
            learning_rate = math_ops.reciprocal(math_ops.cast(old_counts + count_updates,
                                                              inp.dtype))
            center_updates *= array_ops.reshape(learning_rate, broadcast_shape)
            update_ops.append(state_ops.scatter_add(total_counts, unique_ids, count_updates))
            update_ops.append(state_ops.scatter_add(centers, unique_ids, center_updates))
        return control_flow_ops.group(*update_ops)

    def _full_batch_training_op(self, inputs, num_clusters, cluster_idx_list, centers):
        epsilon = array_ops.constant(1e-6, dtype=inputs[0].dtype)
        sums = [segment_ops.unsorted_segment_sum(inp, idx, num_clusters)
                for inp, idx in zip(inputs, cluster_idx_list)]
        counts = [segment_ops.unsorted_segment_sum(
            array_ops.reshape(array_ops.ones(array_ops.reshape(array_ops.shape(inp)[0], [-1])),
                              [-1, 1]), idx, num_clusters)
            for inp, idx in zip(inputs, cluster_idx_list)]
        new_centers = math_ops.add_n(sums) / (math_ops.cast(math_ops.add_n(counts),
                                                            sums[0].dtype) + epsilon)
        if self._clusters_l2_normalized():
            new_centers = nn_impl.l2_normalize(new_centers, axis=1)
        return state_ops.assign(centers, new_centers)


class _NotProvided(NotImplementedError, AttributeError):
    pass


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise _NotProvided("tf.contrib.factorization.%s is not provided by flowloom" % name)
