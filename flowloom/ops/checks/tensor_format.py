"""The StringFormat op and `tf.strings.format`: tensors summarized into a string template.

Each tensor is written as TF 1.15's `Tensor::SummarizeValue(summarize, print_v2=true)` writes
it: a scalar as its value; otherwise nested brackets, elements separated by a space, rows by
a newline and an indent (one blank line more per outer dimension), and, along a dimension
longer than 2 * summarize, only the first and last `summarize` entries around "...". Strings
are quoted, floats are written as C++ streams write them (6 significant digits), booleans
as 1/0. `summarize` < 0 writes every element.
"""

import numpy as np

from flowloom.framework import common_shapes
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework.op_def import defop
from flowloom.framework.ops import convert_to_tensor


def _element(x):
    if isinstance(x, (bytes, np.bytes_)):
        return '"' + bytes(x).decode("utf-8", "backslashreplace") + '"'
    if isinstance(x, str):
        return '"' + x + '"'
    if isinstance(x, (bool, np.bool_)):
        return "1" if x else "0"
    if isinstance(x, (np.floating, float)):
        return "%g" % float(x)
    if isinstance(x, (np.complexfloating, complex)):
        return "(%g,%g)" % (x.real, x.imag)
    return str(x)


def _spacing(dim, ndims):
    if dim == ndims - 1:
        return " "
    return "\n" * (ndims - dim - 1) + " " * (dim + 1)


def _sub(v, dim, ends, out, ndims):
    """Writes `v` (the sub-array at depth `dim` of an array of rank `ndims`)."""
    if dim == ndims:
        out.append(_element(v[()] if isinstance(v, np.ndarray) else v))
        return
    out.append("[")
    n = v.shape[0]
    start_of_end = max(ends, n - ends)
    for i in range(min(ends, n)):
        if i > 0:
            out.append(_spacing(dim, ndims))
        _sub(v[i], dim + 1, ends, out, ndims)
    if n > 2 * ends:
        out.append(_spacing(dim, ndims))
        out.append("...")
    for i in range(start_of_end, n):
        out.append(_spacing(dim, ndims))
        _sub(v[i], dim + 1, ends, out, ndims)
    out.append("]")


def summarize_value(value, summarize=3):
    """`value` (an array) as TF's print_v2 summary writes it (see the module docstring)."""
    v = np.asarray(value)
    if v.ndim == 0:
        return _element(v[()])
    if v.size == 0:
        return "[]"
    ends = v.size if summarize is None or summarize < 0 else min(summarize, v.size)
    out = []
    _sub(v, 0, ends, out, v.ndim)
    return "".join(out)


StringFormat = defop("StringFormat", inputs=["inputs: list(T)"], outputs=["output: string"],
                     attrs={"template": "%s", "placeholder": "%s", "summarize": 3})
StringFormat.shape(common_shapes.scalar_shape)


@StringFormat.kernel
def _(xp, *inputs, template, placeholder, summarize):
    pieces = template.split(placeholder)
    out = [pieces[0]]
    for v, rest in zip(inputs, pieces[1:]):
        out.append(summarize_value(v, summarize))
        out.append(rest)
    return np.array("".join(out).encode("utf-8"), dtype=object)


StringFormat.no_gradient()


def string_format(template, inputs, placeholder="{}", summarize=3, name=None):
    """Formats tensors into `template` (`tf.strings.format`).

    Args:
      template: A string; each `placeholder` in it is replaced by one tensor's summary.
      inputs: A tensor or a list of tensors.
      placeholder: The placeholder string (default "{}").
      summarize: Entries shown at the start and the end of each dimension (< 0: all).
      name: A name for the operation (optional).

    Returns:
      A scalar string `Tensor`.

    Raises:
      ValueError: If the number of placeholders differs from the number of tensors.
    """
    if not isinstance(inputs, (list, tuple)):
        inputs = [inputs]
    inputs = [convert_to_tensor(x) for x in inputs]
    count = template.count(placeholder)
    if count != len(inputs):
        raise ValueError(f"{count} placeholder(s) in template does not match {len(inputs)} "
                         "tensor(s) provided as input")
    with name_scope(name, "StringFormat", inputs) as scope:
        return apply_op("StringFormat", (inputs,), name=scope, template=template,
                        placeholder=placeholder, summarize=summarize).outputs[0]
