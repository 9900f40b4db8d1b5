"""Assertions and printing: Assert, Print, PrintV2 (`tf.print`, over StringFormat), CheckNumerics."""

import pprint
import random
import sys

import numpy as np

from flowloom.framework import common_shapes
from flowloom.framework import dtypes
from flowloom.framework import errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework.op_def import defop
from flowloom.framework.ops import Tensor, convert_to_tensor
from flowloom.ops.checks import tensor_format  # noqa: F401  (registers StringFormat)
from flowloom.io import file_system


def format_value(v, summarize=3):
    """A value as TF prints it inside Assert and Print messages: `[1 2 3...]`."""
    v = np.asarray(v)
    if v.dtype == object:
        items = [x.decode("utf-8", "replace") if isinstance(x, bytes) else str(x)
                 for x in v.ravel()]
    else:
        items = [_fmt_scalar(x) for x in v.ravel()]
    if v.ndim == 0:
        return items[0]
    n = len(items) if summarize is None or summarize < 0 else summarize
    shown = items[:n]
    return _nest(v.shape, shown, len(items) > n)


def _fmt_scalar(x):
    if isinstance(x, (np.bool_, bool)):
        return "1" if x else "0"
    if isinstance(x, np.floating):
        return "%g" % x
    return str(x)


def _nest(shape, items, truncated):
    if len(shape) <= 1:
        return "[" + " ".join(items) + ("..." if truncated else "") + "]"
    return "[" + " ".join(items) + ("..." if truncated else "") + "]"


def _c_escape(data):
    """A string as TF's Assert prints it (C escapes: `'` as `\\'`, non-printables in octal)."""
    out = []
    for b in data if isinstance(data, bytes) else str(data).encode():
        c = chr(b)
        if c in "\n\r\t":
            out.append({"\n": "\\n", "\r": "\\r", "\t": "\\t"}[c])
        elif c in "\"'\\":
            out.append("\\" + c)
        elif 32 <= b < 127:
            out.append(c)
        else:
            out.append("\\%03o" % b)
    return "".join(out)


# -- Assert ----------------------------------------------------------------------------------
Assert = defop("Assert", inputs=["condition: bool", "data: list(T)"], attrs={"summarize": 3},
               stateful=True)
Assert.shape(common_shapes.no_outputs)


@Assert.kernel
def _(xp, condition, *data, summarize):
    # ndarray.all() and bool() skip np.all's dispatch (an Assert runs per example)
    holds = condition.all() if type(condition) is np.ndarray else \
        bool(condition) if type(condition) in (np.bool_, bool) else np.all(condition)
    if not holds:
        parts = []
        for d in data:
            if isinstance(d, np.ndarray) and d.dtype == object and d.ndim == 0:
                parts.append("[" + _c_escape(d[()]) + "]")
            else:
                parts.append(format_value(d, summarize) if np.ndim(d) else
                             "[" + format_value(d, summarize) + "]")
        raise errors.InvalidArgumentError(None, None, "assertion failed: " + " ".join(parts))
    return None


def Assert_(condition, data, summarize=None, name=None):  # noqa: N802 - TF's name is tf.Assert
    """An op that raises InvalidArgumentError with `data` when `condition` is false."""
    with name_scope(name, "Assert", [condition] + list(data)) as scope:
        xs = [convert_to_tensor(d) for d in data]
        if all(x.dtype.base_dtype in (dtypes.string, dtypes.int32) for x in xs):
            # As TF: the op is `<scope>/Assert` and converts the raw data itself
            # (`Assert/data_0`); the Consts made above stay unused.
            return apply_op("Assert", (condition, list(data)), name="Assert",
                            summarize=3 if summarize is None else summarize)
        return apply_op("Assert", (condition, xs), name=scope,
                        summarize=3 if summarize is None else summarize)


# -- Print (TF1) -------------------------------------------------------------------------------
Print = defop("Print", inputs=["input: T", "data: list(U)"], outputs=["output: T"],
              attrs={"message": "", "first_n": -1, "summarize": 3}, stateful=True)
Print.shape(common_shapes.unchanged)


@Print.kernel
def _(xp, x, *data, message, first_n, summarize, ctx):
    count = ctx.state.get("count", 0)
    if first_n < 0 or count < first_n:
        ctx.state["count"] = count + 1
        # As TF's SummarizeValue: a scalar in brackets too (`[3.5][1 2]`).
        print(message + "".join(format_value(d, summarize) if np.ndim(d) else
                                "[" + format_value(d, summarize) + "]" for d in data),
              file=sys.stderr)
    return x


@Print.gradient
def _(op, *grads):
    # Only the printed tensor gets the gradient; the data inputs are just printed.
    return [grads[0]] + [None] * (len(op._inputs) - 1)


def Print_(input_, data, message=None, first_n=None, summarize=None, name=None):  # noqa: N802
    """Identity on `input_` that prints `message` and `data` to stderr when it runs."""
    return apply_op("Print", (input_, list(data)), name=name, message=message or "",
                    first_n=-1 if first_n is None else first_n,
                    summarize=3 if summarize is None else summarize).outputs[0]


# -- tf.print: StringFormat (tensor_format.py) + PrintV2 ---------------------------------------
PrintV2 = defop("PrintV2", inputs=["input: string"],
                attrs={"output_stream": "stderr", "end": "\n"}, stateful=True)
PrintV2.shape(common_shapes.no_outputs)


