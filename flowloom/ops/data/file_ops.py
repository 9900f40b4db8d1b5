"""MatchingFiles: the sorted file names that match glob patterns (`tf.matching_files`)."""

import glob
import os

import numpy as np

from flowloom.framework import errors
from flowloom.framework import tensor_shape
from flowloom.framework.apply_op import apply_op
from flowloom.framework.op_def import defop

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
        found.extend(sorted(glob.glob(_text(p))))
    return np.array([os.fsencode(f) for f in found], dtype=object)


def matching_files(pattern, name=None):
    """The files matching `pattern` (a glob, or a vector of globs), sorted per pattern."""
    return apply_op("MatchingFiles", (pattern,), name=name).outputs[0]
