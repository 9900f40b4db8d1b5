"""ReverseSequence: reverses the first `seq_lengths[b]` steps of each batch entry."""

import numpy as np

from flowloom.framework import dtypes, errors, tensor_shape
from flowloom.framework.apply_op import apply_op
from flowloom.framework.op_def import defop

ReverseSequence = defop(
    "ReverseSequence", inputs=["input: T", "seq_lengths: Tlen"], outputs=["output: T"],
    attrs={"seq_dim": None, "batch_dim": 0, "Tlen": dtypes.int64})


def _check_dims(rank, seq_dim, batch_dim, err):
    if not 0 <= seq_dim < rank:
        raise err(f"seq_dim must be < input rank: {seq_dim} vs. {rank}")
    if not 0 <= batch_dim < rank:
        raise err(f"batch_dim must be < input rank: {batch_dim} vs. {rank}")


@ReverseSequence.shape
def _(op):
    x, lengths = (t._shape for t in op._inputs)
    seq_dim, batch_dim = op._attrs["seq_dim"], op._attrs["batch_dim"]
    lengths = lengths.with_rank(1)
    if x.ndims is None:
        return tensor_shape.unknown_shape()
    _check_dims(x.ndims, seq_dim, batch_dim, ValueError)
    batch = tensor_shape.Dimension(x[batch_dim].value)
    try:
        batch = batch.merge_with(lengths[0])
    except ValueError:
        raise ValueError(f"Dimensions must be equal, but are {x[batch_dim].value} and "
                         f"{lengths[0].value}") from None
    dims = x.as_list()
    dims[batch_dim] = batch.value
    return tensor_shape.TensorShape(dims)


@ReverseSequence.kernel
def _(xp, x, seq_lengths, *, seq_dim, batch_dim, Tlen):
    def err(msg):
        return errors.InvalidArgumentError(None, None, msg)

    _check_dims(x.ndim, seq_dim, batch_dim, err)
    if batch_dim == seq_dim:
        raise err(f"batch_dim == seq_dim == {seq_dim}")
    if seq_lengths.ndim != 1:
        raise err(f"seq_lens input must be 1-dim, not {seq_lengths.ndim}")
    if seq_lengths.size != x.shape[batch_dim]:
        raise err(f"Length of seq_lengths != input.dims({batch_dim}), ({seq_lengths.size} vs. "
                  f"{x.shape[batch_dim]})")
    for d, n in enumerate(seq_lengths):
        if n < 0:
            raise err(f"seq_lens({d}) < 0")
        if n > x.shape[seq_dim]:
            raise err(f"seq_lens({d}) > input.dims({seq_dim})")
    # One gather along seq_dim per batch entry: index t -> n-1-t for t < n, else t.
    steps = x.shape[seq_dim]
    t = np.arange(steps)
    n = np.asarray(seq_lengths, dtype=np.int64)[:, None]
    src = np.where(t[None, :] < n, n - 1 - t[None, :], t[None, :])   # [batch, steps]
    shape = [1] * x.ndim
    shape[batch_dim] = src.shape[0]
    shape[seq_dim] = steps
    order = sorted([batch_dim, seq_dim])
    idx = src if order == [batch_dim, seq_dim] else src.T
    return np.take_along_axis(x, idx.reshape(shape), axis=seq_dim)


@ReverseSequence.gradient
def _(op, grad):
    return [reverse_sequence(grad, op._inputs[1], seq_axis=op._attrs["seq_dim"],
                             batch_axis=op._attrs["batch_dim"]), None]


def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None, name=None,
                     seq_dim=None, batch_dim=None):
    """Reverses variable-length slices: for each `b`, the first `seq_lengths[b]` entries of
    `input` along `seq_axis` are reversed, the rest are kept.

    Args:
      input: the tensor to reverse.
      seq_lengths: a 1-D int32/int64 tensor of length `input.shape[batch_axis]`.
      seq_axis: the dimension that is partially reversed (`seq_dim` is its old name).
      batch_axis: the dimension along which the lengths vary (default 0).
      name: the op name.

    Returns:
      A tensor like `input`.

    Raises:
      ValueError: the axes are out of range or equal, or the lengths do not match.
    """
    if seq_axis is not None and seq_dim is not None:
        raise ValueError("Cannot specify both 'seq_axis' and 'seq_dim'")
    if batch_axis is not None and batch_dim is not None:
        raise ValueError("Cannot specify both 'batch_axis' and 'batch_dim'")
    seq_axis = seq_dim if seq_axis is None else seq_axis
    batch_axis = batch_dim if batch_axis is None else batch_axis
    if batch_axis is None:
        batch_axis = 0
    return apply_op("ReverseSequence", (input, seq_lengths), name=name, seq_dim=int(seq_axis),
                    batch_dim=int(batch_axis)).outputs[0]
