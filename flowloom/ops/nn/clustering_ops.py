"""NearestNeighbors: the k nearest centers of each point by squared Euclidean distance, as
TF's clustering op (used by tf.contrib.factorization.KMeans)."""

import numpy as np

from flowloom.framework import dtypes, errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.op_def import defop
from flowloom.framework.ops import convert_to_tensor

NearestNeighbors = defop("NearestNeighbors", inputs=["points: float32", "centers: float32",
                                                     "k: int64"],
                         outputs=["nearest_center_indices: int64",
                                  "nearest_center_distances: float32"])
NearestNeighbors.no_gradient()


@NearestNeighbors.shape
def _(op):
    from flowloom.framework import tensor_shape

    points = op._inputs[0]._shape
    n = points[0].value if points.ndims else None
    return [tensor_shape.TensorShape([n, None])] * 2


@NearestNeighbors.kernel
def _(xp, points, centers, k):
    if points.ndim != 2 or centers.ndim != 2:
        raise errors.InvalidArgumentError(None, None, "Input points and centers should be "
                                          "matrices.")
    if points.shape[1] != centers.shape[1]:
        raise errors.InvalidArgumentError(None, None, "Expected points.dim_size(1) == "
                                          "centers.dim_size(1)")
    k = min(int(k), centers.shape[0])
    sq = (np.sum(points.astype(np.float64) ** 2, 1, keepdims=True) -
          2 * points.astype(np.float64) @ centers.astype(np.float64).T +
          np.sum(centers.astype(np.float64) ** 2, 1)[None, :])
    order = np.argsort(sq, axis=1, kind="stable")[:, :k]
    dist = np.take_along_axis(sq, order, 1)
    return order.astype(np.int64), np.maximum(dist, 0).astype(np.float32)


def nearest_neighbors(points, centers, k, name=None):
    """(indices, squared distances) of the `k` nearest centers of each point."""
    return tuple(apply_op("NearestNeighbors", (points, centers,
                                               convert_to_tensor(k, dtype=dtypes.int64)),
                          name=name).outputs)

