"""Bucketize: the index of the bucket each value falls in, for sorted float boundaries."""

import numpy as np

from flowloom.framework.apply_op import apply_op
from flowloom.framework.op_def import defop

Bucketize = defop("Bucketize", inputs=["input: T"], outputs=["output: int32"],
                  attrs={"boundaries": None})
Bucketize.shape(lambda op: [op._inputs[0]._shape])
Bucketize.no_gradient()


@Bucketize.kernel
def _(xp, values, *, boundaries):
    # Bucket i holds boundaries[i-1] <= v < boundaries[i]: the count of boundaries <= v.
    edges = np.asarray(boundaries, dtype=np.float64)
    return np.searchsorted(edges, np.asarray(values, dtype=np.float64),
                           side="right").astype(np.int32)


def bucketize(input, boundaries, name=None):  # noqa: A002 - TF's argument name
    """Buckets `input` by sorted `boundaries`: value v goes to the number of boundaries <= v.

    Raises:
      ValueError: if boundaries are not sorted.
    """
    boundaries = [float(b) for b in boundaries]
    if any(a > b for a, b in zip(boundaries, boundaries[1:])):
        raise ValueError(f"Expected sorted boundaries, got {boundaries}")
    return apply_op("Bucketize", (input,), name=name, boundaries=boundaries).outputs[0]
