"""Op ParseExample, TF 1.x's form of ParseExampleV2 (what TF 1.15's `tf.parse_example` puts in
a graph, so the SavedModels of TF 1.x Estimators' parsing receivers import): the keys are lists
of scalar string inputs instead of two vectors, and there are no ragged features. The kernel
and shapes are ParseExampleV2's."""

import numpy as np

from flowloom.framework.op_def import NotDifferentiable, defop, get

ParseExample = defop(
    "ParseExample",
    inputs=["serialized: string", "names: string", "sparse_keys: Nsparse * string",
            "dense_keys: Ndense * string", "dense_defaults: list(Tdense)"],
    outputs=["sparse_indices: Nsparse * int64", "sparse_values: list(sparse_types)",
             "sparse_shapes: Nsparse * int64", "dense_values: list(Tdense)"],
    # No defaults (None): TF's op has none, so strip_default_attrs must keep them all.
    attrs={"Nsparse": None, "Ndense": None, "sparse_types": None, "dense_shapes": None})
NotDifferentiable("ParseExample")


class _AsV2:
    """The op seen through ParseExampleV2's shape function (num_sparse for Nsparse)."""

    def __init__(self, op):
        self._op = op
        self.inputs = op.inputs

    def get_attr(self, name):
        return self._op._attrs["Nsparse" if name == "num_sparse" else name]


@ParseExample.shape
def _(op):
    return get("ParseExampleV2").shape_fn(_AsV2(op))


# The key vectors made from one op's key inputs (scalars), by the keys' values: the same
# vectors each run, so ParseExampleV2's kernel finds its plan for them by identity.
_KEY_VECTORS = {}


def _key_vectors(keys, Nsparse):
    values = None
    if all(isinstance(k, np.ndarray) and k.ndim == 0 for k in keys):
        values = (Nsparse,) + tuple(k.item() for k in keys)
        hit = _KEY_VECTORS.get(values)
        if hit is not None:
            return hit
    sparse_keys = np.array([np.asarray(k, dtype=object)[()] for k in keys[:Nsparse]],
                           dtype=object)
    dense_keys = np.array([np.asarray(k, dtype=object)[()] for k in keys[Nsparse:]],
                          dtype=object)
    vectors = (sparse_keys, dense_keys, np.zeros(0, dtype=object))
    if values is not None:
        if len(_KEY_VECTORS) > 1024:
            _KEY_VECTORS.clear()
        _KEY_VECTORS[values] = vectors
    return vectors


_V2_KERNEL = []  # ParseExampleV2's kernel, found at the first run


def _v2_kernel():
    if not _V2_KERNEL:
        _V2_KERNEL.append(get("ParseExampleV2").kernel_fn)
    return _V2_KERNEL[0]


@ParseExample.kernel
def _(xp, serialized, names, *rest, Nsparse, Ndense, sparse_types, dense_shapes, Tdense):
    sparse_keys, dense_keys, ragged_keys = _key_vectors(rest[:Nsparse + Ndense], Nsparse)
    defaults = rest[Nsparse + Ndense:]
    return _v2_kernel()(
        xp, serialized, names, sparse_keys, dense_keys, ragged_keys, *defaults,
        num_sparse=Nsparse, sparse_types=sparse_types, dense_shapes=dense_shapes, Tdense=Tdense)
