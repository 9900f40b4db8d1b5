"""EditDistance: Levenshtein distances between the sequences of two SparseTensors."""

import numpy as np

from flowloom.framework import errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.op_def import defop
from flowloom.framework.tensor_shape import unknown_shape
from flowloom.framework.tensor_util import constant_value

EditDistance = defop(
    "EditDistance",
    inputs=["hypothesis_indices: int64", "hypothesis_values: T", "hypothesis_shape: int64",
            "truth_indices: int64", "truth_values: T", "truth_shape: int64"],
    outputs=["output: float32"], attrs={"normalize": True})


@EditDistance.shape
def _(op):
    hs, ts = constant_value(op._inputs[2]), constant_value(op._inputs[5])
    if hs is None or ts is None:
        rank = op._inputs[2]._shape.as_list()[0] if op._inputs[2]._shape.ndims else None
        return unknown_shape(None if rank is None else rank - 1)
    return [int(max(a, b)) for a, b in zip(hs[:-1], ts[:-1])]


def _levenshtein(s, t):
    if not len(s):
        return len(t)
    if not len(t):
        return len(s)
    prev = list(range(len(t) + 1))
    for i, a in enumerate(s, 1):
        cur = [i] + [0] * len(t)
        for j, b in enumerate(t, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a != b))
        prev = cur
    return prev[-1]


def _groups(indices, values):
    groups = {}
    for idx, v in zip(indices.tolist(), values.tolist()):
        groups.setdefault(tuple(idx[:-1]), []).append(v)
    return groups


@EditDistance.kernel
def _(xp, h_idx, h_val, h_shape, t_idx, t_val, t_shape, *, normalize):
    if h_shape.size != t_shape.size or h_idx.shape[1:] != (h_shape.size,) or \
            t_idx.shape[1:] != (t_shape.size,):
        raise errors.InvalidArgumentError(
            None, None, "hypothesis and truth must have matching ranks: "
            f"{h_shape.size} vs. {t_shape.size}")
    out_shape = [int(max(a, b)) for a, b in zip(h_shape[:-1], t_shape[:-1])]
    out = np.zeros(out_shape, np.float32)
    hyp, truth = _groups(h_idx, h_val), _groups(t_idx, t_val)
    for key in set(hyp) | set(truth):
        h, t = hyp.get(key, []), truth.get(key, [])
        if key in hyp and key in truth:
            d = float(_levenshtein(t, h))
            out[key] = d / len(t) if normalize else d
        elif key in hyp:  # no truth sequence
            out[key] = np.inf if normalize and len(h) else len(h)
        else:  # no hypothesis sequence
            out[key] = 1.0 if normalize else len(t)
    return out


EditDistance.no_gradient()


def edit_distance(hypothesis, truth, normalize=True, name="edit_distance"):
    """Levenshtein distances between the sequences (the last dimension) of two SparseTensors,
    normalized by the truth's lengths unless `normalize` is False.

    Returns:
      A float32 tensor with the shape of the inputs' leading dimensions.
    """
    from flowloom.framework.sparse_tensor import SparseTensor, SparseTensorValue

    if not isinstance(hypothesis, (SparseTensor, SparseTensorValue)):
        raise TypeError("Hypothesis must be a SparseTensor.")
    if not isinstance(truth, (SparseTensor, SparseTensorValue)):
        raise TypeError("Truth must be a SparseTensor.")
    return apply_op("EditDistance", (hypothesis.indices, hypothesis.values,
                                     hypothesis.dense_shape, truth.indices, truth.values,
                                     truth.dense_shape), name=name,
                    normalize=normalize).outputs[0]


