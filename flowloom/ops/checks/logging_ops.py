"""Assertions and printing: Assert, Print, StringFormat + PrintV2 (`tf.print`), CheckNumerics."""

import sys

import numpy as np

from flowloom.framework import common_shapes
from flowloom.framework import dtypes
from flowloom.framework import errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework.op_def import defop
from flowloom.framework.ops import Tensor, convert_to_tensor


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


# -- Assert ----------------------------------------------------------------------------------
Assert = defop("Assert", inputs=["condition: bool", "data: list(T)"], attrs={"summarize": 3},
               stateful=True)
Assert.shape(common_shapes.no_outputs)


@Assert.kernel
def _(xp, condition, *data, summarize):
    if not np.all(condition):
        parts = []
        for d in data:
            if isinstance(d, np.ndarray) and d.dtype == object and d.ndim == 0:
                parts.append("[" + d[()].decode("utf-8", "replace") + "]")
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
        print(message + "".join(format_value(d, summarize) for d in data), file=sys.stderr)
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


# -- tf.print: StringFormat + PrintV2 ------------------------------------------------------------
StringFormat = defop("StringFormat", inputs=["inputs: list(T)"], outputs=["output: string"],
                     attrs={"template": "%s", "placeholder": "%s", "summarize": 3})
StringFormat.shape(common_shapes.scalar_shape)


@StringFormat.kernel
def _(xp, *inputs, template, placeholder, summarize):
    pieces = template.split(placeholder)
    out = pieces[0]
    for v, rest in zip(inputs, pieces[1:]):
        if isinstance(v, np.ndarray) and v.dtype == object and v.ndim == 0:
            out += v[()].decode("utf-8", "replace")
        else:
            out += format_value(v, summarize)
        out += rest
    return np.array(out.encode(), dtype=object)


PrintV2 = defop("PrintV2", inputs=["input: string"],
                attrs={"output_stream": "stderr", "end": "\n"}, stateful=True)
PrintV2.shape(common_shapes.no_outputs)


@PrintV2.kernel
def _(xp, s, *, output_stream, end):
    text = s[()].decode("utf-8", "replace") if isinstance(s, np.ndarray) else str(s)
    stream = sys.stdout if output_stream in ("stdout", "log(info)") else sys.stderr
    # Unbuffered, as TF's C++ streams: the text is on the file descriptor when the run ends.
    print(text, end=end, file=stream, flush=True)
    return None


def print_v2(*inputs, output_stream=sys.stderr, summarize=3, sep=" ", end="\n", name=None):
    """`tf.print`: an op that prints its inputs when run (add it to a fetch or a dependency)."""
    stream = "stdout" if output_stream is sys.stdout else "stderr"
    with name_scope(name, "PrintV2") as scope:
        tensors = []
        parts = []
        for x in inputs:
            if isinstance(x, Tensor) or hasattr(x, "_as_graph_element"):
                tensors.append(convert_to_tensor(x))
                parts.append("{}")
            else:
                parts.append(str(x))
        formatted = apply_op("StringFormat", (tensors,), template=sep.join(parts),
                             placeholder="{}", summarize=summarize).outputs[0]
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
