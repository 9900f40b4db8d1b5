"""EnsureShape: a run-time check that a tensor has the shape the program expects."""

from flowloom.framework import errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.op_def import defop
from flowloom.framework.tensor_shape import as_shape

EnsureShape = defop("EnsureShape", inputs=["input: T"], outputs=["output: T"],
                    attrs={"shape": None})


@EnsureShape.shape
def _(op):
    s, want = op._inputs[0]._shape, op._attrs["shape"]
    if not s.is_compatible_with(want):
        raise ValueError(f"Shapes {s} and {want} are incompatible")
    return s.merge_with(want)


def _shape_text(dims):
    return "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"


@EnsureShape.kernel
def _(xp, x, *, shape, ctx):
    if not shape.is_compatible_with(as_shape(x.shape)):
        want = _shape_text(shape.as_list()) if shape.ndims is not None else "<unknown>"
        # TF names the input as its NodeDef does: "op" for output 0, "op:k" otherwise.
        src = ctx.op._inputs[0]
        where = src.op.name if src.value_index == 0 else src.name
        raise errors.InvalidArgumentError(
            None, None, f"Shape of tensor {where} {_shape_text(x.shape)} is "
            f"not compatible with expected shape {want}.")
    return x


EnsureShape.gradient(lambda op, grad: grad)


def ensure_shape(x, shape, name=None):
    """`x`, checked when it runs to have a shape compatible with `shape` (InvalidArgumentError
    otherwise); its static shape is refined to `shape`."""
    return apply_op("EnsureShape", (x,), name=name, shape=as_shape(shape)).outputs[0]
