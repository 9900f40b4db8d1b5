"""File ops: MatchingFiles (the sorted file names that match glob patterns,
`tf.matching_files`), ReadFile and WriteFile (`tf.read_file`, `tf.write_file`)."""

import os

import numpy as np

from flowloom.framework import errors
from flowloom.framework import tensor_shape
from flowloom.framework.apply_op import apply_op
from flowloom.framework.op_def import defop
from flowloom.io import file_system

MatchingFiles = defop("MatchingFiles", inputs=["pattern: string"], outputs=["filenames: string"],
                       stateful=True)  # the files may change between runs: never folded
MatchingFiles.shape(lambda op: [tensor_shape.TensorShape([None])])
MatchingFiles.no_gradient()


def _text(x):
    return x.decode("utf-8") if isinstance(x, bytes) else str(x)


@MatchingFiles.kernel
def _(xp, pattern):
    patterns = np.asarray(pattern, dtype=object).ravel()
    if np.ndim(pattern) > 1:
        raise errors.InvalidArgumentError(None, None,
                                          "Input pattern tensor must be a scalar or a vector")
    found = []
    for p in patterns:
        found.extend(file_system.glob(_text(p)))
    # TF's kernel sorts the names of all patterns together (duplicates kept)
    return np.array(sorted(os.fsencode(f) for f in found), dtype=object)


def matching_files(pattern, name=None):
    """The files matching `pattern` (a glob, or a vector of globs), all sorted together."""
    return apply_op("MatchingFiles", (pattern,), name=name).outputs[0]


# ReadFile refuses files larger than this many bytes (a string tensor holds the whole file).
MAX_READ_FILE_BYTES = 1 << 31


def _scalar_arg(value, what):
    arr = np.asarray(value, dtype=object)
    if arr.ndim != 0:
        raise errors.InvalidArgumentError(
            None, None, f"{what} tensor must be scalar, but had shape: {list(arr.shape)}")
    item = arr.item()
    return item.encode("utf-8") if isinstance(item, str) else bytes(item)


def _scalar_string_inputs(op):
    for tensor in op.inputs:
        rank = tensor.shape.ndims
        if rank not in (None, 0):
            raise ValueError(f"Shape must be rank 0 but is rank {rank}")


# Both are stateful for flowloom's rewrites: the file may change between runs, so a read
# is never folded into a constant.
ReadFile = defop("ReadFile", inputs=["filename: string"], outputs=["contents: string"],
                 stateful=True)
ReadFile.no_gradient()


@ReadFile.shape
def _(op):
    _scalar_string_inputs(op)
    return [tensor_shape.TensorShape([])]


@ReadFile.kernel
def _(xp, filename):
    path = os.fsdecode(_scalar_arg(filename, "Input filename"))
    with file_system.open_file(path, "rb") as f, file_system.tf_errors(path):
        size = os.fstat(f.fileno()).st_size
        if size > MAX_READ_FILE_BYTES:
            raise errors.ResourceExhaustedError(
                None, None, f"{path}: file of {size} bytes is larger than ReadFile's "
                f"limit of {MAX_READ_FILE_BYTES} bytes")
        # As TF: as many bytes as the file's size says (a device file reads as empty).
        data = f.read(size)
    return np.array(data, dtype=object)


WriteFile = defop("WriteFile", inputs=["filename: string", "contents: string"], outputs=[],
                  stateful=True)
WriteFile.shape(lambda op: _scalar_string_inputs(op) or [])
WriteFile.no_gradient()


@WriteFile.kernel
def _(xp, filename, contents):
    path = os.fsdecode(_scalar_arg(filename, "Input filename"))
    data = _scalar_arg(contents, "Contents")
    parent = os.path.dirname(path)
    if parent and not file_system.exists(parent):  # TF makes the missing directories
        file_system.makedirs(parent, exist_ok=True)
    with file_system.open_file(path, "wb") as f, file_system.tf_errors(path):
        f.write(data)


def read_file(filename, name=None):
    """Reads and outputs the entire contents of the input filename.

    Args:
      filename: A `Tensor` of type `string` (a scalar).
      name: A name for the operation (optional).

    Returns:
      A `Tensor` of type `string`.
    """
    return apply_op("ReadFile", (filename,), name=name).outputs[0]


def write_file(filename, contents, name=None):
    """Writes contents to the file at input filename, creating the file (and its missing
    directories) if needed, replacing what it held.

    Args:
      filename: A `Tensor` of type `string` (a scalar): the file's name.
      contents: A `Tensor` of type `string` (a scalar): what to write.
      name: A name for the operation (optional).

    Returns:
      The created Operation.
    """
    return apply_op("WriteFile", (filename, contents), name=name)
