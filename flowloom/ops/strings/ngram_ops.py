"""StringNGrams (`tf.strings.ngrams`): the n-grams of each row of strings.

A row of length L padded with p values each side has L + 2p - n + 1 n-grams (none if that is
not positive), where p is `pad_width` but at most n - 1 (n - 1 when `pad_width` is -1); the
widths are taken in the order given. An empty row has none. `preserve_short_sequences`
gives a non-empty row that would have none one n-gram: the whole row, padded `pad_width`
each side. TF 1.15 takes a RaggedTensor or a dense Tensor; flowloom, without RaggedTensor,
takes the dense form, whose rows are its last axis.
"""

import numpy as np

from flowloom.framework import dtypes, errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework.op_def import NotDifferentiable, defop
from flowloom.framework.ops import convert_to_tensor
from flowloom.framework.tensor_shape import TensorShape

StringNGrams = defop(
    "StringNGrams", inputs=["data: string", "data_splits: Tsplits"],
    outputs=["ngrams: string", "ngrams_splits: Tsplits"],
    attrs={"separator": None, "ngram_widths": None, "left_pad": None, "right_pad": None,
           "pad_width": None, "preserve_short_sequences": None, "Tsplits": dtypes.int64},
    allowed_types={"Tsplits": (dtypes.int32, dtypes.int64)})
NotDifferentiable("StringNGrams")


@StringNGrams.shape
def _(op):
    splits = op._inputs[1]._shape
    return [TensorShape([None]), splits if splits.ndims == 1 else TensorShape([None])]


_MAX_PIECES = 1 << 28


def _as_bytes(value):
    return value if isinstance(value, bytes) else str(value).encode("utf-8")


def _row_ngrams(row, widths, sep, left, right, pad_width, preserve_short):
    out = []
    for n in widths:
        p = n - 1 if pad_width < 0 else min(pad_width, n - 1)
        padded = [left] * p + row + [right] * p
        out += [sep.join(padded[i:i + n]) for i in range(len(padded) - n + 1)]
    if not out and preserve_short:
        p = max(pad_width, 0)
        out.append(sep.join([left] * p + row + [right] * p))
    return out


@StringNGrams.kernel
def _(xp, data, splits, *, separator, ngram_widths, left_pad, right_pad, pad_width,
      preserve_short_sequences, Tsplits):
    data, splits = np.asarray(data, dtype=object).reshape(-1), np.asarray(splits).reshape(-1)
    if splits.size == 0 or splits[0] != 0 or (np.diff(splits) < 0).any() or \
            splits[-1] != data.size:
        raise errors.InvalidArgumentError(
            None, None, f"Invalid data_splits {splits.tolist()[:10]} for {data.size} strings")
    sep, left, right = _as_bytes(separator), _as_bytes(left_pad), _as_bytes(right_pad)
    lengths = np.diff(splits).tolist()
    # Widths and pad widths are attrs a GraphDef sets: bound the output before building it.
    pieces = sum(n * max(0, m + 2 * (n - 1 if pad_width < 0 else min(pad_width, n - 1)) - n + 1)
                 for m in lengths if m for n in ngram_widths)
    if pieces > _MAX_PIECES:
        raise errors.ResourceExhaustedError(
            None, None, f"StringNGrams would join {pieces} strings (more than {_MAX_PIECES})")
    values, out_splits = [], [0]
    for start, end in zip(splits[:-1].tolist(), splits[1:].tolist()):
        if end > start:
            row = [_as_bytes(s) for s in data[start:end]]
            values += _row_ngrams(row, ngram_widths, sep, left, right, pad_width,
                                  preserve_short_sequences)
        out_splits.append(len(values))
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out, np.array(out_splits, dtype=Tsplits.as_numpy_dtype)


def ngrams(data, ngram_width, separator=" ", pad_values=None, padding_width=None,
           preserve_short_sequences=False, name=None):
    """The n-grams of each row (the last axis) of the dense string `Tensor` `data`.

    Args:
      data: a string `Tensor` of rank >= 1 (TF also takes a RaggedTensor; flowloom has none).
      ngram_width: an int > 0, or a list of them: the n-gram sizes, in output order.
      separator: the string between the strings of an n-gram.
      pad_values: None (no padding), a string for both sides, or a (left, right) pair.
      padding_width: how many pad values each side (at most ngram_width - 1; default
        ngram_width - 1 when `pad_values` is given).
      preserve_short_sequences: give each non-empty row at least one n-gram.
      name: a name for the ops.

    Returns:
      A string `Tensor` of `data`'s shape with the last axis replaced by the n-grams (every
      row of a dense input has the same count).

    Example:
      tf.strings.ngrams(["a", "b", "c"], 2)  # [b"a b", b"b c"]
    """
    from flowloom.ops.array.array_ops import concat, reshape, shape
    from flowloom.ops.math.math_ops import cast, range_
    from flowloom.ops.math.reduction_ops import reduce_prod

    with name_scope(name, "StringNGrams", [data]):
        if pad_values is None:
            left = right = ""
        elif isinstance(pad_values, (list, tuple)):
            if not all(isinstance(v, (str, bytes)) for v in pad_values[:2]):
                raise TypeError("pad_values must be a string, tuple of strings, or None.")
            left, right = pad_values[0], pad_values[1]
        elif isinstance(pad_values, (str, bytes)):
            left = right = pad_values
        else:
            raise TypeError("pad_values must be a string, tuple of strings, or None.")
        if padding_width is not None and padding_width < 1:
            raise ValueError("padding_width must be greater than 0.")
        if padding_width is not None and pad_values is None:
            raise ValueError("pad_values must be provided if padding_width is set.")
        data = convert_to_tensor(data, name="data", dtype=dtypes.string)
        rank = data._shape.ndims
        if rank is None:
            raise ValueError("Rank of data must be known.")
        if rank == 0:
            raise ValueError("Data must have rank>0")
        pad = 0 if pad_values is None else (-1 if padding_width is None else padding_width)
        widths = list(ngram_width) if isinstance(ngram_width, (list, tuple)) else [ngram_width]
        for width in widths:
            if width < 1:
                raise ValueError(f"All ngram_widths must be greater than 0. Got {ngram_width}")
        dims = data._shape.as_list()
        width = dims[-1] if dims[-1] is not None else shape(data)[-1]
        rows = int(np.prod(dims[:-1])) if None not in dims[:-1] else reduce_prod(
            shape(data)[:-1])
        splits = cast(range_(rows + 1) * width, dtypes.int64)
        out = apply_op("StringNGrams", (reshape(data, [-1]), splits), separator=separator,
                       ngram_widths=widths, left_pad=left, right_pad=right, pad_width=pad,
                       preserve_short_sequences=preserve_short_sequences).outputs[0]
        if rank == 1:
            return out
        outer = dims[:-1] if None not in dims[:-1] else shape(data)[:-1]
        return reshape(out, concat([outer, [-1]], 0) if not isinstance(outer, list)
                       else outer + [-1])