@PrintV2.kernel
def _(xp, s, *, output_stream, end):
    text = s[()].decode("utf-8", "replace") if isinstance(s, np.ndarray) else str(s)
    if output_stream.startswith("file://"):
        with file_system.open_file(output_stream[len("file://"):], "a") as f:
            f.write(text + end)
        return None
    if output_stream.startswith("log("):
        from flowloom.platform import tf_logging

        level = output_stream[4:-1]
        getattr(tf_logging, level if level != "warning" else "warning")(text)
        return None
    stream = sys.stdout if output_stream == "stdout" else sys.stderr
    # Unbuffered, as TF's C++ streams: the text is on the file descriptor when the run ends.
    print(text, end=end, file=stream, flush=True)
    return None


PrintV2.no_gradient()


def _stream_attr(output_stream):
    """PrintV2's output_stream attr for `output_stream` (TF's mapping)."""
    from flowloom.platform import tf_logging

    if output_stream is sys.stdout:
        return "stdout"
    if output_stream is sys.stderr:
        return "stderr"
    levels = {getattr(tf_logging, n, None): f"log({n})" for n in ("info", "warning", "error")}
    levels.update({getattr(tf_logging, n.upper(), None): f"log({n})"
                   for n in ("info", "warning", "error")})
    levels.pop(None, None)
    try:
        if output_stream in levels:
            return levels[output_stream]
    except TypeError:
        pass
    if isinstance(output_stream, str) and output_stream.startswith("file://"):
        return output_stream
    raise ValueError(f"Unsupported output stream, logging level, or file.{output_stream}. "
                     "Supported streams are sys.stdout, sys.stderr, tf.logging.info, "
                     "tf.logging.warning, tf.logging.error. File needs to be in the form "
                     "of 'file://<filepath>'.")


def _placeholder_not_in(text, placeholder="{}"):
    rng = random.Random(5)
    while placeholder in text:
        placeholder = placeholder + str(rng.randint(0, 9))
    return placeholder


def print_v2(*inputs, **kwargs):
    """`tf.print`: an op that prints its inputs when run (add it to a fetch or a dependency).

    Inputs may be tensors, SparseTensors, Python values, or nested lists/tuples/dicts of them;
    they are laid out as TF does (`pprint.pformat` of the structure, tensors summarized by
    StringFormat) and joined by `sep`.

    Args:
      *inputs: What to print.
      output_stream: sys.stderr (default), sys.stdout, tf.logging.info/warning/error, or
        "file://<path>" (appended to).
      summarize: Entries shown at the start and the end of each dimension (< 0: all).
      sep: The separator between inputs (default " ").
      end: Written after the text (default "\n").
      name: A name for the operation (optional).

    Returns:
      The PrintV2 Operation.

    Raises:
      ValueError: For an unsupported output_stream.
    """
    from flowloom.framework import nest
    from flowloom.framework.sparse_tensor import SparseTensor
    from flowloom.ops.checks.tensor_format import string_format

    output_stream = kwargs.pop("output_stream", sys.stderr)
    name = kwargs.pop("name", None)
    summarize = kwargs.pop("summarize", 3)
    sep = kwargs.pop("sep", " ")
    end = kwargs.pop("end", "\n")
    if kwargs:
        raise ValueError(f"Unrecognized keyword arguments for tf.print: {sorted(kwargs)}")
    stream = _stream_attr(output_stream)

    def is_tensor(x):
        return isinstance(x, Tensor) or hasattr(x, "_as_graph_element")

    with name_scope(name, "PrintV2") as scope:
        if (len(inputs) == 1 and is_tensor(inputs[0]) and
                not isinstance(inputs[0], SparseTensor)):
            first = convert_to_tensor(inputs[0])
            if first.shape.ndims == 0 and first.dtype == dtypes.string:
                return apply_op("PrintV2", (first,), name=scope, output_stream=stream, end=end)
        free = nest.map_structure(lambda x: "" if is_tensor(x) else x, list(inputs))
        placeholder = _placeholder_not_in(" ".join(pprint.pformat(x) for x in free))
        templates, tensors = [], []
        for item in inputs:
            slots = []
            for x in nest.flatten(item):
                if isinstance(x, SparseTensor):
                    tensors.extend([x.indices, x.values, x.dense_shape])
                    slots.append(f"SparseTensor(indices={placeholder}, values={placeholder}, "
                                 f"shape={placeholder})")
                elif is_tensor(x):
                    tensors.append(convert_to_tensor(x))
                    slots.append(placeholder)
                else:
                    slots.append(x)
            if isinstance(item, str):
                templates.append(item)
            else:
                templates.append(pprint.pformat(nest.pack_sequence_as(item, slots)))
        template = sep.join(templates).replace("'" + placeholder + "'", placeholder)
        formatted = string_format(template, tensors, placeholder=placeholder,
                                  summarize=summarize)
        return apply_op("PrintV2", (formatted,), name=scope, output_stream=stream, end=end)


# -- CheckNumerics ------------------------------------------------------------------------------------
CheckNumerics = defop("CheckNumerics", inputs=["tensor: T"], outputs=["output: T"],
                      attrs={"message": ""})
CheckNumerics.shape(common_shapes.unchanged)


@CheckNumerics.kernel
def _(xp, x, *, message):
    nan, inf = bool(np.isnan(x).any()), bool(np.isinf(x).any())
    if nan or inf:
        what = "NaN and Inf" if nan and inf else ("NaN" if nan else "Inf")
        raise errors.InvalidArgumentError(None, None, f"{message} : Tensor had {what} values")
    return x


@CheckNumerics.gradient
def _(op, grad):
    message = op._attrs["message"]
    return check_numerics(grad, "Not a number (NaN) or infinity (Inf) values detected in "
                          f"gradient. {message}")


def check_numerics(tensor, message, name=None):
    """Identity that fails with InvalidArgumentError if `tensor` holds NaN or Inf."""
    return apply_op("CheckNumerics", (tensor,), name=name, message=message).outputs[0]
