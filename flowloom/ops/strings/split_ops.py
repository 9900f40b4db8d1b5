"""StringSplit and StringSplitV2: a vector of strings split into a 2-D SparseTensor of tokens.

`tf.string_split` (StringSplit) splits at every byte that occurs in the delimiter (an empty
delimiter splits into single bytes), keeping empty tokens unless `skip_empty`; an empty string
has no tokens. `tf.strings.split` (StringSplitV2) splits as Python's `bytes.split`: at runs of
ASCII whitespace when `sep` is empty, else at each exact `sep`, at most `maxsplit` times.
Either way row i's tokens are entries (i, 0), (i, 1), ... and the dense shape is
[rows, most tokens in a row].
"""

import numpy as np

from flowloom.framework import dtypes, errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework.op_def import NotDifferentiable, defop
from flowloom.framework.ops import convert_to_tensor
from flowloom.framework.sparse_tensor import SparseTensor
from flowloom.framework.tensor_shape import TensorShape

_OUTPUTS = ["indices: int64", "values: string", "shape: int64"]
StringSplit = defop("StringSplit", inputs=["input: string", "delimiter: string"],
                    outputs=_OUTPUTS, attrs={"skip_empty": True})
StringSplitV2 = defop("StringSplitV2", inputs=["input: string", "sep: string"],
                      outputs=_OUTPUTS, attrs={"maxsplit": -1})
NotDifferentiable("StringSplit", "StringSplitV2")


def _split_shape(op):
    for t, rank in zip(op._inputs, (1, 0)):
        if t._shape.ndims not in (None, rank):
            raise ValueError(f"Shape must be rank {rank} but is rank {t._shape.ndims}")
    return [TensorShape([None, 2]), TensorShape([None]), TensorShape([2])]


StringSplit.shape(_split_shape)
StringSplitV2.shape(_split_shape)


def _as_bytes(value):
    return value if isinstance(value, bytes) else str(value).encode("utf-8")


def _check(source, sep, sep_name):
    source, sep = np.asarray(source, dtype=object), np.asarray(sep, dtype=object)
    if source.ndim != 1:
        raise errors.InvalidArgumentError(
            None, None, f"input must be a vector, got shape: {list(source.shape)}")
    if sep.ndim != 0:
        raise errors.InvalidArgumentError(
            None, None, f"{sep_name} must be a scalar, got shape: {list(sep.shape)}")
    return [_as_bytes(s) for s in source], _as_bytes(sep[()])


def _sparse(rows):
    """(indices, values, dense_shape) of the token lists `rows`."""
    indices = [(i, j) for i, row in enumerate(rows) for j in range(len(row))]
    values = np.empty(len(indices), dtype=object)
    values[:] = [token for row in rows for token in row]
    return (np.array(indices, dtype=np.int64).reshape(-1, 2), values,
            np.array([len(rows), max((len(r) for r in rows), default=0)], dtype=np.int64))


def _split_any(text, delimiter, skip_empty):
    if not text:
        return []
    if not delimiter:
        return [bytes([b]) for b in text]
    tokens, start = [], 0
    for k, b in enumerate(text):
        if b in delimiter:
            tokens.append(text[start:k])
            start = k + 1
    tokens.append(text[start:])
    return [t for t in tokens if t] if skip_empty else tokens


@StringSplit.kernel
def _(xp, source, delimiter, *, skip_empty):
    texts, delimiter = _check(source, delimiter, "delimiter")
    return _sparse([_split_any(t, delimiter, skip_empty) for t in texts])


@StringSplitV2.kernel
def _(xp, source, sep, *, maxsplit):
    texts, sep = _check(source, sep, "sep")
    return _sparse([t.split(sep or None, maxsplit) for t in texts])


def _sparse_result(op):
    indices, values, shape = op.outputs
    return SparseTensor(indices, values, shape)


def string_split(source, sep=None, skip_empty=True, delimiter=None,
                 result_type="SparseTensor", name=None):
    """Splits each string of the vector `source` at any byte of `sep` (`tf.string_split`).

    Args:
      source: a 1-D string `Tensor`.
      sep: a 0-D string `Tensor`: each of its bytes is a split point (default " "); an empty
        string splits into single bytes.
      skip_empty: leave out empty tokens.
      delimiter: the older name of `sep`.
      result_type: "SparseTensor" (a RaggedTensor result is not implemented).
      name: a name for the ops.

    Returns:
      A 2-D string `SparseTensor`: entry (i, j) is token j of `source[i]`.

    Example:
      tf.string_split(["hello world", "a b c"])  # values hello world a b c, shape [2, 3]
    """
    if sep is not None and delimiter is not None:
        raise ValueError("Cannot specify both 'sep' and 'delimiter'")
    if result_type != "SparseTensor":
        raise NotImplementedError(f"tf.string_split with result_type={result_type!r}")
    sep = " " if sep is None and delimiter is None else (sep if sep is not None else delimiter)
    with name_scope(name, "StringSplit", [source]):
        sep = convert_to_tensor(sep, dtype=dtypes.string)
        source = convert_to_tensor(source, dtype=dtypes.string)
        return _sparse_result(apply_op("StringSplit", (source, sep), skip_empty=skip_empty))


def strings_split(input=None, sep=None, maxsplit=-1,  # noqa: A002 - TF's argument name
                  result_type="SparseTensor", source=None, name=None):
    """Splits each string of the vector `input` as Python's `bytes.split` (`tf.strings.split`).

    Args:
      input: a 1-D string `Tensor` (`source` is its older name).
      sep: a 0-D string `Tensor`; None or "" splits at runs of whitespace.
      maxsplit: split at most this many times per string (-1: no limit).
      result_type: "SparseTensor" (a RaggedTensor result is not implemented).
      source: the older name of `input`.
      name: a name for the ops.

    Returns:
      A 2-D string `SparseTensor`: entry (i, j) is token j of `input[i]`.
    """
    if input is not None and source is not None:
        raise ValueError("Cannot specify both 'input' and 'source'")
    input = source if input is None else input  # noqa: A001
    if result_type != "SparseTensor":
        raise NotImplementedError(f"tf.strings.split with result_type={result_type!r}")
    with name_scope(name, "StringSplit", [input]):
        input = convert_to_tensor(input, dtype=dtypes.string, name="input")  # noqa: A001
        if input._shape.ndims != 1:
            raise NotImplementedError(
                f"tf.strings.split of a rank-{input._shape.ndims} input (a RaggedTensor "
                "result): only a vector is implemented")
        sep = convert_to_tensor("" if sep is None else sep, dtype=dtypes.string)
        return _sparse_result(apply_op("StringSplitV2", (input, sep), maxsplit=maxsplit))
